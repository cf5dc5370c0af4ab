/**
 * The embedded queue: chunks of events in a SQLite database of their own (`<data dir>/queue.db`), for one
 * process on one node.
 *
 * Durability: an append resolves only once its transaction has committed AND the WAL file holding it has
 * been synced to disk, so it survives a killed process and a lost machine alike. SQLite runs with
 * synchronous=NORMAL and the queue syncs the WAL itself with an asynchronous fdatasync (on libuv's thread
 * pool): a slow disk then delays the answers that wait for it, not the whole server. Appends made in the
 * same turn of the event loop are written in one transaction, and appends committed while a sync runs share
 * the next one, which keeps syncing affordable under many concurrent ingest requests.
 * Seqs are global (one counter for every stream, never reused), so they increase within a stream with gaps.
 * Consumers commit contiguous ranges; a commit that skips or repeats records is a bug and throws.
 * Retention removes a chunk once every consumer of its stream has committed past it and it is older than
 * the replay window. `pendingBytes` is kept from cumulative byte offsets, never by querying.
 */
import fs from 'node:fs';
import { systemClock, type Clock } from '../../core/clock.ts';
import { EmbeddedConsumer, type ConsumerLink, type QueuePosition } from './embedded-consumer.ts';
import { EmbeddedQueueDb, type ChunkBound, type QueueSynchronous } from './queue-db.ts';
import { decodeInflight, encodeInflight } from './inflight-json.ts';
import {
  assertChunks,
  type ChunkInput,
  type EventQueue,
  type InflightBatch,
  type QueueChunk,
  type QueueConsumer,
  type SourceCheckpoint,
  type StreamAppend,
  type StreamKey,
} from '../queue.ts';

/** How to open an embedded queue. */
export interface EmbeddedQueueOptions {
  /** The database file, e.g. `<data dir>/queue.db`; its directory is created when missing. */
  readonly path: string;
  /** How long chunks stay after every consumer has committed them (or, with no consumer, after their append). */
  readonly replayWindowMs: number;
  readonly clock?: Clock;
  /** How often retention runs; default one minute. */
  readonly sweepIntervalMs?: number;
  /** How long an append's dedupe key is remembered; default two minutes. */
  readonly dedupeWindowMs?: number;
  /** `full` (default) survives power loss; `normal` only process death. For measurement and tests. */
  readonly synchronous?: QueueSynchronous;
  /** Where a failed background retention sweep is reported; default one line on stderr. */
  readonly onSweepError?: (error: unknown) => void;
}

interface ConsumerState {
  committed: QueuePosition;
  /** The stream's byte offset at the start of the first chunk not wholly committed. */
  committedBytes: number;
}

interface StreamState {
  readonly id: number;
  readonly key: StreamKey;
  endBytes: number;
  /** This stream's share of `pendingBytes`. */
  pendingBytes: number;
  readonly consumers: Map<string, ConsumerState>;
  readonly waiters: Set<() => void>;
}

interface PendingAppend {
  readonly parts: readonly { readonly stream: StreamState; readonly chunks: readonly ChunkInput[] }[];
  readonly dedupeKey: string | undefined;
  /** Written in the same transaction as the chunks. */
  readonly checkpoint: SourceCheckpoint | undefined;
  /** Resolves with the events stored (none when the dedupe key was seen within the window). */
  readonly resolve: (stored: number) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The payloads of the newest chunks stay in memory after their append, up to this many bytes, so consumers
 * that read a chunk soon after it was appended (the usual case: a runner is woken by the append) take it from
 * there instead of reading it back from the database: a chunk of a retaining zone is read by two consumers
 * (the job's runner and the retention writer), each read of a few hundred kilobytes a walk over its overflow
 * pages and a copy. Consumers only read payloads, so they may share one.
 */
const lentPayloadBytes = 8 * 1024 * 1024;

/** Stops a retention step at this many chunks or bytes so one sweep never holds the event loop for long. */
const sweepStepChunks = 500;
const sweepStepBytes = 32 * 1024 * 1024;

/** Opens the embedded queue at `options.path`, runs retention once and starts the periodic sweep. */
export async function openEmbeddedQueue(options: EmbeddedQueueOptions): Promise<EmbeddedQueue> {
  const queue = new EmbeddedQueue(EmbeddedQueueDb.open(options.path), options);
  try {
    await queue.sweep();
  } catch (error) {
    await queue.close();
    throw error;
  }
  return queue;
}

/** The SQLite-backed queue of a single node. */
export class EmbeddedQueue implements EventQueue {
  readonly #db: EmbeddedQueueDb;
  readonly #clock: Clock;
  readonly #replayWindowMs: number;
  readonly #dedupeWindowMs: number;
  readonly #streams = new Map<string, StreamState>();
  readonly #sweepTimer: ReturnType<typeof setInterval>;
  #lastSeq: number;
  #pendingBytes = 0;
  #appends: PendingAppend[] = [];
  #flushScheduled = false;
  #sweeping: Promise<number> | undefined;
  #closed = false;
  readonly #durable: boolean;
  readonly #walPath: string;
  #wal: Promise<fs.promises.FileHandle> | undefined;
  #syncWaiters: { readonly resolve: () => void; readonly reject: (error: unknown) => void }[] = [];
  #syncing: Promise<void> | undefined;
  /** Payloads of the newest chunks by seq, oldest first, and their bytes (see `lentPayloadBytes`). */
  readonly #lent = new Map<number, Buffer>();
  #lentBytes = 0;

  /** Use `openEmbeddedQueue`; this takes an already opened database. */
  constructor(db: EmbeddedQueueDb, options: EmbeddedQueueOptions) {
    this.#db = db;
    this.#durable = (options.synchronous ?? 'full') === 'full';
    this.#walPath = `${options.path}-wal`;
    this.#clock = options.clock ?? systemClock;
    this.#replayWindowMs = options.replayWindowMs;
    this.#dedupeWindowMs = options.dedupeWindowMs ?? 120_000;
    this.#lastSeq = db.lastSeq();
    const byId = new Map<number, StreamState>();
    for (const row of db.streams()) {
      const state: StreamState = {
        id: row.id,
        key: { zoneId: row.zoneId, dataset: row.dataset },
        endBytes: row.endBytes,
        pendingBytes: 0,
        consumers: new Map(),
        waiters: new Set(),
      };
      this.#streams.set(streamName(state.key), state);
      byId.set(row.id, state);
    }
    for (const row of db.consumers()) {
      byId.get(row.streamId)?.consumers.set(row.name, {
        committed: { seq: row.committedSeq, record: row.committedRecord },
        committedBytes: row.committedBytes,
      });
    }
    for (const stream of byId.values()) this.#refreshPending(stream);
    const onSweepError = options.onSweepError ?? ((error: unknown) => console.error(`The queue retention sweep failed: ${String(error)}`));
    this.#sweepTimer = setInterval(() => this.sweep().catch(onSweepError), options.sweepIntervalMs ?? 60_000);
    this.#sweepTimer.unref();
  }

  async append(stream: StreamKey, chunks: readonly ChunkInput[], dedupeKey?: string): Promise<number> {
    this.#assertOpen();
    assertChunks(chunks);
    if (chunks.length === 0) return 0;
    const state = this.#stream(stream);
    return this.#enqueue([{ stream: state, chunks }], dedupeKey, undefined);
  }

  /** The chunks and the checkpoint go into one transaction; `batchId` is not needed for that. */
  async appendFromSource(appends: readonly StreamAppend[], checkpoint: SourceCheckpoint, _batchId?: string): Promise<void> {
    this.#assertOpen();
    for (const append of appends) assertChunks(append.chunks);
    const parts = appends.filter((append) => append.chunks.length > 0).map((append) => ({ stream: this.#stream(append.stream), chunks: append.chunks }));
    await this.#enqueue(parts, undefined, checkpoint);
  }

  async sourceCheckpoints(): Promise<readonly SourceCheckpoint[]> {
    this.#assertOpen();
    return this.#db.sourceCheckpoints();
  }

  #enqueue(parts: PendingAppend['parts'], dedupeKey: string | undefined, checkpoint: SourceCheckpoint | undefined): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#appends.push({ parts, dedupeKey, checkpoint, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  async resetConsumer(stream: StreamKey, consumer: string): Promise<void> {
    this.#assertOpen();
    const state = this.#stream(stream);
    const position: QueuePosition = { seq: this.#lastSeq + 1, record: 0 };
    this.#db.transaction(() =>
      this.#db.putConsumer({ streamId: state.id, name: consumer, committedSeq: position.seq, committedRecord: 0, committedBytes: state.endBytes }),
    );
    const existing = state.consumers.get(consumer);
    if (existing === undefined) {
      state.consumers.set(consumer, { committed: position, committedBytes: state.endBytes });
    } else {
      existing.committed = position;
      existing.committedBytes = state.endBytes;
    }
    this.#refreshPending(state);
  }

  async deleteConsumer(stream: StreamKey, consumer: string): Promise<void> {
    this.#assertOpen();
    const state = this.#streams.get(streamName(stream));
    if (state === undefined || !state.consumers.has(consumer)) return;
    this.#db.transaction(() => this.#db.deleteConsumer(state.id, consumer));
    state.consumers.delete(consumer);
    this.#refreshPending(state);
    // Fetches of the deleted consumer are waiting among the stream's waiters; they re-check and end.
    wakeAll(state.waiters);
  }

  async openConsumer(stream: StreamKey, consumer: string): Promise<QueueConsumer> {
    this.#assertOpen();
    const state = this.#streams.get(streamName(stream));
    const found = state?.consumers.get(consumer);
    if (state === undefined || found === undefined) {
      throw new Error(`the queue has no consumer '${consumer}' on ${describe(stream)}; create it with resetConsumer first`);
    }
    return new EmbeddedConsumer(this.#link(state, consumer, found));
  }

  pendingBytes(): number {
    return this.#pendingBytes;
  }

  /**
   * Removes chunks that every consumer of their stream has committed past and that are older than the
   * replay window (a stream without consumers keeps chunks for the window only); returns how many went.
   */
  sweep(): Promise<number> {
    this.#sweeping ??= this.#sweepStreams().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  /** Writes appends still waiting for their turn, ends every fetch, stops retention and closes the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    this.#lent.clear();
    this.#lentBytes = 0;
    for (const stream of this.#streams.values()) wakeAll(stream.waiters);
    await this.#sweeping?.catch(() => undefined);
    await this.#syncing;
    await (await this.#wal?.catch(() => undefined))?.close();
    await this.#db.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('the queue is closed');
  }

  /** The stream's state, creating the stream (in a transaction of its own: it happens once per stream) when new. */
  #stream(key: StreamKey): StreamState {
    const name = streamName(key);
    const found = this.#streams.get(name);
    if (found !== undefined) return found;
    const id = this.#db.transaction(() => this.#db.createStream(key.zoneId, key.dataset));
    const state: StreamState = { id, key: { zoneId: key.zoneId, dataset: key.dataset }, endBytes: 0, pendingBytes: 0, consumers: new Map(), waiters: new Set() };
    this.#streams.set(name, state);
    return state;
  }

  /** Group commit: every append queued in this turn of the event loop, in one transaction. */
  #flush(): void {
    this.#flushScheduled = false;
    const group = this.#appends;
    this.#appends = [];
    if (group.length === 0) return;
    if (this.#closed) {
      for (const append of group) append.reject(new Error('the queue is closed'));
      return;
    }
    const now = this.#clock.now();
    let written: { ends: Map<StreamState, number>; lastSeq: number; stored: number[]; inserted: [number, Buffer][] };
    try {
      written = this.#db.transaction(() => {
        const ends = new Map<StreamState, number>();
        const stored: number[] = [];
        const inserted: [number, Buffer][] = [];
        let lastSeq = this.#lastSeq;
        for (const append of group) {
          if (append.checkpoint !== undefined) this.#db.putSourceCheckpoint(append.checkpoint.source, append.checkpoint.state);
          let events = 0;
          for (const part of append.parts) {
            const streamId = part.stream.id;
            if (append.dedupeKey !== undefined) {
              const seenAt = this.#db.keySeenAt(streamId, append.dedupeKey);
              if (seenAt !== undefined && seenAt >= now - this.#dedupeWindowMs) continue;
              this.#db.rememberKey(streamId, append.dedupeKey, now);
            }
            let end = ends.get(part.stream) ?? part.stream.endBytes;
            for (const chunk of part.chunks) {
              const payload = asBuffer(chunk.payload);
              end += payload.byteLength;
              lastSeq = this.#db.insertChunk(streamId, now, chunk.count, payload, end);
              inserted.push([lastSeq, payload]);
              events += chunk.count;
            }
            ends.set(part.stream, end);
          }
          stored.push(events);
        }
        for (const [stream, end] of ends) this.#db.setStreamEnd(stream.id, end);
        return { ends, lastSeq, stored, inserted };
      });
    } catch (error) {
      for (const append of group) append.reject(error);
      return;
    }
    // Memory follows the database only once the transaction has committed.
    this.#lastSeq = written.lastSeq;
    for (const [seq, payload] of written.inserted) this.#lend(seq, payload);
    for (const [stream, end] of written.ends) {
      stream.endBytes = end;
      this.#refreshPending(stream);
    }
    for (const stream of written.ends.keys()) wakeAll(stream.waiters);
    const resolveAll = () => group.forEach((append, i) => append.resolve(written.stored[i] ?? 0));
    if (!this.#durable) {
      resolveAll();
      return;
    }
    this.#syncWal().then(
      resolveAll,
      (error: unknown) => {
        for (const append of group) append.reject(error);
      },
    );
  }

  /**
   * Resolves once a sync of the WAL that started after this call has finished: every commit made before
   * the call is then on disk. Calls made while a sync runs share the next one.
   */
  #syncWal(): Promise<void> {
    const done = new Promise<void>((resolve, reject) => this.#syncWaiters.push({ resolve, reject }));
    this.#syncing ??= (async () => {
      while (this.#syncWaiters.length > 0) {
        const waiters = this.#syncWaiters.splice(0);
        try {
          this.#wal ??= fs.promises.open(this.#walPath, 'r');
          await (await this.#wal).datasync();
          for (const waiter of waiters) waiter.resolve();
        } catch (error) {
          this.#wal = undefined;
          for (const waiter of waiters) waiter.reject(error);
        }
      }
      this.#syncing = undefined;
    })();
    return done;
  }

  /**
   * Keeps a just-appended payload for consumers to read from memory, letting the oldest go past the limit. A
   * payload is counted by the memory it keeps alive: the whole of the buffer it is a view of.
   */
  #lend(seq: number, payload: Buffer): void {
    const held = payload.buffer.byteLength;
    if (held > lentPayloadBytes) return;
    this.#lent.set(seq, payload);
    this.#lentBytes += held;
    for (const [oldest, kept] of this.#lent) {
      if (this.#lentBytes <= lentPayloadBytes) break;
      this.#lent.delete(oldest);
      this.#lentBytes -= kept.buffer.byteLength;
    }
  }

  /** Re-derives a stream's pending bytes (from its slowest consumer) and the running total. */
  #refreshPending(stream: StreamState): void {
    let slowest = stream.endBytes;
    for (const consumer of stream.consumers.values()) slowest = Math.min(slowest, consumer.committedBytes);
    const pending = stream.consumers.size === 0 ? 0 : stream.endBytes - slowest;
    this.#pendingBytes += pending - stream.pendingBytes;
    stream.pendingBytes = pending;
  }

  #link(stream: StreamState, name: string, consumer: ConsumerState): ConsumerLink {
    const live = (): boolean => !this.#closed && stream.consumers.get(name) === consumer;
    const assertLive = (): void => {
      this.#assertOpen();
      if (!live()) throw new Error(`the consumer '${name}' on ${describe(stream.key)} was deleted`);
    };
    return {
      live,
      committed: () => consumer.committed,
      read: (from, maxChunks, maxBytes) => this.#read(stream, from, maxChunks, maxBytes),
      onAppend: (wake) => {
        stream.waiters.add(wake);
        return () => stream.waiters.delete(wake);
      },
      saveInflight: (batch) => {
        assertLive();
        this.#db.transaction(() => this.#db.setInflight(stream.id, name, encodeInflight(batch)));
      },
      loadInflight: () => {
        assertLive();
        const text = this.#db.inflight(stream.id, name);
        return text === undefined ? undefined : decodeInflight(text);
      },
      readChunks: (seqs) => {
        this.#assertOpen();
        return seqs.map((seq) => {
          const row = this.#db.chunk(stream.id, seq);
          if (row === undefined) throw new Error(`chunk ${seq} of ${describe(stream.key)} is no longer in the queue`);
          return toChunk(row, row.payload, 0);
        });
      },
      commit: (batch) => {
        assertLive();
        this.#commit(stream, name, consumer, batch);
      },
    };
  }

  #read(stream: StreamState, from: QueuePosition, maxChunks: number, maxBytes: number): QueueChunk[] {
    const chunks: QueueChunk[] = [];
    let bytes = 0;
    for (const row of this.#db.boundsFrom(stream.id, from.seq, maxChunks)) {
      // Always one chunk, even a big one; after that, stop before going over the limit.
      if (chunks.length > 0 && bytes + row.size > maxBytes) break;
      const payload = this.#lent.get(row.seq) ?? this.#db.payload(stream.id, row.seq);
      // Both reads run on this thread with nothing in between, so the chunk is still there; stop if it is not.
      if (payload === undefined) break;
      bytes += row.size;
      chunks.push(toChunk(row, payload, row.seq === from.seq ? from.record : 0));
    }
    return chunks;
  }

  /**
   * Checks that the batch continues exactly where the consumer's committed position is and covers whole
   * records without gaps, then stores its end as the new position (clearing the in-flight record).
   */
  #commit(stream: StreamState, name: string, consumer: ConsumerState, batch: InflightBatch): void {
    const last = batch.segments.at(-1);
    if (last === undefined) {
      this.#db.transaction(() => this.#db.setInflight(stream.id, name, null));
      return;
    }
    const refuse = (why: string): never => {
      throw new Error(`refusing commit of ${batch.rangeId} by consumer '${name}' on ${describe(stream.key)}: ${why}`);
    };
    const chunks = this.#db.bounds(stream.id, consumer.committed.seq, last.seq);
    let index = 0;
    let record = chunks[0]?.seq === consumer.committed.seq ? consumer.committed.record : 0;
    let lastChunk: ChunkBound | undefined;
    for (const segment of batch.segments) {
      const chunk = chunks[index];
      const where = `segment ${segment.seq}[${segment.from},${segment.to})`;
      if (chunk === undefined || segment.seq !== chunk.seq || segment.from !== record) {
        const next = chunk === undefined ? 'past the end of the stream' : `record ${record} of chunk ${chunk.seq}`;
        const back = chunk === undefined ? segment.seq < consumer.committed.seq : segment.seq < chunk.seq || (segment.seq === chunk.seq && segment.from < record);
        return refuse(`${where} ${back ? 'goes back over committed records' : 'skips records'}; the next record is ${next}`);
      }
      if (segment.to <= segment.from || segment.to > chunk.count) return refuse(`${where} is empty or runs past the chunk's ${chunk.count} records`);
      lastChunk = chunk;
      if (segment.to === chunk.count) {
        index++;
        record = 0;
      } else {
        record = segment.to;
      }
    }
    if (lastChunk === undefined) return refuse('it holds no chunk');
    // A chunk committed only in part stays pending whole, so its bytes count until its end is committed.
    const committed: QueuePosition = record === 0 ? { seq: lastChunk.seq + 1, record: 0 } : { seq: lastChunk.seq, record };
    const committedBytes = record === 0 ? lastChunk.bytesEnd : lastChunk.bytesEnd - lastChunk.size;
    this.#db.transaction(() =>
      this.#db.setCommitted({ streamId: stream.id, name, committedSeq: committed.seq, committedRecord: committed.record, committedBytes }),
    );
    consumer.committed = committed;
    consumer.committedBytes = committedBytes;
    this.#refreshPending(stream);
  }

  async #sweepStreams(): Promise<number> {
    let removed = 0;
    const cutoff = this.#clock.now() - this.#replayWindowMs;
    for (const stream of [...this.#streams.values()]) {
      for (;;) {
        if (this.#closed) return removed;
        let below = Number.MAX_SAFE_INTEGER;
        for (const consumer of stream.consumers.values()) below = Math.min(below, consumer.committed.seq);
        // Oldest first, stopping at the first chunk still inside the window: append times rise with seq.
        let through: number | undefined;
        let bytes = 0;
        let reachedWindow = false;
        const candidates = this.#db.oldest(stream.id, below, sweepStepChunks);
        for (const chunk of candidates) {
          if (chunk.appendedAtMs >= cutoff) {
            reachedWindow = true;
            break;
          }
          through = chunk.seq;
          bytes += chunk.size;
          if (bytes >= sweepStepBytes) break;
        }
        if (through !== undefined) removed += this.#db.deleteChunksThrough(stream.id, through);
        if (through === undefined || reachedWindow || (candidates.length < sweepStepChunks && bytes < sweepStepBytes)) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (!this.#closed) this.#db.forgetKeysBefore(this.#clock.now() - this.#dedupeWindowMs);
    return removed;
  }
}

function streamName(key: StreamKey): string {
  return `${key.zoneId}\u0000${key.dataset}`;
}

function describe(key: StreamKey): string {
  return `stream ${key.zoneId}/${key.dataset}`;
}

function wakeAll(waiters: Set<() => void>): void {
  for (const wake of [...waiters]) wake();
}

function toChunk(row: ChunkBound, payload: Buffer, firstRecord: number): QueueChunk {
  return { seq: row.seq, appendedAtMs: row.appendedAtMs, count: row.count, firstRecord, payload };
}

/** better-sqlite3 binds Buffers as blobs; a plain Uint8Array is viewed as one without copying. */
function asBuffer(payload: Uint8Array): Buffer {
  return Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
}
