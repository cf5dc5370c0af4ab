/**
 * The JetStream queue: every node of a logexport deployment appends to, and reads from, one NATS
 * JetStream stream, so any node can take ingest and the runners of a job on every node share its work.
 *
 * - One stream (default `LOGEXPORT`) with subjects `<prefix>.<dataset>.<zone id>`, interest retention and
 *   an age limit: a message stays while some job's consumer has not acknowledged it, and never longer than
 *   `maxAgeMs` (see docs/scaling.md for why that bound, and what it costs).
 * - Appends publish each chunk with a message id derived from the dedupe key, and resolve once the server
 *   acknowledged every message (stored on disk). A publish that gets no answer fails after
 *   `publishTimeoutMs`, so ingest answers 503 during a NATS outage instead of hanging.
 * - One durable pull consumer per job and stream, shared by every node; the server gives each message to
 *   one node at a time. See jetstream-consumer.ts and held-chunks.ts for how a node holds,
 *   acknowledges and gives back what it was handed.
 * - Delivery is at least once: what a node had not acknowledged when it died is delivered again, whole,
 *   by another node. The in-flight record lives in this process only (a runner replaced on this node
 *   re-sends exactly; a new process does not see it), since the server hands those chunks to whichever
 *   node asks first anyway.
 */
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError, ReplayPolicy, jetstreamManager, type JetStreamClient, type JetStreamManager, type JetStreamPublishOptions, type PubAck } from '@nats-io/jetstream';
import { JetStreamConsumer, type ConsumerLink } from './jetstream-consumer.ts';
import { recordCountOf, recordsHeader, storedAtMs } from './message-delivery.ts';
import { HeldChunks } from './held-chunks.ts';
import { messagePartsOf } from './message-parts.ts';
import { assertSubjectPrefix, durableNameOf, messageIdOf, subjectOf } from './nats-names.ts';
import { ensureEventStream } from './event-stream.ts';
import { assertChunks, type ChunkInput, type EventQueue, type QueueChunk, type QueueConsumer, type SourceCheckpoint, type StreamAppend, type StreamKey } from '../queue.ts';
import { SourceCheckpointFile } from '../source-checkpoint-file.ts';

/** How to open the JetStream queue. Every node of a deployment must use the same values. */
export interface JetStreamQueueOptions {
  /** NATS servers, e.g. `['nats://127.0.0.1:4222']`; the client reconnects to any of them on its own. */
  readonly servers: readonly string[];
  /** Names this node in the server's connection list (`logexport <nodeId>`). */
  readonly nodeId: string;
  /** LOGEXPORT_REPLAY_WINDOW: the least time a message is kept for (the age limit is never below it). */
  readonly replayWindowMs: number;
  /**
   * The stream's age limit: a message older than this is removed even if a job has not delivered it.
   * Default: the larger of the replay window and 24 hours (how long a failing job runs before it is disabled).
   */
  readonly maxAgeMs?: number;
  /** Default `LOGEXPORT`. */
  readonly streamName?: string;
  /** Default `logexport.events`. */
  readonly subjectPrefix?: string;
  /** How long the server waits for a node's acknowledgement before giving a message to another node; default 30 s. */
  readonly ackWaitMs?: number;
  /** How long a message id is remembered to drop a retried append; default 2 minutes. */
  readonly duplicateWindowMs?: number;
  /** How long an append waits for the server's acknowledgement of each message; default 5 s. */
  readonly publishTimeoutMs?: number;
  /** How often `pendingBytes` is refreshed from the stream's state; default 1 s. */
  readonly pendingRefreshMs?: number;
  /** Stream copies in a NATS cluster; default 1 (a single server). */
  readonly replicas?: number;
  /** The file where source checkpoints are kept (`<data dir>/source-checkpoints.db`); none: sources cannot append. */
  readonly sourceCheckpointsPath?: string;
  /** Where background failures go (refreshing pending bytes, acknowledgements being retried); default stderr. */
  readonly onError?: (error: unknown) => void;
}

const defaults = {
  streamName: 'LOGEXPORT',
  subjectPrefix: 'logexport.events',
  ackWaitMs: 30_000,
  duplicateWindowMs: 120_000,
  publishTimeoutMs: 5_000,
  pendingRefreshMs: 1_000,
  replicas: 1,
  /** A failing job is disabled after 24 hours by default (LOGEXPORT_DISABLE_FAILING_JOBS_AFTER). */
  minMaxAgeMs: 24 * 3_600_000,
} as const;

/** Room left in a message for its headers (message id, record count) under the server's max_payload. */
const headerRoomBytes = 1024;
/** How many times a consumer change the server failed is tried before giving up. */
const serverErrorAttempts = 8;
/** How long closing waits for the connection to hand over what it still has to send. */
const drainTimeoutMs = 5_000;

interface Settings {
  readonly streamName: string;
  readonly subjectPrefix: string;
  readonly ackWaitMs: number;
  readonly publishTimeoutMs: number;
  readonly onError: (error: unknown) => void;
  readonly sourceCheckpointsPath: string | undefined;
}

/** Connects to NATS, creates or updates the event stream, and returns the queue of this node. */
export async function openJetStreamQueue(options: JetStreamQueueOptions): Promise<JetStreamQueue> {
  const subjectPrefix = options.subjectPrefix ?? defaults.subjectPrefix;
  assertSubjectPrefix(subjectPrefix);
  const streamName = options.streamName ?? defaults.streamName;
  if (!/^[A-Za-z0-9_-]+$/.test(streamName)) throw new Error(`'${streamName}' is not a usable JetStream stream name: use letters, digits, '-' and '_'`);
  const ackWaitMs = options.ackWaitMs ?? defaults.ackWaitMs;
  const publishTimeoutMs = options.publishTimeoutMs ?? defaults.publishTimeoutMs;
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: [...options.servers],
      name: `logexport ${options.nodeId}`,
      // A node outlives NATS restarts: it keeps reconnecting, and appends fail (503) meanwhile.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      pingInterval: 10_000,
      maxPingOut: 3,
      timeout: publishTimeoutMs,
    });
  } catch (error) {
    throw new Error(`could not connect to NATS at ${options.servers.join(', ')}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  try {
    const jsm = await jetstreamManager(nc, { timeout: publishTimeoutMs });
    await ensureEventStream(jsm, {
      name: streamName,
      subjectPrefix,
      maxAgeMs: options.maxAgeMs ?? Math.max(options.replayWindowMs, defaults.minMaxAgeMs),
      duplicateWindowMs: options.duplicateWindowMs ?? defaults.duplicateWindowMs,
      replicas: options.replicas ?? defaults.replicas,
    });
    const onError = options.onError ?? ((error: unknown) => console.error(`The JetStream queue reported a problem: ${error instanceof Error ? error.message : String(error)}`));
    const queue = new JetStreamQueue(nc, jsm, { streamName, subjectPrefix, ackWaitMs, publishTimeoutMs, onError, sourceCheckpointsPath: options.sourceCheckpointsPath }, options.pendingRefreshMs ?? defaults.pendingRefreshMs);
    await queue.refreshPending();
    return queue;
  } catch (error) {
    await nc.close().catch(() => undefined);
    throw error;
  }
}

/** The queue of one node on a NATS JetStream stream shared with every other node. */
export class JetStreamQueue implements EventQueue {
  readonly #nc: NatsConnection;
  readonly #jsm: JetStreamManager;
  readonly #js: JetStreamClient;
  readonly #settings: Settings;
  /** This node's holdings, by durable consumer name. */
  readonly #holdings = new Map<string, HeldChunks>();
  readonly #appending = new Set<Promise<unknown>>();
  readonly #closing = new AbortController();
  readonly #refreshTimer: ReturnType<typeof setInterval>;
  /** Stream bytes at the last refresh, and bytes appended by this node (all time, and when that refresh began). */
  #streamBytes = 0;
  #appendedBytes = 0;
  #appendedAtRefresh = 0;
  #refreshing: Promise<void> | undefined;
  #refreshQueued: Promise<void> | undefined;
  #refreshFailing = false;
  #closed: Promise<void> | undefined;
  #checkpoints: SourceCheckpointFile | undefined;

  /** Use `openJetStreamQueue`; this takes a connection whose stream is ready. */
  constructor(nc: NatsConnection, jsm: JetStreamManager, settings: Settings, pendingRefreshMs: number) {
    this.#nc = nc;
    this.#jsm = jsm;
    this.#js = jsm.jetstream();
    this.#settings = settings;
    this.#refreshTimer = setInterval(() => void this.refreshPending(), pendingRefreshMs);
    this.#refreshTimer.unref();
  }

  async append(stream: StreamKey, chunks: readonly ChunkInput[], dedupeKey?: string): Promise<number> {
    this.#assertOpen();
    assertChunks(chunks);
    if (chunks.length === 0) return 0;
    const subject = subjectOf(this.#settings.subjectPrefix, stream);
    const maxBytes = (this.#nc.info?.max_payload ?? 1024 * 1024) - headerRoomBytes;
    const messages = chunks.map((chunk) => messagePartsOf(chunk, maxBytes));
    // Every publish is sent before this function first waits, so concurrent appends keep their call order.
    const publishes: Promise<PubAck>[] = [];
    /** The events of each published message, in the order of `publishes`. */
    const counts: number[] = [];
    let bytes = 0;
    messages.forEach((parts, index) => {
      parts.forEach((part, partIndex) => {
        const h = headers();
        h.set(recordsHeader, String(part.count));
        const options: Partial<JetStreamPublishOptions> = { headers: h, timeout: this.#settings.publishTimeoutMs };
        if (dedupeKey !== undefined) options.msgID = messageIdOf(stream, dedupeKey, index, partIndex);
        publishes.push(this.#js.publish(subject, part.payload, options));
        counts.push(part.count);
        bytes += part.payload.byteLength;
      });
    });
    const settled = Promise.allSettled(publishes);
    this.#appending.add(settled);
    const results = await settled.finally(() => this.#appending.delete(settled));
    const failures = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    const first = failures[0];
    if (first !== undefined) {
      const why = first.reason instanceof Error ? first.reason.message : String(first.reason);
      throw new Error(`could not store events in the JetStream stream '${this.#settings.streamName}' (${failures.length} of ${publishes.length} messages failed): ${why}`, { cause: first.reason });
    }
    this.#appendedBytes += bytes;
    // A message the server already held (same id within its duplicate window) stored nothing this time.
    let stored = 0;
    results.forEach((result, i) => {
      if (result.status === 'fulfilled' && !result.value.duplicate) stored += counts[i] ?? 0;
    });
    return stored;
  }

  /**
   * Notes the batch as unfinished in the node's checkpoint file, publishes every stream's chunks with message
   * ids derived from `batchId`, then keeps the checkpoint. A crash in between leaves the old checkpoint and
   * the unfinished batch: the source reads exactly that batch again, and the server drops the messages it
   * already has (within its duplicate window).
   */
  async appendFromSource(appends: readonly StreamAppend[], checkpoint: SourceCheckpoint, batchId: string): Promise<void> {
    this.#assertOpen();
    const file = this.#checkpointFile();
    const publishes = appends.some((append) => append.chunks.length > 0);
    // Written first: a process that dies while publishing reads exactly this batch again after its restart.
    if (publishes) file.begin(checkpoint.source, batchId);
    for (const append of appends) if (append.chunks.length > 0) await this.append(append.stream, append.chunks, `source:${batchId}`);
    file.put(checkpoint);
  }

  async sourceCheckpoints(): Promise<readonly SourceCheckpoint[]> {
    return this.#checkpointFile().all();
  }

  #checkpointFile(): SourceCheckpointFile {
    const file = this.#settings.sourceCheckpointsPath;
    if (file === undefined) throw new Error('this JetStream queue was opened without a file for source checkpoints');
    this.#checkpoints ??= new SourceCheckpointFile(file);
    return this.#checkpoints;
  }

  async resetConsumer(stream: StreamKey, consumer: string): Promise<void> {
    this.#assertOpen();
    const durable = durableNameOf(stream, consumer);
    const config = {
      durable_name: durable,
      filter_subject: subjectOf(this.#settings.subjectPrefix, stream),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.New,
      replay_policy: ReplayPolicy.Instant,
      ack_wait: this.#settings.ackWaitMs * 1_000_000,
      max_deliver: -1,
    };
    // What this node held belongs to the consumer about to be removed; its acknowledgements would be void.
    this.#holdings.get(durable)?.reset();
    // Delete, then create delivering only new messages. Nodes resetting at once interleave harmlessly:
    // every node's last step is a create with the same settings, so one consumer remains.
    await retryOnServerError(`reset the consumer '${consumer}' on stream ${stream.zoneId}/${stream.dataset}`, async () => {
      await this.#deleteDurable(durable);
      await this.#jsm.consumers.add(this.#settings.streamName, config);
    });
    await this.refreshPending();
  }

  async deleteConsumer(stream: StreamKey, consumer: string): Promise<void> {
    this.#assertOpen();
    const durable = durableNameOf(stream, consumer);
    this.#holdings.get(durable)?.delete();
    this.#holdings.delete(durable);
    await retryOnServerError(`delete the consumer '${consumer}' on stream ${stream.zoneId}/${stream.dataset}`, () => this.#deleteDurable(durable));
    await this.refreshPending();
  }

  async openConsumer(stream: StreamKey, consumer: string): Promise<QueueConsumer> {
    this.#assertOpen();
    const durable = durableNameOf(stream, consumer);
    const subject = subjectOf(this.#settings.subjectPrefix, stream);
    const describe = `consumer '${consumer}' on stream ${stream.zoneId}/${stream.dataset}`;
    try {
      const info = await this.#jsm.consumers.info(this.#settings.streamName, durable);
      if (info.config.filter_subject !== subject) throw new Error(`the JetStream consumer '${durable}' reads '${info.config.filter_subject ?? '>'}', not '${subject}'`);
    } catch (error) {
      if (isNotFound(error, JetStreamApiCodes.ConsumerNotFound)) throw new Error(`the queue has no ${describe}; create it with resetConsumer first`, { cause: error });
      throw error;
    }
    let held = this.#holdings.get(durable);
    if (held === undefined || !held.live) {
      held = new HeldChunks({
        nc: this.#nc,
        ackWaitMs: this.#settings.ackWaitMs,
        ackTimeoutMs: this.#settings.publishTimeoutMs,
        describe,
        onError: this.#settings.onError,
        onReleased: (released) => {
          if (this.#holdings.get(durable) === released) this.#holdings.delete(durable);
        },
      });
      this.#holdings.set(durable, held);
    }
    const link: ConsumerLink = {
      nc: this.#nc,
      pullSubject: `$JS.API.CONSUMER.MSG.NEXT.${this.#settings.streamName}.${durable}`,
      describe,
      closing: this.#closing.signal,
      queueOpen: () => this.#closed === undefined,
      readStored: (seq) => this.#readStored(subject, seq),
      committed: () => this.refreshPending(),
    };
    return new JetStreamConsumer(held, link);
  }

  /**
   * The stream's stored bytes at the last refresh (once a second, and after every commit), plus what this
   * node appended since. Under interest retention those are the messages some job has not acknowledged;
   * the count includes subjects and headers, so it is a little above the payload bytes.
   */
  pendingBytes(): number {
    return this.#streamBytes + (this.#appendedBytes - this.#appendedAtRefresh);
  }

  /** Reads the stream's state now; calls made while one read runs share the next read. Never throws. */
  refreshPending(): Promise<void> {
    if (this.#refreshing !== undefined) {
      this.#refreshQueued ??= this.#refreshing.then(() => {
        this.#refreshQueued = undefined;
        return this.refreshPending();
      });
      return this.#refreshQueued;
    }
    if (this.#closed !== undefined) return Promise.resolve();
    this.#refreshing = this.#readStreamBytes().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /**
   * Waits for appends under way, gives every held chunk back to the server (another node gets it at
   * once), ends every fetch, and closes the connection after it has sent what it holds.
   */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    clearInterval(this.#refreshTimer);
    this.#closing.abort();
    await Promise.all([...this.#appending]);
    this.#checkpoints?.close();
    for (const held of [...this.#holdings.values()]) held.release();
    this.#holdings.clear();
    await this.#refreshing;
    await this.#refreshQueued;
    if (this.#nc.isClosed()) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gaveUp = new Promise<'gave up'>((resolve) => {
      timer = setTimeout(() => resolve('gave up'), drainTimeoutMs);
    });
    try {
      await Promise.race([this.#nc.drain(), gaveUp]);
    } catch {
      // Draining a connection that is down fails; closing below is all that is left to do.
    } finally {
      clearTimeout(timer);
    }
    if (!this.#nc.isClosed()) await this.#nc.close().catch(() => undefined);
  }

  #assertOpen(): void {
    if (this.#closed !== undefined) throw new Error('the queue is closed');
  }

  async #deleteDurable(durable: string): Promise<void> {
    try {
      await this.#jsm.consumers.delete(this.#settings.streamName, durable);
    } catch (error) {
      if (!isNotFound(error, JetStreamApiCodes.ConsumerNotFound)) throw error;
    }
  }

  async #readStored(subject: string, seq: number): Promise<QueueChunk | undefined> {
    let stored;
    try {
      stored = await this.#jsm.streams.getMessage(this.#settings.streamName, { seq });
    } catch (error) {
      if (isNotFound(error, JetStreamApiCodes.NoMessageFound)) return undefined;
      throw error;
    }
    if (stored === null || stored.subject !== subject) return undefined;
    return { seq, appendedAtMs: storedAtMs(stored.timestamp), count: recordCountOf(stored.header, stored.data), firstRecord: 0, payload: stored.data };
  }

  async #readStreamBytes(): Promise<void> {
    const mark = this.#appendedBytes;
    try {
      const info = await this.#jsm.streams.info(this.#settings.streamName);
      this.#streamBytes = info.state.bytes;
      this.#appendedAtRefresh = mark;
      this.#refreshFailing = false;
    } catch (error) {
      if (this.#closed !== undefined || this.#refreshFailing) return;
      this.#refreshFailing = true;
      this.#settings.onError(new Error(`could not read the state of the JetStream stream '${this.#settings.streamName}'; pending bytes are from the last reading`, { cause: error }));
    }
  }
}

/**
 * Runs `operation` again (a few times, after a short random pause) when the server answers with an error:
 * a 2.9 server fails a delete and a create of one consumer that overlap, as when two nodes reset it at
 * once, because its files change underneath; a second round settles it.
 */
async function retryOnServerError(what: string, operation: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt >= serverErrorAttempts || !(error instanceof JetStreamApiError)) {
        throw new Error(`could not ${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 25 * attempt + Math.random() * 50));
    }
  }
}

function isNotFound(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}
