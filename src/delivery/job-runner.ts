/**
 * Runs one enabled job: fetch chunks from the job's queue consumer → take this job's prepared records
 * (ingest already ran the job's filter, sampler and formatter and compressed the kept records;
 * chunk-format.ts) → batch → gzip (laying the compressed pieces end to end) → record the batch as in
 * flight → deliver (retrying) → commit. After a crash the recorded batch is re-sent first, exactly, under
 * the same object name, so a batch that was delivered but not committed overwrites itself instead of
 * landing twice.
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { createDestination, type DestinationDeps } from '../destinations/create-destination.ts';
import type { Destination, FailedOutcome } from '../destinations/destination.ts';
import { objectKey } from '../destinations/object-key.ts';
import type { EventQueue, InflightBatch, QueueChunk, QueueConsumer, StreamKey } from '../queue/queue.ts';
import type { Job, JobStatus, Store } from '../store/store.ts';
import { recordAudit, systemActor } from '../audit/record-audit.ts';
import { Batcher, batchFraming, bytesOf, compressBatch, noBatchLimits, type BatchFraming, type BatchPart } from './batcher.ts';
import { chunkSection, eventStatus, plainTextOf, type ChunkSection, type SectionText } from '../ingest/chunk-format.ts';
import { deliverWithRetry, sleep, type RetryPolicy } from './deliver-with-retry.ts';
import { tallyDrop, type BatchTally, type JobCounters } from './job-counters.ts';
import type { JobPlan } from '../ingest/job-plan.ts';

/** What a runner needs from the node. */
export interface RunnerDeps {
  readonly queue: EventQueue;
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly counters: JobCounters;
  readonly destinations: DestinationDeps;
  readonly gzipLevel: number;
  readonly disableAfterMs: number;
  readonly retryPolicy: RetryPolicy;
  /** Told when the runner disabled its job because it failed for too long. */
  readonly onDisabled: (job: Job) => void;
  /** Writes the job's counters to the store now; called before a counted batch is committed. */
  readonly persistCounters: () => Promise<void>;
  /** Whether the counters in the store already include the batch of this range (re-sent after a restart). */
  readonly countedBefore: (rangeId: string) => Promise<boolean>;
}

/** A section's text as one batch part, when it can be taken whole (records of the first layout have no delimiters between them). */
function wholeText(text: SectionText): BatchPart | undefined {
  switch (text.kind) {
    case 'deflated':
      return { kind: 'deflated', piece: text.piece };
    case 'plain':
      return { kind: 'text', text: text.text };
    // (`zstd` is the retained section's codec: no job reads it.)
    case 'records':
    case 'zstd':
      return undefined;
  }
}

/** How a runner stops: `abort` leaves open work queued (it is re-read by the next runner); `drain` delivers it first. */
export type StopMode = 'abort' | 'drain';

/** The stream a job reads. */
export function streamOf(job: Pick<Job, 'zoneId' | 'dataset'>): StreamKey {
  return { zoneId: job.zoneId, dataset: job.dataset };
}

/** A job as log lines name it: its id, and its name when it has one. */
function jobLabel(job: Pick<Job, 'id' | 'name'>): string {
  return job.name === null || job.name === '' ? `Job ${job.id}` : `Job ${job.id} (${JSON.stringify(job.name)})`;
}

/** The queue consumer a job owns. */
export function consumerNameOf(job: Pick<Job, 'id'>): string {
  return `job-${job.id}`;
}

const fetchLimits = { maxChunks: 64, maxBytes: 16 * 1024 * 1024 };
const idleWaitMs = 1000;
const heartbeatEveryMs = 10_000;

export class JobRunner {
  readonly job: Job;
  private readonly plan: JobPlan;
  private readonly deps: RunnerDeps;
  private readonly framing: BatchFraming;
  private readonly batcher: Batcher;
  private readonly stopSignal = new AbortController();
  /** Aborts deliveries and waits; fired at once on abort, at the deadline on drain. */
  private readonly deliverySignal = new AbortController();
  private stopMode: StopMode | undefined;
  /** When a drain was asked for: events queued after it are left for the next runner. */
  private stopAtMs = Infinity;
  private stopDeadlineMs: number | undefined;
  private running: Promise<void> | undefined;
  private failingSince: number | undefined;
  private lastHeartbeat = 0;
  /** What happened to the records of the open batch's range, counted when the batch is done. */
  private tally: BatchTally;
  /** The batch being delivered: its records, and why its last attempt failed (undefined before a failure). */
  private delivery: { readonly records: number; failure: string | undefined } | undefined;
  /** Whether the stop's line saying what this runner still does was written. */
  private stopAnnounced = false;

  constructor(job: Job, plan: JobPlan, deps: RunnerDeps) {
    this.job = job;
    this.plan = plan;
    this.deps = deps;
    this.framing = batchFraming(plan.formatter);
    this.batcher = new Batcher(plan.batch, this.framing);
    this.tally = deps.counters.openTally(this);
    this.failingSince = job.failingSince === null ? undefined : Date.parse(job.failingSince);
  }

  start(): void {
    this.running ??= this.run().catch((error: unknown) => {
      this.deps.log.error({ err: error, jobId: this.job.id }, `The runner of job ${this.job.id} stopped on an unexpected error.`);
    });
  }

  /**
   * Stops the runner; with `drain`, delivers what it holds until `deadlineMs` (ms since the epoch), and says
   * in one line what the stop waits for. A batch whose destination is failing is given up at once: it stays
   * queued for the next start, so the stop does not sit out its retries.
   */
  async stop(mode: StopMode, deadlineMs?: number): Promise<void> {
    if (this.stopMode === undefined) {
      this.stopMode = mode;
      this.stopAtMs = this.deps.clock.now();
      this.stopDeadlineMs = deadlineMs;
      if (mode === 'drain') this.announceStop();
    }
    this.stopSignal.abort();
    let timer: NodeJS.Timeout | undefined;
    if (mode === 'abort') this.deliverySignal.abort();
    else if (deadlineMs !== undefined) timer = setTimeout(() => this.deliverySignal.abort(), Math.max(0, deadlineMs - this.deps.clock.now()));
    try {
      await this.running;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  private async run(): Promise<void> {
    const stream = streamOf(this.job);
    const consumer = await this.openConsumer(stream);
    if (consumer === undefined) return this.deps.counters.releaseAll(this);
    const destination = createDestination(this.plan.destination, this.deps.destinations);
    try {
      const inflight = await consumer.loadInflight();
      if (inflight !== undefined && !(await this.resend(consumer, destination, inflight))) return;
      while (!this.stopSignal.signal.aborted) {
        const deadline = this.batcher.deadline();
        const waitMs = deadline === undefined ? idleWaitMs : Math.max(0, deadline - this.deps.clock.now());
        const chunks = await consumer.fetch({ ...fetchLimits, maxWaitMs: waitMs, signal: this.stopSignal.signal });
        for (const chunk of chunks) {
          if (!(await this.consumeChunk(consumer, destination, chunk))) return;
        }
        if (this.batcher.shouldClose(this.deps.clock.now()) && !(await this.flush(consumer, destination))) return;
        await this.heartbeat(consumer);
      }
      if (this.stopMode === 'drain') await this.drain(consumer, destination);
    } finally {
      // What this runner did not deliver stays queued for the next one, which counts it then.
      this.deps.counters.releaseAll(this);
      await consumer.close();
      await destination.close();
    }
  }

  /**
   * At shutdown, delivers everything queued before the signal — chunks not fetched yet as well as the open
   * batch — until the queue has no more of them or the deadline aborts a delivery. Chunks queued after the
   * signal (other nodes may still take ingest) are left uncommitted for whoever runs the job next.
   */
  private async drain(consumer: QueueConsumer, destination: Destination): Promise<void> {
    draining: for (;;) {
      const chunks = await consumer.fetch({ ...fetchLimits, maxWaitMs: 0 });
      if (chunks.length === 0) break;
      if (chunks.some((chunk) => chunk.appendedAtMs <= this.stopAtMs)) this.announceStop('delivers the events queued before the stop');
      for (const chunk of chunks) {
        if (chunk.appendedAtMs > this.stopAtMs) break draining;
        if (!(await this.consumeChunk(consumer, destination, chunk))) return;
      }
    }
    if (!this.batcher.isEmpty()) await this.flush(consumer, destination);
  }

  /**
   * Opens the job's consumer, which the API created before it stored the job as enabled. Opening can fail
   * for a moment (the queue reconnecting, or this node learning of a job a little early); it is tried
   * again until it works or the runner stops. The runner never creates the consumer itself: on a node that
   * has not yet learned the job was disabled, that would bring back a consumer the API just removed.
   */
  private async openConsumer(stream: StreamKey): Promise<QueueConsumer | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deps.queue.openConsumer(stream, consumerNameOf(this.job));
      } catch (error) {
        if (attempt === 1 || attempt % 12 === 0) {
          this.deps.log.warn({ err: error, jobId: this.job.id }, `Job ${this.job.id} cannot open its queue consumer yet; trying again.`);
        }
        if (!(await sleep(5000, this.stopSignal.signal))) return undefined;
      }
    }
  }

  private async heartbeat(consumer: QueueConsumer): Promise<void> {
    const now = this.deps.clock.now();
    if (now - this.lastHeartbeat < heartbeatEveryMs) return;
    this.lastHeartbeat = now;
    await consumer.heartbeat();
  }

  /** Feeds a chunk's records not yet committed to the batcher, delivering every batch that fills up; false when stopped. */
  private consumeChunk(consumer: QueueConsumer, destination: Destination, chunk: QueueChunk): Promise<boolean> {
    return this.feed(this.batcher, () => this.tally, chunk, chunk.firstRecord, chunk.count, () => this.flush(consumer, destination));
  }

  /**
   * Feeds records [from, to) of a chunk to `batcher`. When they hold all the job's kept records of the
   * chunk and fit in a batch, they go in as the chunk's text (compressed or not), after `makeRoom`
   * delivered the open batch if they do not fit in it; otherwise they go in one by one. `makeRoom` is
   * also called when the batch is due to close; it answers false when the runner stopped. What happens to
   * each record (received, filtered out, sampled out, dropped) is counted in the tally of the batch whose
   * range it joins (`tally()` after any `makeRoom`), so a batch's counts are exactly its range's.
   */
  private async feed(batcher: Batcher, tally: () => BatchTally, chunk: QueueChunk, from: number, to: number, makeRoom: () => Promise<boolean>): Promise<boolean> {
    let section: ChunkSection | undefined;
    let unreadable = false;
    try {
      section = chunkSection(chunk.payload, this.job.id);
    } catch {
      unreadable = true;
    }
    // No section: the job was not enabled when the events arrived (nothing to count), or the chunk is unreadable.
    const counts = section?.tally(from, to);
    const kept = counts?.kept ?? 0;
    const whole = section !== undefined && kept > 0 && kept === section.kept ? wholeText(section.text) : undefined;
    if (section === undefined || kept === 0 || (whole !== undefined && batcher.fits(kept, bytesOf(whole)))) {
      if (whole !== undefined && batcher.wouldOverflow(kept, bytesOf(whole)) && !(await makeRoom())) return false;
      const open = tally();
      if (unreadable) tallyDrop(open, 'unreadable', to - from);
      if (counts !== undefined) {
        open.received += to - from;
        open.filtered_out += counts.filteredOut;
        open.sampled_out += counts.sampledOut;
      }
      const now = this.deps.clock.now();
      batcher.consumeText(chunk.seq, from, to, chunk.appendedAtMs, whole, kept, now);
      return !batcher.shouldClose(now) || makeRoom();
    }
    const text = await plainTextOf(section.text);
    // The loop only waits when it delivers, so the time is read once and again after each delivery.
    let now = this.deps.clock.now();
    for (let index = from; index < to; index++) {
      const status = section.status(index);
      const record = status === eventStatus.kept ? section.recordOf(text, index) : undefined;
      if (record !== undefined && batcher.wouldOverflow(1, record.length)) {
        if (!(await makeRoom())) return false;
        now = this.deps.clock.now();
      }
      const open = tally();
      open.received += 1;
      if (status === eventStatus.filteredOut) open.filtered_out += 1;
      else if (status === eventStatus.sampledOut) open.sampled_out += 1;
      batcher.consume(chunk.seq, index, chunk.appendedAtMs, record, now);
      if (batcher.shouldClose(now)) {
        if (!(await makeRoom())) return false;
        now = this.deps.clock.now();
      }
    }
    return true;
  }

  /** Closes the open batch and delivers it; false when the runner stopped before it was delivered. */
  private async flush(consumer: QueueConsumer, destination: Destination): Promise<boolean> {
    const batch = this.batcher.take();
    const tally = this.tally;
    this.tally = this.deps.counters.openTally(this);
    if (batch.records === 0) {
      // Everything was filtered or sampled out: nothing to send, but the range is done.
      await this.settle(batch.range, tally);
      await consumer.commit(batch.range);
      return true;
    }
    await consumer.saveInflight(batch.range);
    return this.deliver(consumer, destination, batch.range, batch.parts, batch.records, tally);
  }

  /**
   * Counts a finished batch and writes the counters before its range is committed, marked with the range:
   * after a crash between the two, the re-sent batch finds its range counted and is not counted again; a
   * crash before the write loses the in-memory counts, and the re-send counts them.
   */
  private async settle(range: InflightBatch, tally: BatchTally, delivered?: { readonly records: number; readonly bytes: number }): Promise<void> {
    if (delivered !== undefined) this.deps.counters.delivered(delivered.records, delivered.bytes, this.deps.clock.now());
    this.deps.counters.settle(tally, range.rangeId);
    try {
      await this.deps.persistCounters();
    } catch (error) {
      // Counting must not stop delivery; the periodic flush writes them later (a crash before it may count this batch twice).
      this.deps.log.warn({ err: error, jobId: this.job.id }, `Job ${this.job.id} could not store its counters; will try again.`);
    }
  }

  /** Re-sends exactly the recorded batch after a restart. */
  private async resend(consumer: QueueConsumer, destination: Destination, inflight: InflightBatch): Promise<boolean> {
    const chunks = await consumer.readChunks([...new Set(inflight.segments.map((s) => s.seq))]);
    const bySeq = new Map(chunks.map((c) => [c.seq, c] as const));
    // The batch is rebuilt whole, from exactly its segments: a batcher without limits never asks for room.
    const rebuilt = new Batcher(noBatchLimits, this.framing);
    const unlimited = () => Promise.resolve(true);
    const tally = this.deps.counters.openTally(this);
    for (const segment of inflight.segments) {
      const chunk = bySeq.get(segment.seq);
      if (chunk === undefined) tallyDrop(tally, 'missing_from_queue', segment.to - segment.from);
      else await this.feed(rebuilt, () => tally, chunk, segment.from, segment.to, unlimited);
    }
    // The batch may have been counted (and delivered) just before the stop, without being committed.
    const counted = await this.deps.countedBefore(inflight.rangeId);
    if (counted) this.deps.counters.release(tally);
    this.deps.log.info({ jobId: this.job.id, range: inflight.rangeId }, `Job ${this.job.id} re-sends the batch that was in flight when it last stopped.`);
    const batch = rebuilt.isEmpty() ? undefined : rebuilt.take();
    if (batch === undefined || batch.records === 0) {
      if (!counted) await this.settle(inflight, tally);
      await consumer.commit(inflight);
      return true;
    }
    return this.deliver(consumer, destination, inflight, batch.parts, batch.records, counted ? undefined : tally);
  }

  /** Delivers a batch (retrying), counts it unless `tally` is undefined (counted before a restart), and commits it. */
  private async deliver(
    consumer: QueueConsumer,
    destination: Destination,
    range: InflightBatch,
    parts: readonly BatchPart[],
    records: number,
    tally: BatchTally | undefined,
  ): Promise<boolean> {
    const body = await compressBatch(parts, this.deps.gzipLevel);
    const key = objectKey({
      pathTemplate: 'path' in this.plan.destination ? this.plan.destination.path : '',
      jobId: this.job.id,
      rangeId: range.rangeId,
      firstAppendMs: range.firstAppendMs,
      lastAppendMs: range.lastAppendMs,
    });
    let attempts = 0;
    this.delivery = { records, failure: undefined };
    const result = await deliverWithRetry(
      (signal) => {
        // Every attempt after the first is a retry, the one that succeeds included.
        if (++attempts > 1) this.deps.counters.count('retries');
        return destination.send({ jobId: this.job.id, objectKey: key, body, contentType: this.plan.contentType, records }, signal);
      },
      {
        policy: this.deps.retryPolicy,
        signal: this.deliverySignal.signal,
        onFailure: (outcome, attempt) => this.recordFailure(consumer, outcome, attempt),
      },
    ).finally(() => {
      this.delivery = undefined;
    });
    if (result === 'aborted') return false;
    if (tally !== undefined) await this.settle(range, tally, { records, bytes: body.length });
    await consumer.commit(range);
    this.failingSince = undefined;
    await this.deps.store.setJobStatus(this.job.id, {
      lastComplete: new Date(range.lastAppendMs).toISOString(),
      lastError: null,
      errorMessage: null,
      failingSince: null,
    });
    return true;
  }

  private async recordFailure(consumer: QueueConsumer, outcome: FailedOutcome, attempt: number): Promise<void> {
    // While a batch is retried its chunks stay handed out to this runner; keep them so.
    await consumer.heartbeat();
    const now = this.deps.clock.now();
    this.deps.counters.count('failures');
    this.failingSince ??= now;
    const disable = now - this.failingSince >= this.deps.disableAfterMs;
    const status = {
      lastError: new Date(now).toISOString(),
      errorMessage: outcome.reason,
      failingSince: new Date(this.failingSince).toISOString(),
    };
    if (disable) await this.disableJob(status);
    else await this.deps.store.setJobStatus(this.job.id, status);
    if (this.delivery !== undefined) this.delivery.failure = outcome.reason;
    if (this.stopMode === 'drain') {
      this.giveUpAtStop(outcome.reason);
    } else if (attempt === 1 || attempt % 10 === 0) {
      this.deps.log.warn({ jobId: this.job.id, attempt, reason: outcome.reason }, `Job ${this.job.id} could not deliver a batch (attempt ${attempt}): ${outcome.reason}`);
    }
    if (disable) {
      this.deps.log.error({ jobId: this.job.id }, `Job ${this.job.id} has not delivered for ${Math.round(this.deps.disableAfterMs / 60_000)} minutes and is now disabled; its undelivered events stay queued until it is enabled again.`);
      this.deliverySignal.abort();
      this.stopSignal.abort();
      this.deps.onDisabled(this.job);
    }
  }

  /**
   * At a drain, writes the line that says what the stop waits for this job to do (once): give up a batch
   * whose destination is failing, finish the delivery under way, deliver the open batch, or (from `drain`)
   * deliver the events fetched now. A runner with nothing to do writes nothing.
   */
  private announceStop(fetched?: string): void {
    if (this.stopAnnounced) return;
    const delivery = this.delivery;
    if (delivery?.failure !== undefined) {
      this.giveUpAtStop(delivery.failure);
      return;
    }
    const what =
      delivery !== undefined
        ? `is delivering a batch of ${delivery.records} records`
        : !this.batcher.isEmpty()
          ? `delivers its open batch (${this.batcher.heldRecords()} records) first`
          : fetched;
    if (what === undefined) return;
    this.stopAnnounced = true;
    const deadline = this.stopDeadlineMs;
    const within = deadline === undefined ? '' : `; the stop waits for it at most ${Math.max(0, Math.ceil((deadline - this.deps.clock.now()) / 1000))} s more`;
    this.deps.log.info({ jobId: this.job.id }, `Stopping: ${jobLabel(this.job)} ${what}${within}.`);
  }

  /** A failing destination at a drain: the batch stays queued (uncommitted, recorded as in flight) for the next start. */
  private giveUpAtStop(reason: string): void {
    this.stopAnnounced = true;
    const records = this.delivery?.records ?? 0;
    this.deps.log.warn(
      { jobId: this.job.id, reason },
      `Stopping: ${jobLabel(this.job)} gives up its batch of ${records} records, as its destination is failing (${reason}); the batch stays queued and is delivered after the next start.`,
    );
    this.deliverySignal.abort();
  }

  /** Disables the job for failing too long, with its audit entry in the same transaction. */
  private async disableJob(status: JobStatus): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      await tx.setJobStatus(this.job.id, { ...status, enabled: false });
      const zone = await tx.findZone(this.job.zoneId);
      await recordAudit(tx, this.deps.clock, {
        action: 'job.disable',
        actor: systemActor,
        ownerId: zone?.userId ?? null,
        zone: zone ?? null,
        resource: { type: 'logexport.job', id: String(this.job.id) },
        oldValue: { enabled: true },
        newValue: { enabled: false },
        metadata: { reason: `no delivery for ${Math.round(this.deps.disableAfterMs / 60_000)} minutes`, last_error: status.errorMessage },
      });
    });
  }
}
