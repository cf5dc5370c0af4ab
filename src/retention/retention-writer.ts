/**
 * The retention writer of one zone: reads the zone's stream through its own queue consumer (`retention`),
 * takes each chunk's retained section (every event whole, as ingest captured it; chunk-format.ts), and
 * writes the events of one hour partition at a time into a Parquet segment. The segment's queue range is
 * recorded before it is written and the consumer commits only after the segment is stored durably, so a
 * crash at any point loses nothing that ingest acknowledged: the recorded range is written again first,
 * under the same key, replacing whatever half of it had landed.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import { httpRequests } from '../domain/datasets/http-requests.ts';
import { chunkSection, retainedSectionId } from '../ingest/chunk-format.ts';
import { inflateText } from '../ingest/deflated-text.ts';
import type { BatchSegment, EventQueue, InflightBatch, QueueChunk, QueueConsumer, StreamKey } from '../queue/queue.ts';
import { rangeIdOf } from '../queue/range-id.ts';
import { receivedFileName, type ReceivedNdjson, type SegmentEngine } from './segment-engine.ts';
import { hourPartitionOf, type SegmentStore } from './segment-store.ts';

/** The queue consumer every zone's retention writer uses. */
export const retentionConsumer = 'retention';

/** The stream whose events a zone retains. */
export function retentionStreamOf(zoneId: string): StreamKey {
  return { zoneId, dataset: httpRequests.id };
}

/** The key of a segment: its zone, hour partition, receive times and a digest of its exact queue range. */
export function segmentKey(zoneId: string, batch: InflightBatch): string {
  const digest = createHash('sha256').update(`${zoneId}\u0000${batch.rangeId}`).digest('hex').slice(0, 12);
  return `${zoneId}/${hourPartitionOf(batch.firstAppendMs)}/${batch.firstAppendMs}-${batch.lastAppendMs}-${digest}.parquet`;
}

/** The receive times a segment key names, to skip segments outside a window without opening them. */
export function segmentTimesOf(key: string): { readonly firstMs: number; readonly lastMs: number } | undefined {
  const match = /\/(\d+)-(\d+)-[0-9a-f]+\.parquet$/.exec(key);
  if (match === null) return undefined;
  return { firstMs: Number(match[1]), lastMs: Number(match[2]) };
}

/** What a writer needs from the node. */
export interface RetentionWriterDeps {
  readonly queue: EventQueue;
  readonly segments: SegmentStore;
  readonly engine: SegmentEngine;
  readonly workDir: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** A segment closes at most this long after its first event arrived here. */
  readonly flushMs: number;
  /** Counts events written into segments (for /metrics). */
  readonly onWritten?: (zoneId: string, events: number) => void;
}

/** NDJSON held for the open segment before it is written, at most. */
const maxPendingBytes = 64 * 1024 * 1024;
const fetchLimits = { maxChunks: 64, maxBytes: 16 * 1024 * 1024 };
const heartbeatEveryMs = 10_000;

/** The events of the open segment: their queue range, and their NDJSON by receive time (ms). */
class PendingSegment {
  readonly segments: BatchSegment[] = [];
  readonly lines = new Map<number, Buffer[]>();
  bytes = 0;
  events = 0;
  firstAppendMs = 0;
  lastAppendMs = 0;
  openedAtMs = 0;

  get isEmpty(): boolean {
    return this.segments.length === 0;
  }

  hour(): string | undefined {
    return this.isEmpty ? undefined : hourPartitionOf(this.firstAppendMs);
  }

  batch(): InflightBatch {
    return { rangeId: rangeIdOf(this.segments), segments: [...this.segments], firstAppendMs: this.firstAppendMs, lastAppendMs: this.lastAppendMs };
  }
}

/**
 * The retained events [from, to) of a chunk as NDJSON, one event per line as ingest kept it, or undefined
 * when the chunk has no retained section (it was queued while the zone's flag was off). A whole chunk is
 * its section's text as it is (no copy for plain text), so the main thread does next to nothing per event.
 */
export async function retainedLines(chunk: QueueChunk, from: number, to: number): Promise<Buffer | undefined> {
  const section = chunkSection(chunk.payload, retainedSectionId);
  if (section === undefined || from >= to) return undefined;
  let text: Buffer;
  switch (section.text.kind) {
    case 'deflated':
      text = await inflateText(section.text.piece);
      break;
    case 'plain':
    case 'records':
      text = section.text.text;
      break;
  }
  if (from === 0 && to === chunk.count && section.text.kind !== 'records') return Buffer.concat([text, newline]);
  const parts: Buffer[] = [];
  for (let e = from; e < to; e++) parts.push(section.recordOf(text, e), newline);
  return Buffer.concat(parts);
}

const newline = Buffer.from('\n');

export class RetentionWriter {
  readonly zoneId: string;
  private readonly deps: RetentionWriterDeps;
  private readonly dataset: Dataset = httpRequests;
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

  /** Adds a chunk to the open segment, writing the segment first when the chunk starts another hour. */
  private async add(consumer: QueueConsumer, chunk: QueueChunk): Promise<boolean> {
    if (!this.pending.isEmpty && hourPartitionOf(chunk.appendedAtMs) !== this.pending.hour() && !(await this.flush(consumer))) return false;
    await this.append(this.pending, chunk, chunk.firstRecord, chunk.count);
    if (this.pending.bytes >= maxPendingBytes) return this.flush(consumer);
    return true;
  }

  private async append(pending: PendingSegment, chunk: QueueChunk, from: number, to: number): Promise<void> {
    let lines: Buffer | undefined;
    try {
      lines = await retainedLines(chunk, from, to);
    } catch (error) {
      this.deps.log.error({ err: error, zoneId: this.zoneId, seq: chunk.seq }, `A queue chunk of zone ${this.zoneId} could not be read for retention; its events are not retained.`);
    }
    if (pending.isEmpty) {
      pending.firstAppendMs = chunk.appendedAtMs;
      pending.openedAtMs = this.deps.clock.now();
    }
    pending.lastAppendMs = Math.max(pending.lastAppendMs, chunk.appendedAtMs);
    pending.segments.push({ seq: chunk.seq, from, to });
    if (lines !== undefined) {
      const group = pending.lines.get(chunk.appendedAtMs);
      if (group === undefined) pending.lines.set(chunk.appendedAtMs, [lines]);
      else group.push(lines);
      pending.bytes += lines.length;
      pending.events += to - from;
    }
  }

  /** After a restart: writes the recorded range again, exactly, then commits it. */
  private async rewrite(consumer: QueueConsumer, inflight: InflightBatch): Promise<boolean> {
    const chunks = await consumer.readChunks([...new Set(inflight.segments.map((s) => s.seq))]);
    const bySeq = new Map(chunks.map((c) => [c.seq, c]));
    const pending = new PendingSegment();
    for (const segment of inflight.segments) {
      const chunk = bySeq.get(segment.seq);
      if (chunk === undefined) continue;
      await this.append(pending, chunk, segment.from, segment.to);
    }
    return this.store(consumer, inflight, pending);
  }

  private async flush(consumer: QueueConsumer): Promise<boolean> {
    const pending = this.pending;
    this.pending = new PendingSegment();
    const batch = pending.batch();
    await consumer.saveInflight(batch);
    return this.store(consumer, batch, pending);
  }

  /** Writes the segment of a recorded range until it is stored (or the writer is aborted), then commits. */
  private async store(consumer: QueueConsumer, batch: InflightBatch, pending: PendingSegment): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (pending.events > 0) await this.writeSegment(segmentKey(this.zoneId, batch), pending.lines);
        await consumer.commit(batch);
        this.deps.onWritten?.(this.zoneId, pending.events);
        return true;
      } catch (error) {
        if (attempt === 1 || attempt % 10 === 0) this.deps.log.error({ err: error, zoneId: this.zoneId }, `A retained segment of zone ${this.zoneId} could not be written; trying again.`);
        // Stopping: a few quick tries, then what is left stays queued for the next start.
        if (this.stopMode === 'abort' || (this.stopMode === 'drain' && attempt >= 3)) return false;
        if (!(await this.sleep(Math.min(60_000, 1000 * 2 ** Math.min(attempt - 1, 6)), this.stopMode === 'drain'))) return false;
      }
    }
  }

  /** One NDJSON file per receive time (the name carries it, DuckDB reads it from there), then the segment. */
  private async writeSegment(key: string, lines: ReadonlyMap<number, readonly Buffer[]>): Promise<void> {
    const base = path.join(this.deps.workDir, `segment-${randomBytes(6).toString('hex')}`);
    await fs.mkdir(base, { recursive: true });
    const connection = await this.deps.engine.connect();
    try {
      const inputs: ReceivedNdjson[] = [];
      for (const [receivedMs, parts] of lines) {
        const file = path.join(base, receivedFileName(receivedMs));
        await fs.writeFile(file, parts);
        inputs.push({ path: file, receivedMs });
      }
      await this.deps.engine.writeSegment(connection, inputs, `${base}.parquet`, this.dataset);
      await this.deps.segments.put(key, `${base}.parquet`);
    } finally {
      connection.closeSync();
      await fs.rm(base, { recursive: true, force: true });
      await fs.rm(`${base}.parquet`, { force: true });
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
