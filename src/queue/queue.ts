/**
 * The durable queue between ingest and the job runners.
 *
 * Ingest appends chunks of canonical events (NDJSON, see domain/datasets/event-record.ts) to the stream
 * of a zone and dataset; every job has a consumer on that stream. A runner fetches chunks, builds a batch
 * from their records, records the batch as in flight, delivers it, and commits it. Nothing is removed
 * from a stream before every consumer has committed past it (and the replay window has passed).
 *
 * Two implementations: embedded/ (SQLite in the data directory, one node) and jetstream/ (NATS
 * JetStream, several nodes sharing one durable consumer per job). One contract suite
 * (test/queue/queue-contract.ts) runs against both.
 */

/** The stream of one zone and dataset. */
export interface StreamKey {
  readonly zoneId: string;
  readonly dataset: string;
}

/** Events to append as one chunk: NDJSON lines (each ending in "\n") and their number. */
export interface ChunkInput {
  readonly payload: Uint8Array;
  readonly count: number;
}

/** Chunks for one stream, as part of an append that spans several streams. */
export interface StreamAppend {
  readonly stream: StreamKey;
  readonly chunks: readonly ChunkInput[];
}

/**
 * Where a source (a tailed file) has read to and what it has counted, kept by the queue with what the
 * source appended. `state` belongs to the source (JSON); the queue only stores it.
 */
export interface SourceCheckpoint {
  /** Names the source, e.g. `caddy:/var/log/caddy/access.log`. */
  readonly source: string;
  readonly state: string;
  /**
   * The batch id of an append that started after this checkpoint and may not have finished (JetStream: the
   * process died while publishing). The source reads exactly that batch again first, so its messages get
   * the same ids and the server drops those it already has.
   */
  readonly unfinished?: string;
}

/** A chunk handed to a consumer. */
export interface QueueChunk {
  /** Position in the stream; increases with every append. */
  readonly seq: number;
  /** When the queue stored the chunk (ms since the epoch); names the objects a batch becomes. */
  readonly appendedAtMs: number;
  /** How many records the payload holds. */
  readonly count: number;
  /** Records before this index were already delivered and committed; the consumer skips them. */
  readonly firstRecord: number;
  readonly payload: Uint8Array;
}

/** A part of one chunk in a batch: records [from, to) of chunk `seq`. */
export interface BatchSegment {
  readonly seq: number;
  readonly from: number;
  readonly to: number;
}

/** A batch about to be delivered: exactly which records it holds, recorded before sending. */
export interface InflightBatch {
  /** Derived only from the segments; with the job id it names the delivered object. */
  readonly rangeId: string;
  readonly segments: readonly BatchSegment[];
  readonly firstAppendMs: number;
  readonly lastAppendMs: number;
}

/** One job's reading position on a stream. */
export interface QueueConsumer {
  /**
   * Chunks not yet handed out by this consumer object, in stream order; waits up to `maxWaitMs` when
   * there are none and returns [] when the wait ends, the signal aborts, or the consumer is closed.
   * After a restart, everything not committed is handed out again.
   */
  fetch(options: { readonly maxChunks: number; readonly maxBytes: number; readonly maxWaitMs: number; readonly signal?: AbortSignal }): Promise<readonly QueueChunk[]>;
  /** Records the batch about to be sent, so that after a crash it is re-sent exactly. */
  saveInflight(batch: InflightBatch): Promise<void>;
  /** The batch recorded and not committed, if any (after a restart). */
  loadInflight(): Promise<InflightBatch | undefined>;
  /** Reads the given chunks again, whole (firstRecord 0), to re-send an in-flight batch. */
  readChunks(seqs: readonly number[]): Promise<readonly QueueChunk[]>;
  /** The batch was delivered: its records are done for this consumer and the in-flight record is cleared. */
  commit(batch: InflightBatch): Promise<void>;
  /** The runner is still working on chunks it fetched (extends acknowledgement deadlines where there are any). */
  heartbeat(): Promise<void>;
  close(): Promise<void>;
}

/** The queue of a node. */
export interface EventQueue {
  /**
   * Appends chunks to a stream; resolves once they are durable, with the number of events stored. `dedupeKey`
   * identifies the request's content, so a retried request is not stored twice where the implementation can
   * tell: the events of chunks it already holds are not counted.
   */
  append(stream: StreamKey, chunks: readonly ChunkInput[], dedupeKey?: string): Promise<number>;
  /**
   * Appends a source's chunks (to any number of streams) together with its new checkpoint; resolves once
   * both are durable. Embedded: one transaction, so after a crash the checkpoint says exactly what was
   * appended. JetStream: every message id derives from `batchId` (the source's file identity and byte
   * range), so appending the same batch again after a crash is dropped by the server, and the checkpoint is
   * kept in a local file once the messages are stored. `appends` may be empty (only the checkpoint moves).
   */
  appendFromSource(appends: readonly StreamAppend[], checkpoint: SourceCheckpoint, batchId: string): Promise<void>;
  /** Every stored source checkpoint. */
  sourceCheckpoints(): Promise<readonly SourceCheckpoint[]>;
  /**
   * Creates the consumer, or moves an existing one, to start after everything appended so far
   * (a job that is enabled exports events from then on; there is no backfill).
   */
  resetConsumer(stream: StreamKey, consumer: string): Promise<void>;
  /** Removes a consumer (its job was deleted or disabled). */
  deleteConsumer(stream: StreamKey, consumer: string): Promise<void>;
  /** Opens a consumer created by resetConsumer. */
  openConsumer(stream: StreamKey, consumer: string): Promise<QueueConsumer>;
  /** Bytes appended and not yet committed by every consumer (approximate); ingest pushes back above a limit. */
  pendingBytes(): number;
  close(): Promise<void>;
}

/** Refuses chunks no queue may store: an empty payload, or a record count that is not a positive integer. */
export function assertChunks(chunks: readonly ChunkInput[]): void {
  for (const chunk of chunks) {
    if (!Number.isSafeInteger(chunk.count) || chunk.count < 1) throw new Error(`a queue chunk must hold at least one record (got count ${chunk.count})`);
    if (chunk.payload.byteLength === 0) throw new Error('a queue chunk must not be empty');
  }
}
