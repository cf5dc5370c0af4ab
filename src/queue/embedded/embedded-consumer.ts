/**
 * One consumer object of the embedded queue. It keeps its own read position in memory, starting at the
 * committed position; the queue behind `ConsumerLink` keeps everything that must survive a restart.
 */
import type { InflightBatch, QueueChunk, QueueConsumer } from '../queue.ts';

/** A place in a stream: every chunk with a smaller seq, and records before `record` of chunk `seq`, are behind it. */
export interface QueuePosition {
  readonly seq: number;
  readonly record: number;
}

/** Whether `a` lies before `b` in the stream. */
export function positionBefore(a: QueuePosition, b: QueuePosition): boolean {
  return a.seq < b.seq || (a.seq === b.seq && a.record < b.record);
}

/** What a consumer object asks of the queue it belongs to. */
export interface ConsumerLink {
  /** False once the queue is closed or the consumer deleted. */
  live(): boolean;
  committed(): QueuePosition;
  /** Chunks from `from` on (the first with `firstRecord` set), at most `maxChunks`, stopping past `maxBytes`. */
  read(from: QueuePosition, maxChunks: number, maxBytes: number): QueueChunk[];
  /** Calls `wake` after the next append to the stream, or when the queue closes; returns a way to stop waiting. */
  onAppend(wake: () => void): () => void;
  saveInflight(batch: InflightBatch): void;
  loadInflight(): InflightBatch | undefined;
  readChunks(seqs: readonly number[]): QueueChunk[];
  commit(batch: InflightBatch): void;
}

/** A job runner's handle on its consumer of the embedded queue. */
export class EmbeddedConsumer implements QueueConsumer {
  readonly #link: ConsumerLink;
  #position: QueuePosition;
  #closed = false;
  readonly #wakers = new Set<() => void>();

  constructor(link: ConsumerLink) {
    this.#link = link;
    this.#position = link.committed();
  }

  async fetch(options: { readonly maxChunks: number; readonly maxBytes: number; readonly maxWaitMs: number; readonly signal?: AbortSignal }): Promise<readonly QueueChunk[]> {
    const deadline = performance.now() + Math.max(0, options.maxWaitMs);
    for (;;) {
      if (this.#closed || options.signal?.aborted === true || !this.#link.live()) return [];
      // A commit made after re-sending an in-flight batch (or a reset) moves the start past what it covers.
      const committed = this.#link.committed();
      if (positionBefore(this.#position, committed)) this.#position = committed;
      const chunks = this.#link.read(this.#position, Math.max(1, options.maxChunks), options.maxBytes);
      const last = chunks.at(-1);
      if (last !== undefined) {
        this.#position = { seq: last.seq + 1, record: 0 };
        return chunks;
      }
      const remaining = deadline - performance.now();
      if (remaining <= 0) return [];
      await this.#wait(remaining, options.signal);
    }
  }

  async saveInflight(batch: InflightBatch): Promise<void> {
    this.#link.saveInflight(batch);
  }

  async loadInflight(): Promise<InflightBatch | undefined> {
    return this.#link.loadInflight();
  }

  async readChunks(seqs: readonly number[]): Promise<readonly QueueChunk[]> {
    return this.#link.readChunks(seqs);
  }

  async commit(batch: InflightBatch): Promise<void> {
    this.#link.commit(batch);
  }

  async heartbeat(): Promise<void> {
    // Nothing expires in the embedded queue: a consumer's records wait for it however long it takes.
  }

  /** Ends pending and later fetches (they return []); a batch already fetched may still be committed. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of [...this.#wakers]) wake();
  }

  #wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        stopWaiting();
        this.#wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      const stopWaiting = this.#link.onAppend(done);
      this.#wakers.add(done);
    });
  }
}
