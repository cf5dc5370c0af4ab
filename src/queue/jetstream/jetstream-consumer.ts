/**
 * A job runner's handle on a durable JetStream consumer that every node shares. Chunks come from this
 * node's holdings first (chunks given up by a consumer object that closed, or answers to pull requests
 * nobody waited for any more), then from the server: a pull for what is there right now, and when there
 * is nothing, one long pull for the first message to arrive within `maxWaitMs`.
 *
 * `firstRecord` is where this node's commits of a chunk stopped; progress inside a chunk is not shared
 * with other nodes, so a chunk another node gets (after this one died or gave it back) starts at 0.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { Delivery } from './message-delivery.ts';
import type { HeldChunks } from './held-chunks.ts';
import { pull, type PullEnd } from './pull.ts';
import type { InflightBatch, QueueChunk, QueueConsumer } from '../queue.ts';

/** What a consumer object needs from its queue. */
export interface ConsumerLink {
  readonly nc: NatsConnection;
  /** Where pull requests for this consumer go: `$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>`. */
  readonly pullSubject: string;
  /** Says which consumer this is, in errors. */
  readonly describe: string;
  /** Aborts when the queue closes, ending every fetch. */
  readonly closing: AbortSignal;
  /** False once the queue is closed. */
  queueOpen(): boolean;
  /** A chunk read back from the stream by seq, whole; undefined when the stream no longer has it. */
  readStored(seq: number): Promise<QueueChunk | undefined>;
  /** Told after every commit (acknowledged chunks leave the stream, so pending bytes change). */
  committed(): Promise<void>;
}

/** Ends that say the server will not answer pulls for now; the fetch pauses instead of asking again at once. */
const unanswered: ReadonlySet<PullEnd> = new Set(['refused', 'closed']);
const pauseAfterRefusalMs = 1000;

/** One consumer object of a JetStream consumer on this node. */
export class JetStreamConsumer implements QueueConsumer {
  readonly #held: HeldChunks;
  readonly #link: ConsumerLink;
  readonly #closing = new AbortController();
  readonly #receive: (delivery: Delivery) => void;
  #closed = false;

  constructor(held: HeldChunks, link: ConsumerLink) {
    this.#held = held;
    this.#link = link;
    this.#receive = (delivery) => held.receive(delivery);
    held.attach(this);
  }

  async fetch(options: { readonly maxChunks: number; readonly maxBytes: number; readonly maxWaitMs: number; readonly signal?: AbortSignal }): Promise<readonly QueueChunk[]> {
    const sources = [this.#closing.signal, this.#link.closing];
    if (options.signal !== undefined) sources.push(options.signal);
    // One signal for the three ways a fetch ends early, undone afterwards so nothing piles up per fetch.
    const stopper = new AbortController();
    const stopNow = (): void => stopper.abort();
    for (const source of sources) {
      if (source.aborted) stopNow();
      else source.addEventListener('abort', stopNow, { once: true });
    }
    try {
      return await this.#fetch(options, stopper.signal);
    } finally {
      for (const source of sources) source.removeEventListener('abort', stopNow);
    }
  }

  async #fetch(options: { readonly maxChunks: number; readonly maxBytes: number; readonly maxWaitMs: number }, stop: AbortSignal): Promise<readonly QueueChunk[]> {
    const deadline = performance.now() + Math.max(0, options.maxWaitMs);
    const maxChunks = Math.max(1, Math.floor(options.maxChunks));
    for (;;) {
      if (!this.#usable(stop)) return [];
      const held = this.#held.take(this, maxChunks, options.maxBytes);
      if (held.length > 0) return held;
      const now = await this.#pullNow(maxChunks, options.maxBytes, stop);
      if (!this.#usable(stop)) return [];
      const pulled = this.#held.take(this, maxChunks, options.maxBytes);
      if (pulled.length > 0) return pulled;
      const remaining = deadline - performance.now();
      if (remaining < 1) return [];
      if (unanswered.has(now)) {
        await pause(Math.min(remaining, pauseAfterRefusalMs), stop);
        return [];
      }
      // Nothing there: wait for the first message only, so no request outlives this fetch by more than one.
      const waited = await pull(this.#link.nc, this.#link.pullSubject, { batch: 1, waitMs: remaining }, this.#receive, stop);
      if (waited.received > 0 && maxChunks > 1 && this.#usable(stop)) await this.#pullNow(maxChunks - 1, options.maxBytes, stop);
      else if (unanswered.has(waited.end)) await pause(Math.min(deadline - performance.now(), pauseAfterRefusalMs), stop);
    }
  }

  async saveInflight(batch: InflightBatch): Promise<void> {
    this.#assertLive();
    this.#held.inflight = batch;
  }

  async loadInflight(): Promise<InflightBatch | undefined> {
    this.#assertLive();
    return this.#held.inflight;
  }

  async readChunks(seqs: readonly number[]): Promise<readonly QueueChunk[]> {
    if (!this.#link.queueOpen()) throw new Error('the queue is closed');
    const chunks: QueueChunk[] = [];
    for (const seq of seqs) {
      const chunk = this.#held.chunk(seq) ?? (await this.#link.readStored(seq));
      if (chunk === undefined) throw new Error(`chunk ${seq} of ${this.#link.describe} is no longer in the queue`);
      chunks.push(chunk);
    }
    return chunks;
  }

  async commit(batch: InflightBatch): Promise<void> {
    this.#assertLive();
    await this.#held.commit(batch);
    await this.#link.committed();
  }

  async heartbeat(): Promise<void> {
    if (this.#link.queueOpen() && this.#held.live) this.#held.keepAlive();
  }

  /** Ends pending and later fetches (they return []); its chunks stay with this node for the next consumer object. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    this.#held.detach(this);
  }

  /** Asks for what is there right now; a first message bigger than `maxBytes` comes on its own. */
  async #pullNow(maxChunks: number, maxBytes: number, stop: AbortSignal): Promise<PullEnd> {
    const outcome = await pull(this.#link.nc, this.#link.pullSubject, { batch: maxChunks, maxBytes, waitMs: 0 }, this.#receive, stop);
    if (outcome.end !== 'too-big' || outcome.received > 0 || !this.#usable(stop)) return outcome.end;
    return (await pull(this.#link.nc, this.#link.pullSubject, { batch: 1, waitMs: 0 }, this.#receive, stop)).end;
  }

  #usable(stop: AbortSignal): boolean {
    return !this.#closed && !stop.aborted && this.#link.queueOpen() && this.#held.live;
  }

  #assertLive(): void {
    if (!this.#link.queueOpen()) throw new Error('the queue is closed');
    if (this.#held.deleted) throw new Error(`the ${this.#link.describe} was deleted`);
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
