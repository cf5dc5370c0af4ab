/**
 * Ingest: a request's events → processed as one task (checked whole, custom fields captured once per
 * event, every enabled job's filter, sampler and formatter applied, and those of the live sessions watching
 * the zone; ingest-task.ts), on a worker thread when there are some → the resulting chunks durably appended
 * to the zone's stream. Only then does the request succeed, and only then do live sessions get what they
 * kept. Events of a dataset with no enabled job are acknowledged and counted as dropped.
 */
import { AppError } from '../core/app-error.ts';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import type { EventQueue, SourceCheckpoint, StreamAppend } from '../queue/queue.ts';
import type { LiveTapOutput, LiveTapSpec } from './live-tap.ts';
import type { BadLines, SkippedLines } from './ingest-processor.ts';
import type { BodyFormat, OtlpTaskOutput, PlanSource } from './ingest-task.ts';
import { noRejections } from '../sources/otlp/otlp-lines.ts';
import { httpRequests } from '../domain/datasets/http-requests.ts';
import type { TailTask, TailTaskResult } from '../sources/tail/tail-task.ts';
import type { IngestWorkers } from './workers/ingest-workers.ts';
import type { ZoneSnapshots } from './zone-snapshots.ts';
import { IngestFigures, type IngestCounters, type WayIn } from './ingest-figures.ts';
import { systemClock } from '../core/clock.ts';

export type { IngestCounters } from './ingest-figures.ts';

/** A tailed file's batch, processed. */
export type PreparedTail = Extract<TailTaskResult, { kind: 'done' }>;

/** A request body as received. */
export interface IngestBody {
  readonly bytes: Uint8Array;
  readonly encoding: 'identity' | 'gzip';
  /** Largest body after decompression. */
  readonly limitBytes: number;
  /** What a bad line does: `refuse` the request whole (the default, HTTP ingest) or `skip` it and report it. */
  readonly badLines?: BadLines;
  /** NDJSON unless said otherwise (an OTLP request's records are mapped to events first; their bad ones skipped). */
  readonly format?: BodyFormat;
  /** How the events came in, for the figures: HTTP ingest unless said otherwise. */
  readonly wayIn?: WayIn;
}

/** Where ingest finds the live sessions watching a zone (Instant Logs, src/live/) and hands them what they keep. */
export interface LiveTaps {
  /** The sessions watching a zone's dataset now, with a key that changes whenever they do; undefined when none. */
  watching(zoneId: string, dataset: string): { readonly key: string; readonly specs: readonly LiveTapSpec[] } | undefined;
  /** What one accepted request gave each session. */
  deliver(zoneId: string, outputs: readonly LiveTapOutput[]): void;
}

const noLiveTaps: LiveTaps = { watching: () => undefined, deliver: () => {} };

/** What ingest did with a request: how many events it queued, and (with `badLines: 'skip'`) which lines it left out. */
export interface IngestResult {
  readonly accepted: number;
  readonly skipped?: SkippedLines;
  /** For an OTLP request: its records, and those rejected. */
  readonly otlp?: OtlpTaskOutput;
  /** Events checked and then dropped because no enabled job exports the zone's events (the answer says so). */
  readonly droppedNoJob?: number;
}

/** The plan of a task that only splits an OTLP request by host: never compiled, as nothing is processed. */
const splitPlan: PlanSource = { rules: [], jobs: [], settings: { filterLimits: { maxOperators: 0, maxBytes: 0 }, gzipLevel: 0 }, retain: false };

export class Ingestor {
  private readonly queue: EventQueue;
  private readonly snapshots: ZoneSnapshots;
  private readonly workers: IngestWorkers;
  private readonly onAppendError: (error: unknown) => void;
  private readonly live: LiveTaps;
  /** What ingest did, per zone and way in (ingest-figures.ts). */
  readonly figures: IngestFigures;
  /** The figures of each zone. */
  readonly counters: Map<string, IngestCounters>;
  private readonly now: () => number;
  /** Events a source dropped before they had a zone, by reason (`unknown_host`: no zone for the event's host). */
  readonly unrouted: Record<string, number>;
  /** Zones the node's tailed files have met, whose plans go with every batch. */
  private readonly tailZones = new Set<string>();
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  /** `now` is the node's clock: when a request is received, which its retained copy records. */
  constructor(
    queue: EventQueue,
    snapshots: ZoneSnapshots,
    workers: IngestWorkers,
    onAppendError: (error: unknown) => void = () => {},
    live: LiveTaps = noLiveTaps,
    figures: IngestFigures = new IngestFigures(systemClock),
    now: () => number = Date.now,
  ) {
    this.now = now;
    this.queue = queue;
    this.snapshots = snapshots;
    this.workers = workers;
    this.onAppendError = onAppendError;
    this.live = live;
    this.figures = figures;
    this.counters = figures.zones;
    this.unrouted = figures.unrouted.dropped;
  }

  /** Resolves when no request is being ingested (stopping waits for this before the runners drain). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Counts events a source acknowledged without queueing them, by reason (`unknown_host`: no zone for the
   * event's host). `zoneId` is empty when the events belong to no zone.
   */
  countDropped(zoneId: string, reason: string, events: number, way: WayIn): void {
    this.figures.dropped(zoneId, way, reason, events);
  }

  /** Checks, prepares and queues the events of one request; resolves once they are durable. */
  async ingest(zoneId: string, dataset: Dataset, body: IngestBody): Promise<IngestResult> {
    return this.tracked(() => this.ingestNow(zoneId, dataset, body));
  }

  /**
   * Decodes an OTLP request and maps its records to lines grouped by host, on a worker, without processing
   * them: the caller routes each group to its zone and ingests it as NDJSON with bad lines skipped.
   */
  async splitOtlp(dataset: Dataset, body: IngestBody & { readonly format: BodyFormat & { readonly kind: 'otlp' } }): Promise<OtlpTaskOutput> {
    return this.tracked(async () => {
      const result = await this.workers.run({
        dataset: dataset.id,
        body: body.bytes,
        encoding: body.encoding,
        limitBytes: body.limitBytes,
        format: { ...body.format, splitByHost: true },
        planKey: '',
        plan: splitPlan,
      });
      if (!result.ok) throw new AppError(result.kind, result.details);
      return result.otlp ?? { total: 0, rejections: noRejections, groups: [] };
    });
  }

  /**
   * Runs `work` counted as in flight, so stopping waits for it: a source whose request takes several steps
   * (split, then ingest per zone) wraps them all, so a node that starts stopping in between still queues them.
   */
  async tracked<T>(work: () => Promise<T>): Promise<T> {
    this.inFlight += 1;
    try {
      return await work();
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Counts lines of a tailed file dropped because no zone could be found for them (`unknown_host`). */
  countUnrouted(reason: string, count: number): void {
    this.figures.dropped('', 'tail', reason, count);
  }

  /**
   * Processes a batch of a tailed file (decode, route by host, prepare with each zone's plan) on a worker
   * thread when there are some. The task carries the plans of every zone the node's tails have met; a zone
   * met for the first time is loaded and the batch run again.
   */
  async prepareTail(task: Omit<TailTask, 'plans'>): Promise<PreparedTail> {
    for (let attempt = 0; ; attempt++) {
      const plans: Record<string, { planKey: string; plan: PlanSource }> = {};
      for (const zoneId of this.tailZones) {
        plans[zoneId] = this.withLiveSessions(zoneId, httpRequests.id, await this.snapshots.get(zoneId, httpRequests.id));
      }
      const result = await this.workers.runTail({ ...task, plans });
      if (result.kind === 'done') return result;
      if (attempt >= 2) throw new Error(`the plans of zones ${result.zoneIds.join(', ')} could not be loaded for a tailed file`);
      for (const zoneId of result.zoneIds) this.tailZones.add(zoneId);
    }
  }

  /**
   * Appends a prepared batch of a tailed file to its zones' streams together with the tail's checkpoint;
   * resolves once both are durable. Lines of a zone with no enabled job are counted as dropped (`no_job`).
   */
  async appendFromTail(prepared: PreparedTail, checkpoint: SourceCheckpoint, batchId: string): Promise<void> {
    await this.tracked(async () => {
      const appends: StreamAppend[] = prepared.appends.map((append) => ({ stream: { zoneId: append.zoneId, dataset: httpRequests.id }, chunks: append.chunks }));
      await this.queue.appendFromSource(appends, checkpoint, batchId);
      const queued = new Set(prepared.appends.map((append) => append.zoneId));
      for (const [zoneId, count] of Object.entries(prepared.routed)) {
        if (queued.has(zoneId)) this.figures.count(zoneId, 'tail', { accepted_events: count, events: count });
        else this.figures.dropped(zoneId, 'tail', 'no_job', count);
      }
      for (const { zoneId, outputs } of prepared.live) this.live.deliver(zoneId, outputs);
    });
  }

  /** A zone's plan with the live sessions watching it: nobody watching costs one lookup; sessions get a key of their own. */
  private withLiveSessions(zoneId: string, dataset: string, snapshot: { readonly planKey: string; readonly plan: PlanSource }): { planKey: string; plan: PlanSource } {
    const watching = this.live.watching(zoneId, dataset);
    if (watching === undefined) return { planKey: snapshot.planKey, plan: snapshot.plan };
    return { planKey: `${snapshot.planKey}/live/${watching.key}`, plan: { ...snapshot.plan, live: watching.specs } };
  }

  private async ingestNow(zoneId: string, dataset: Dataset, body: IngestBody): Promise<IngestResult> {
    const way = body.wayIn ?? 'http';
    this.figures.count(zoneId, way, { requests: 1 });
    const snapshot = await this.snapshots.get(zoneId, dataset.id);
    const result = await this.workers.run({
      dataset: dataset.id,
      body: body.bytes,
      encoding: body.encoding,
      limitBytes: body.limitBytes,
      ...(body.badLines === undefined ? {} : { badLines: body.badLines }),
      ...(body.format === undefined ? {} : { format: body.format }),
      ...this.withLiveSessions(zoneId, dataset.id, snapshot),
      receivedAtMs: this.now(),
    });
    if (!result.ok) {
      this.figures.count(zoneId, way, { rejected_requests: 1 });
      throw new AppError(result.kind, result.details);
    }
    const answer: IngestResult = {
      accepted: result.accepted,
      ...(result.skipped === undefined ? {} : { skipped: result.skipped }),
      ...(result.otlp === undefined ? {} : { otlp: result.otlp }),
    };
    if (snapshot.plan.jobs.length === 0 && !snapshot.plan.retain) {
      this.figures.dropped(zoneId, way, 'no_job', result.accepted);
      if (result.live.length > 0) this.live.deliver(zoneId, result.live);
      return result.accepted > 0 ? { ...answer, droppedNoJob: result.accepted } : answer;
    }
    // Every line was skipped: nothing to queue.
    if (result.accepted === 0) return answer;
    try {
      await this.queue.append({ zoneId, dataset: dataset.id }, result.chunks, result.dedupeKey);
    } catch (error) {
      this.onAppendError(error);
      // Not durable, so not accepted: the client retries, and a retry of the same body is stored once.
      this.figures.count(zoneId, way, { rejected_requests: 1 });
      throw new AppError('queueUnavailable', undefined, 5);
    }
    this.figures.count(zoneId, way, { accepted_events: result.accepted, events: result.accepted });
    if (result.live.length > 0) this.live.deliver(zoneId, result.live);
    return answer;
  }
}
