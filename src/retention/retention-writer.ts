/**
 * The retention writer of one zone: reads the zone's stream through its own queue consumer (`retention`),
 * takes each chunk's retained section — the chunk's events as ingest compressed them, one zstd frame — and
 * appends the frames, as they are, to a **hot segment** of one hour partition (segment-names.ts). No
 * decompression, no parsing, no DuckDB: the compaction turns hot segments into Parquet later, in the
 * background (compactor.ts).
 *
 * The segment's queue range is recorded before it is written, and the consumer commits only after the
 * segment is stored durably (synced and renamed into place, or put into the bucket), so a crash at any point
 * loses nothing that ingest acknowledged: the recorded range is written again first, under the same name —
 * unless a compaction already holds it, in which case it is only committed.
 */
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { httpRequests } from '../domain/datasets/http-requests.ts';
import { chunkSection, eventStatus, plainTextOf, retainedSectionId } from '../ingest/chunk-format.ts';
import { receivedMember } from '../ingest/retained-text.ts';
import { zstdFrame } from '../ingest/zstd-frame.ts';
import type { BatchSegment, EventQueue, InflightBatch, QueueChunk, QueueConsumer, StreamKey } from '../queue/queue.ts';
import { rangeIdOf } from '../queue/range-id.ts';
import { isCompacted } from './retained-files.ts';
import { hotSegmentKey } from './segment-names.ts';
import { hourPartitionOf, type SegmentStore } from './segment-store.ts';

/** The queue consumer every zone's retention writer uses. */
export const retentionConsumer = 'retention';

/** The stream whose events a zone retains. */
export function retentionStreamOf(zoneId: string): StreamKey {
  return { zoneId, dataset: httpRequests.id };
}

/** A hot segment a writer stored. */
export interface WrittenHotSegment {
  readonly zoneId: string;
  readonly key: string;
  readonly bytes: number;
  readonly events: number;
}

/** What a writer needs from the node. */
export interface RetentionWriterDeps {
  readonly queue: EventQueue;
  readonly segments: SegmentStore;
  /** Where a segment is written before it is renamed into place (on the store's file system). */
  readonly workDir: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** A hot segment closes at most this long after its first event arrived here. */
  readonly flushMs: number;
  /** A hot segment was stored and its range committed (for the compaction and /metrics). */
  readonly onWritten?: (written: WrittenHotSegment) => void;
}

/** Compressed bytes a hot segment holds at most before it closes (~300,000 events of the benchmark's kind). */
const maxSegmentBytes = 32 * 1024 * 1024;
const fetchLimits = { maxChunks: 64, maxBytes: 16 * 1024 * 1024 };
const heartbeatEveryMs = 10_000;

/** The retained events of (part of) a chunk: one zstd frame of their lines, all received at `receivedMs`. */
export interface RetainedFrame {
  readonly frame: Buffer;
  readonly receivedMs: number;
  readonly events: number;
}

/**
 * The open hot segment: its queue range, and the file of the work directory its frames are appended to as
 * they come (holding them until the flush would keep each chunk's whole payload alive, and the garbage
 * collector busy, for the flush interval).
 */
class PendingSegment {
  readonly segments: BatchSegment[] = [];
  file: { readonly path: string; readonly handle: FileHandle; closed: boolean } | undefined;
  bytes = 0;
  events = 0;
  firstAppendMs = 0;
  lastAppendMs = 0;
  firstReceivedMs = Number.POSITIVE_INFINITY;
  lastReceivedMs = 0;
  openedAtMs = 0;

  get isEmpty(): boolean {
    return this.segments.length === 0;
  }

  /** The hour partition of its events, once it holds some. */
  hour(): string | undefined {
    return this.events === 0 ? undefined : hourPartitionOf(this.firstReceivedMs);
  }

  batch(): InflightBatch {
    return { rangeId: rangeIdOf(this.segments), segments: [...this.segments], firstAppendMs: this.firstAppendMs, lastAppendMs: this.lastAppendMs };
  }

  /** Appends a frame to the segment's file in `workDir`. */
  async appendFrame(frame: Uint8Array, workDir: string): Promise<void> {
    if (this.file === undefined) {
      await fs.mkdir(workDir, { recursive: true });
      const file = path.join(workDir, `${hotTemporaryPrefix}${randomBytes(6).toString('hex')}`);
      this.file = { path: file, handle: await fs.open(file, 'w'), closed: false };
    }
    await this.file.handle.write(frame);
  }

  /** Closes the file (its data synced) and answers its path. */
  async closeFile(): Promise<string | undefined> {
    const file = this.file;
    if (file === undefined) return undefined;
    if (!file.closed) {
      await file.handle.sync();
      await file.handle.close();
      file.closed = true;
    }
    return file.path;
  }

  /** Gives the file up (the segment was stored, or is left to the next start). */
  async discard(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    if (file === undefined) return;
    if (!file.closed) await file.handle.close().catch(() => {});
    await fs.rm(file.path, { force: true });
  }
}

/** The name every hot segment's file in the work directory starts with (left ones are removed at start). */
export const hotTemporaryPrefix = 'hot-';

const newline = Buffer.from('\n');

/**
 * The retained events [from, to) of a chunk as one zstd frame, or undefined when the chunk has no retained
 * section (it was queued while the zone's flag was off). A whole chunk's frame is taken as it is; part of one
 * (rare: a range that began inside a chunk) is compressed again. A chunk queued by an earlier version (its
 * section deflated, its lines without a receive time) gets the queue's append time as its receive time.
 */
export async function retainedFrame(chunk: QueueChunk, from: number, to: number): Promise<RetainedFrame | undefined> {
  const section = chunkSection(chunk.payload, retainedSectionId);
  if (section === undefined || from >= to) return undefined;
  // Events a Log Explorer dataset's filter refused have no line (their status is not `kept`).
  const kept = section.tally(from, to).kept;
  if (kept === 0) return undefined;
  if (section.text.kind === 'zstd' && from === 0 && to === chunk.count) return { frame: section.text.frame, receivedMs: section.text.receivedMs, events: kept };
  const text = await plainTextOf(section.text);
  const parts: Buffer[] = [];
  if (section.text.kind === 'zstd') {
    for (let e = from; e < to; e++) if (section.status(e) === eventStatus.kept) parts.push(section.recordOf(text, e), newline);
    return { frame: zstdFrame(Buffer.concat(parts)), receivedMs: section.text.receivedMs, events: kept };
  }
  const stamp = Buffer.from(`{${JSON.stringify(receivedMember)}:${chunk.appendedAtMs}`);
  for (let e = from; e < to; e++) {
    const line = section.recordOf(text, e);
    const members = line.subarray(line.indexOf(0x7b) + 1);
    parts.push(stamp, /^\s*\}\s*$/.test(members.toString('latin1')) ? Buffer.from('}') : Buffer.concat([Buffer.from(','), members]), newline);
  }
  return { frame: zstdFrame(Buffer.concat(parts)), receivedMs: chunk.appendedAtMs, events: to - from };
}

export class RetentionWriter {
  readonly zoneId: string;
  private readonly deps: RetentionWriterDeps;
  private readonly stopSignal = new AbortController();
  private stopMode: 'abort' | 'drain' | undefined;
  private running: Promise<void> | undefined;
  private pending = new PendingSegment();
  private lastHeartbeat = 0;

  constructor(zoneId: string, deps: RetentionWriterDeps) {
    this.zoneId = zoneId;
    this.deps = deps;
  }

  start(): void {
    this.running ??= this.run().catch((error: unknown) => {
      this.deps.log.error({ err: error, zoneId: this.zoneId }, `The retention writer of zone ${this.zoneId} stopped on an unexpected error.`);
    });
  }

  /** Stops; `drain` writes what is open (and what is queued) first, `abort` leaves it queued. */
  async stop(mode: 'abort' | 'drain'): Promise<void> {
    this.stopMode ??= mode;
    this.stopSignal.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    const consumer = await this.openConsumer();
    if (consumer === undefined) return;
    try {
      const inflight = await consumer.loadInflight();
      if (inflight !== undefined && !(await this.rewrite(consumer, inflight))) return;
      while (!this.stopSignal.signal.aborted) {
        const waitMs = this.pending.isEmpty ? 1000 : Math.max(0, this.pending.openedAtMs + this.deps.flushMs - this.deps.clock.now());
        const chunks = await consumer.fetch({ ...fetchLimits, maxWaitMs: Math.min(waitMs, 1000), signal: this.stopSignal.signal });
        for (const chunk of chunks) if (!(await this.add(consumer, chunk))) return;
        if (!this.pending.isEmpty && this.deps.clock.now() - this.pending.openedAtMs >= this.deps.flushMs && !(await this.flush(consumer))) return;
        await this.heartbeat(consumer);
      }
      if (this.stopMode === 'drain') {
        for (;;) {
          const chunks = await consumer.fetch({ ...fetchLimits, maxWaitMs: 0 });
          if (chunks.length === 0) break;
          for (const chunk of chunks) if (!(await this.add(consumer, chunk))) return;
        }
        if (!this.pending.isEmpty) await this.flush(consumer);
      }
    } finally {
      // An open segment not written (an abort) stays queued for the next start; its file goes.
      await this.pending.discard();
      await consumer.close();
    }
  }

  private async openConsumer(): Promise<QueueConsumer | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deps.queue.openConsumer(retentionStreamOf(this.zoneId), retentionConsumer);
      } catch (error) {
        if (attempt === 1 || attempt % 12 === 0) this.deps.log.warn({ err: error, zoneId: this.zoneId }, `The retention writer of zone ${this.zoneId} cannot open its queue consumer yet; trying again.`);
        if (!(await this.sleep(5000))) return undefined;
      }
    }
  }

  private async heartbeat(consumer: QueueConsumer): Promise<void> {
    const now = this.deps.clock.now();
    if (now - this.lastHeartbeat < heartbeatEveryMs) return;
    this.lastHeartbeat = now;
    await consumer.heartbeat();
  }

  /** Adds a chunk to the open segment, writing the segment first when the chunk's events belong to another hour. */
  private async add(consumer: QueueConsumer, chunk: QueueChunk): Promise<boolean> {
    const retained = await this.retainedOf(chunk, chunk.firstRecord, chunk.count);
    const hour = this.pending.hour();
    if (retained !== undefined && hour !== undefined && hourPartitionOf(retained.receivedMs) !== hour && !(await this.flush(consumer))) return false;
    await this.append(this.pending, chunk, chunk.firstRecord, chunk.count, retained);
    if (this.pending.bytes >= maxSegmentBytes) return this.flush(consumer);
    return true;
  }

  private async retainedOf(chunk: QueueChunk, from: number, to: number): Promise<RetainedFrame | undefined> {
    try {
      return await retainedFrame(chunk, from, to);
    } catch (error) {
      this.deps.log.error({ err: error, zoneId: this.zoneId, seq: chunk.seq }, `A queue chunk of zone ${this.zoneId} could not be read for retention; its events are not retained.`);
      return undefined;
    }
  }

  private async append(pending: PendingSegment, chunk: QueueChunk, from: number, to: number, retained: RetainedFrame | undefined): Promise<void> {
    if (pending.isEmpty) {
      pending.firstAppendMs = chunk.appendedAtMs;
      pending.openedAtMs = this.deps.clock.now();
    }
    pending.lastAppendMs = Math.max(pending.lastAppendMs, chunk.appendedAtMs);
    pending.segments.push({ seq: chunk.seq, from, to });
    if (retained === undefined) return;
    await pending.appendFrame(retained.frame, this.deps.workDir);
    pending.bytes += retained.frame.length;
    pending.events += retained.events;
    pending.firstReceivedMs = Math.min(pending.firstReceivedMs, retained.receivedMs);
    pending.lastReceivedMs = Math.max(pending.lastReceivedMs, retained.receivedMs);
  }

  /** After a restart: writes the recorded range again, exactly (unless a compaction holds it already), then commits it. */
  private async rewrite(consumer: QueueConsumer, inflight: InflightBatch): Promise<boolean> {
    const chunks = await consumer.readChunks([...new Set(inflight.segments.map((s) => s.seq))]);
    const bySeq = new Map(chunks.map((c) => [c.seq, c]));
    const pending = new PendingSegment();
    for (const segment of inflight.segments) {
      const chunk = bySeq.get(segment.seq);
      if (chunk === undefined) continue;
      await this.append(pending, chunk, segment.from, segment.to, await this.retainedOf(chunk, segment.from, segment.to));
    }
    return this.store(consumer, inflight, pending, true);
  }

  private async flush(consumer: QueueConsumer): Promise<boolean> {
    const pending = this.pending;
    this.pending = new PendingSegment();
    const batch = pending.batch();
    await consumer.saveInflight(batch);
    return this.store(consumer, batch, pending, false);
  }

  /** Writes the hot segment of a recorded range until it is stored (or the writer is aborted), then commits. */
  private async store(consumer: QueueConsumer, batch: InflightBatch, pending: PendingSegment, recovering: boolean): Promise<boolean> {
    const key = pending.events > 0 ? hotSegmentKey(this.zoneId, batch.rangeId, pending.firstReceivedMs, pending.lastReceivedMs) : undefined;
    let stored = key === undefined;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          if (!stored && key !== undefined) {
            // Written before (a crash, or a try whose answer was lost) and compacted meanwhile: writing it again would hold its events twice.
            if ((recovering || attempt > 1) && (await isCompacted(this.deps.segments, key))) stored = true;
            else {
              const file = await pending.closeFile();
              if (file !== undefined) await this.deps.segments.put(key, file);
            }
            stored = true;
          }
          await consumer.commit(batch);
          if (key !== undefined) this.deps.onWritten?.({ zoneId: this.zoneId, key, bytes: pending.bytes, events: pending.events });
          return true;
        } catch (error) {
          if (attempt === 1 || attempt % 10 === 0) this.deps.log.error({ err: error, zoneId: this.zoneId }, `A retained segment of zone ${this.zoneId} could not be written; trying again.`);
          // Stopping: a few quick tries, then what is left stays queued for the next start.
          if (this.stopMode === 'abort' || (this.stopMode === 'drain' && attempt >= 3)) return false;
          if (!(await this.sleep(Math.min(60_000, 1000 * 2 ** Math.min(attempt - 1, 6)), this.stopMode === 'drain'))) return false;
        }
      }
    } finally {
      await pending.discard();
    }
  }

  /** Waits; false when the writer was stopped meanwhile (unless `ignoreStop`, for a drain's retries). */
  private sleep(ms: number, ignoreStop = false): Promise<boolean> {
    return new Promise((resolve) => {
      const signal = this.stopSignal.signal;
      if (signal.aborted && !ignoreStop) return resolve(false);
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      const onAbort = (): void => {
        if (ignoreStop) return;
        clearTimeout(timer);
        resolve(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
