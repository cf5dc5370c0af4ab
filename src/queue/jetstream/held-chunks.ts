/**
 * The chunks of one durable consumer that the server has handed to this node and that are not yet
 * acknowledged, shared by this node's consumer objects of that consumer.
 *
 * The server gives a delivered message to no other node until its acknowledgement deadline passes, so
 * while a chunk is held here its deadline is pushed back (`+WPI`) every third of it. A chunk is
 * acknowledged once commits have covered all its records; a chunk covered in part stays held. Because the
 * holdings outlive a single consumer object, a runner replaced on this node (its job changed) takes over
 * the in-flight batch and the partly committed chunks exactly, as with the embedded queue. When no
 * consumer object is left for a short while, or the queue closes, the chunks still held are given back
 * (`-NAK`) so another node gets them at once, whole. If this process dies instead, the deadlines lapse
 * and the server hands the chunks to another node then.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { RecordCoverage } from './record-coverage.ts';
import { acknowledge, giveBack, keepWorking, sendAcknowledgement, type Delivery } from './message-delivery.ts';
import type { InflightBatch, QueueChunk } from '../queue.ts';

/** What holdings need from their queue. */
export interface HoldingsLink {
  readonly nc: NatsConnection;
  /** The consumer's acknowledgement deadline. */
  readonly ackWaitMs: number;
  /** How long to wait for the server to confirm an acknowledgement. */
  readonly ackTimeoutMs: number;
  /** Says where the holdings are, in errors: `consumer 'job-1' on stream <zone>/<dataset>`. */
  readonly describe: string;
  /** Background failures (acknowledgements that must be retried). */
  readonly onError: (error: unknown) => void;
  /** Called once the holdings were given back because no consumer object was left. */
  readonly onReleased: (holdings: HeldChunks) => void;
}

interface HeldChunk {
  readonly seq: number;
  readonly appendedAtMs: number;
  readonly count: number;
  readonly payload: Uint8Array;
  /** The latest delivery's reply subject; acknowledging through any of them acknowledges the message. */
  reply: string;
  readonly coverage: RecordCoverage;
  /** The consumer object the chunk is handed out to; undefined while it waits to be handed out (again). */
  holder: object | undefined;
}

/** How long holdings without a consumer object wait for a new one before giving their chunks back. */
const maxIdleHoldMs = 5_000;
/** Acknowledgements that failed are retried on every keep-alive tick, this many times at most. */
const maxAckAttempts = 20;

/** The not yet acknowledged chunks of one consumer on this node, with its in-flight batch. */
export class HeldChunks {
  readonly #link: HoldingsLink;
  readonly #held = new Map<number, HeldChunk>();
  /** Fully committed chunks whose acknowledgement the server has not confirmed yet, by seq. */
  readonly #unconfirmed = new Map<number, { reply: string; attempts: number }>();
  readonly #holders = new Set<object>();
  #inflight: InflightBatch | undefined;
  #state: 'live' | 'deleted' | 'released' = 'live';
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #lastKeepAlive = 0;
  #reportedAckFailure = false;

  constructor(link: HoldingsLink) {
    this.#link = link;
  }

  /** False once the consumer was deleted or the holdings were given back; consumer objects on it are done. */
  get live(): boolean {
    return this.#state === 'live';
  }

  get deleted(): boolean {
    return this.#state === 'deleted';
  }

  /** How many chunks are held (handed out or waiting to be). */
  get size(): number {
    return this.#held.size;
  }

  /** A consumer object starts using the holdings. */
  attach(holder: object): void {
    this.#holders.add(holder);
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  /** A consumer object closed: its chunks wait for the next one; with none left, they are given back soon. */
  detach(holder: object): void {
    if (!this.#holders.delete(holder)) return;
    for (const chunk of this.#held.values()) if (chunk.holder === holder) chunk.holder = undefined;
    if (this.#holders.size === 0 && this.live) {
      this.#idle = setTimeout(() => {
        this.#idle = undefined;
        if (this.#holders.size === 0) this.release();
      }, Math.min(maxIdleHoldMs, this.#link.ackWaitMs));
      this.#idle.unref();
    }
  }

  /** Takes a delivery from a pull request; a message this node already holds (redelivered to it) is not held twice. */
  receive(delivery: Delivery): void {
    if (!this.live) {
      // A late answer to a pull request made before the holdings ended: nobody here will work on it.
      if (this.#state === 'released') giveBack(this.#link.nc, delivery.reply);
      return;
    }
    if (delivery.count < 1) {
      // Nothing in it to deliver (not a chunk logexport wrote); holding it would only block it forever.
      sendAcknowledgement(this.#link.nc, delivery.reply);
      return;
    }
    const known = this.#held.get(delivery.seq);
    if (known !== undefined) {
      known.reply = delivery.reply;
      return;
    }
    const unconfirmed = this.#unconfirmed.get(delivery.seq);
    if (unconfirmed !== undefined) {
      // Committed here already; only the acknowledgement is missing. Send it through the new delivery.
      unconfirmed.reply = delivery.reply;
      return;
    }
    this.#held.set(delivery.seq, {
      seq: delivery.seq,
      appendedAtMs: delivery.appendedAtMs,
      count: delivery.count,
      payload: delivery.payload,
      reply: delivery.reply,
      coverage: new RecordCoverage(),
      holder: undefined,
    });
    this.#startKeepAlive();
  }

  /**
   * Hands chunks that wait to be handed out to `holder`, in stream order: at most `maxChunks`, stopping
   * before `maxBytes` is passed but always at least one. A chunk committed in part starts after its
   * committed records.
   */
  take(holder: object, maxChunks: number, maxBytes: number): QueueChunk[] {
    const waiting = [...this.#held.values()].filter((chunk) => chunk.holder === undefined).sort((a, b) => a.seq - b.seq);
    const taken: QueueChunk[] = [];
    let bytes = 0;
    for (const chunk of waiting) {
      if (taken.length >= Math.max(1, maxChunks)) break;
      if (taken.length > 0 && bytes + chunk.payload.byteLength > maxBytes) break;
      bytes += chunk.payload.byteLength;
      chunk.holder = holder;
      taken.push(toQueueChunk(chunk, chunk.coverage.prefix()));
    }
    return taken;
  }

  /** A held chunk, whole. */
  chunk(seq: number): QueueChunk | undefined {
    const chunk = this.#held.get(seq);
    return chunk === undefined ? undefined : toQueueChunk(chunk, 0);
  }

  get inflight(): InflightBatch | undefined {
    return this.#inflight;
  }

  set inflight(batch: InflightBatch | undefined) {
    this.#inflight = batch;
  }

  /**
   * Marks the batch's records committed and acknowledges every chunk now covered whole, waiting for the
   * server to confirm. An acknowledgement that fails is retried in the background (until then the chunk
   * stays out of everyone's hands here); if it never arrives, the server redelivers the chunk: a duplicate,
   * never a loss. Throws, changing nothing, when the batch does not fit what is held.
   */
  async commit(batch: InflightBatch): Promise<void> {
    const refuse = (why: string): never => {
      throw new Error(`refusing commit of ${batch.rangeId} by ${this.#link.describe}: ${why}`);
    };
    const parts: { chunk: HeldChunk; from: number; to: number }[] = [];
    for (const segment of batch.segments) {
      const where = `segment ${segment.seq}[${segment.from},${segment.to})`;
      const chunk = this.#held.get(segment.seq);
      if (chunk === undefined) return refuse(`${where}: chunk ${segment.seq} is not held by this node (it was committed already, or handed to another node)`);
      if (!(Number.isSafeInteger(segment.from) && Number.isSafeInteger(segment.to)) || segment.from < 0 || segment.to <= segment.from || segment.to > chunk.count) {
        return refuse(`${where} is empty or runs past the chunk's ${chunk.count} records`);
      }
      const earlier = parts.some((part) => part.chunk === chunk && part.from < segment.to && segment.from < part.to);
      if (earlier || chunk.coverage.overlaps(segment.from, segment.to)) return refuse(`${where} goes back over committed records`);
      parts.push({ chunk, from: segment.from, to: segment.to });
    }
    for (const { chunk, from, to } of parts) chunk.coverage.add(from, to);
    this.#inflight = undefined;
    const done = [...new Set(parts.map((part) => part.chunk))].filter((chunk) => chunk.coverage.isComplete(chunk.count));
    for (const chunk of done) {
      this.#held.delete(chunk.seq);
      this.#unconfirmed.set(chunk.seq, { reply: chunk.reply, attempts: 0 });
    }
    await Promise.all(done.map((chunk) => this.#confirm(chunk.seq)));
  }

  /** Pushes back the acknowledgement deadline of every held chunk (at most once a second). */
  keepAlive(): void {
    const now = performance.now();
    if (now - this.#lastKeepAlive < 1000) return;
    this.#lastKeepAlive = now;
    for (const chunk of this.#held.values()) keepWorking(this.#link.nc, chunk.reply);
    for (const [seq, entry] of this.#unconfirmed) {
      keepWorking(this.#link.nc, entry.reply);
      void this.#confirm(seq);
    }
  }

  /** The consumer was reset: what is held belongs to the consumer that was removed; forget it. */
  reset(): void {
    this.#forget();
  }

  /** The consumer was deleted: forget what is held (the server dropped it) and end every consumer object. */
  delete(): void {
    this.#state = 'deleted';
    this.#forget();
  }

  /** Gives every held chunk back to the server so another node gets it now, and ends the holdings. */
  release(): void {
    if (!this.live) return;
    this.#state = 'released';
    const held = [...this.#held.values()].sort((a, b) => a.seq - b.seq);
    for (const chunk of held) giveBack(this.#link.nc, chunk.reply);
    // Acknowledgements still owed go out once more, unconfirmed; if they are lost the server redelivers.
    for (const entry of this.#unconfirmed.values()) sendAcknowledgement(this.#link.nc, entry.reply);
    this.#forget();
    this.#link.onReleased(this);
  }

  #forget(): void {
    this.#held.clear();
    this.#unconfirmed.clear();
    this.#inflight = undefined;
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  async #confirm(seq: number): Promise<void> {
    const entry = this.#unconfirmed.get(seq);
    if (entry === undefined) return;
    entry.attempts += 1;
    try {
      await acknowledge(this.#link.nc, entry.reply, this.#link.ackTimeoutMs);
      if (this.#unconfirmed.get(seq) === entry) this.#unconfirmed.delete(seq);
      this.#reportedAckFailure = false;
    } catch (error) {
      if (this.#unconfirmed.get(seq) !== entry) return;
      if (entry.attempts >= maxAckAttempts) this.#unconfirmed.delete(seq);
      else this.#startKeepAlive();
      if (!this.#reportedAckFailure) {
        this.#reportedAckFailure = true;
        this.#link.onError(new Error(`could not acknowledge chunk ${seq} of ${this.#link.describe}; retrying (if it never arrives the chunk is delivered again)`, { cause: error }));
      }
    }
  }

  #startKeepAlive(): void {
    if (this.#keepAlive !== undefined) return;
    this.#keepAlive = setInterval(() => {
      if (this.#held.size === 0 && this.#unconfirmed.size === 0) {
        clearInterval(this.#keepAlive);
        this.#keepAlive = undefined;
        return;
      }
      this.#lastKeepAlive = 0;
      this.keepAlive();
    }, Math.max(100, Math.floor(this.#link.ackWaitMs / 3)));
    this.#keepAlive.unref();
  }
}

function toQueueChunk(chunk: HeldChunk, firstRecord: number): QueueChunk {
  return { seq: chunk.seq, appendedAtMs: chunk.appendedAtMs, count: chunk.count, firstRecord, payload: chunk.payload };
}
