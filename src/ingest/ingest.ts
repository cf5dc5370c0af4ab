/**
 * Ingest: a request's events → processed as one task (checked whole, custom fields captured once per
 * event, every enabled job's filter, sampler and formatter applied, and those of the live sessions watching
 * the zone; ingest-task.ts), on a worker thread when there are some → the resulting chunks durably appended
 * to the zone's stream. Only then does the request succeed, and only then do live sessions get what they
 * kept. Events of a dataset with no enabled job are acknowledged and counted as dropped. A source's bytes go
 * the same way through the decoder it registered (event-decoder.ts, source-task.ts): events checked and
 * prepared per zone on a worker, then appended (with the source's checkpoint, for a tailed file).
 */
import { AppError } from '../core/app-error.ts';
import { httpRequests, type Dataset } from '../domain/datasets/http-requests.ts';
import type { ChunkInput, EventQueue, SourceCheckpoint, StreamAppend } from '../queue/queue.ts';
import type { LiveTapOutput, LiveTapSpec } from './live-tap.ts';
import type { PlanSource } from './ingest-task.ts';
import type { PreparedZone, SourceTask } from './source-task.ts';
import type { IngestWorkers } from './workers/ingest-workers.ts';
import type { ZoneSnapshots } from './zone-snapshots.ts';
import { IngestFigures, type IngestCounters, type WayIn } from './ingest-figures.ts';
import { systemClock } from '../core/clock.ts';

export type { IngestCounters } from './ingest-figures.ts';

/** A source's batch, decoded and prepared: per zone, with the decoder's account and the body's digest when asked for. */
export interface PreparedSource {
  readonly zones: readonly PreparedZone[];
  readonly account: unknown;
  readonly dedupeKey?: string;
}

/** Which plans a source's task carries: one zone's (every event goes there), or those of every zone the node's sources routed to by host. */
export type SourceZones = { readonly kind: 'zone'; readonly zoneId: string } | { readonly kind: 'routed' };

/** A request body as received. */
export interface IngestBody {
  readonly bytes: Uint8Array;
  readonly encoding: 'identity' | 'gzip';
  /** Largest body after decompression. */
  readonly limitBytes: number;
}

/** Where ingest finds the live sessions watching a zone (Instant Logs, src/live/) and hands them what they keep. */
export interface LiveTaps {
  /** The sessions watching a zone's dataset now, with a key that changes whenever they do; undefined when none. */
  watching(zoneId: string, dataset: string): { readonly key: string; readonly specs: readonly LiveTapSpec[] } | undefined;
  /** What one accepted request gave each session. */
  deliver(zoneId: string, outputs: readonly LiveTapOutput[]): void;
}

const noLiveTaps: LiveTaps = { watching: () => undefined, deliver: () => {} };

/** What ingest did with a request: how many events it checked and queued. */
export interface IngestResult {
  readonly accepted: number;
  /** Events checked and then dropped because no enabled job exports the zone's events (the answer says so). */
  readonly droppedNoJob?: number;
}

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
  /** Events a source dropped before they had a zone, by reason (`unknown_host`: no zone for the event's host). */
  readonly unrouted: Record<string, number>;
  private readonly now: () => number;
  /** Zones the node's sources have routed events to by host, whose plans go with every such task. */
  private readonly routedZones = new Set<string>();
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
    this.queue = queue;
    this.snapshots = snapshots;
    this.workers = workers;
    this.onAppendError = onAppendError;
    this.live = live;
    this.figures = figures;
    this.counters = figures.zones;
    this.unrouted = figures.unrouted.dropped;
    this.now = now;
  }

  /** Requests (and sources' batches) being ingested now. */
  get requestsInFlight(): number {
    return this.inFlight;
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


  /**
   * Decodes and prepares a source's batch with its decoder (event-decoder.ts), on a worker thread when there
   * are some. With `zones` of one zone, the task carries that zone's plan, and the request is counted on the
   * zone (and refused there, when its body is refused). Routed, it carries the plans of every zone the node's
   * sources met; a zone met for the first time is loaded and the batch run again. A refused body throws the
   * AppError to answer with.
   */
  async prepareFromSource(task: Omit<SourceTask, 'plans' | 'dataset' | 'receivedAtMs'>, zones: SourceZones, way: WayIn): Promise<PreparedSource> {
    if (zones.kind === 'zone') this.figures.count(zones.zoneId, way, { requests: 1 });
    const receivedAtMs = this.now();
    let bytes = task.bytes;
    for (let attempt = 0; ; attempt++) {
      const plans: Record<string, { planKey: string; plan: PlanSource }> = {};
      for (const zoneId of zones.kind === 'zone' ? [zones.zoneId] : this.routedZones) {
        plans[zoneId] = this.withLiveSessions(zoneId, httpRequests.id, await this.snapshots.get(zoneId, httpRequests.id));
      }
      const result = await this.workers.runSource({ ...task, bytes, dataset: httpRequests.id, plans, receivedAtMs });
      switch (result.kind) {
        case 'done':
          return { zones: result.zones, account: result.account, ...(result.dedupeKey === undefined ? {} : { dedupeKey: result.dedupeKey }) };
        case 'refused':
          if (zones.kind === 'zone') this.figures.count(zones.zoneId, way, { rejected_requests: 1 });
          throw new AppError(result.error, result.details);
        case 'needPlans':
          if (zones.kind === 'zone' || attempt >= 2) throw new Error(`the plans of zones ${result.zoneIds.join(', ')} could not be loaded for a source's batch`);
          for (const zoneId of result.zoneIds) this.routedZones.add(zoneId);
          bytes = result.bytes ?? bytes;
      }
    }
  }

  /**
   * Appends what a source's request prepared for one zone (de-duplicated by `dedupeKey` where the queue can
   * tell); resolves once it is durable, then hands the live sessions what they kept. `countRequest` counts a
   * request on the zone (a request routed by host counts once on each zone it reached). Events of a zone
   * with no enabled job are counted as dropped (`no_job`), and answered (the events so dropped); only events
   * stored count as accepted, so a request sent again is not counted twice.
   */
  async appendPrepared(zone: PreparedZone, dedupeKey: string | undefined, countRequest: boolean, way: WayIn): Promise<{ readonly droppedNoJob: number }> {
    return this.tracked(async () => {
      if (countRequest) this.figures.count(zone.zoneId, way, { requests: 1 });
      let droppedNoJob = 0;
      if (zone.chunks.length === 0) {
        this.figures.dropped(zone.zoneId, way, 'no_job', zone.events);
        droppedNoJob = zone.events;
      } else {
        const stored = await this.appendDurably(zone.zoneId, way, httpRequests.id, zone.chunks, dedupeKey);
        this.figures.count(zone.zoneId, way, { accepted_events: stored, events: stored });
      }
      if (zone.live.length > 0) this.live.deliver(zone.zoneId, zone.live);
      return { droppedNoJob };
    });
  }

  /**
   * Appends a source's prepared batch to its zones' streams together with the source's checkpoint; resolves
   * once both are durable. Events of a zone with no enabled job are counted as dropped (`no_job`).
   */
  async appendFromSource(prepared: PreparedSource, checkpoint: SourceCheckpoint, batchId: string, way: WayIn): Promise<void> {
    await this.tracked(async () => {
      const appends: StreamAppend[] = prepared.zones.filter((zone) => zone.chunks.length > 0).map((zone) => ({ stream: { zoneId: zone.zoneId, dataset: httpRequests.id }, chunks: zone.chunks }));
      await this.queue.appendFromSource(appends, checkpoint, batchId);
      for (const zone of prepared.zones) {
        if (zone.chunks.length > 0) this.figures.count(zone.zoneId, way, { accepted_events: zone.events, events: zone.events });
        else this.figures.dropped(zone.zoneId, way, 'no_job', zone.events);
      }
      for (const zone of prepared.zones) if (zone.live.length > 0) this.live.deliver(zone.zoneId, zone.live);
    });
  }

  /** A zone's plan with the live sessions watching it: nobody watching costs one lookup; sessions get a key of their own. */
  private withLiveSessions(zoneId: string, dataset: string, snapshot: { readonly planKey: string; readonly plan: PlanSource }): { planKey: string; plan: PlanSource } {
    const watching = this.live.watching(zoneId, dataset);
    if (watching === undefined) return { planKey: snapshot.planKey, plan: snapshot.plan };
    return { planKey: `${snapshot.planKey}/live/${watching.key}`, plan: { ...snapshot.plan, live: watching.specs } };
  }

  private async ingestNow(zoneId: string, dataset: Dataset, body: IngestBody): Promise<IngestResult> {
    this.figures.count(zoneId, 'http', { requests: 1 });
    const snapshot = await this.snapshots.get(zoneId, dataset.id);
    const result = await this.workers.run({
      dataset: dataset.id,
      body: body.bytes,
      encoding: body.encoding,
      limitBytes: body.limitBytes,
      ...this.withLiveSessions(zoneId, dataset.id, snapshot),
      receivedAtMs: this.now(),
    });
    if (!result.ok) {
      this.figures.count(zoneId, 'http', { rejected_requests: 1 });
      throw new AppError(result.kind, result.details);
    }
    const answer: IngestResult = { accepted: result.accepted };
    if (snapshot.plan.jobs.length === 0 && !snapshot.plan.retain) {
      this.figures.dropped(zoneId, 'http', 'no_job', result.accepted);
      if (result.live.length > 0) this.live.deliver(zoneId, result.live);
      return result.accepted > 0 ? { ...answer, droppedNoJob: result.accepted } : answer;
    }
    const stored = await this.appendDurably(zoneId, 'http', dataset.id, result.chunks, result.dedupeKey);
    this.figures.count(zoneId, 'http', { accepted_events: stored, events: stored });
    if (result.live.length > 0) this.live.deliver(zoneId, result.live);
    return answer;
  }

  /** Appends a request's chunks; resolves the events stored (none for a body stored within the de-duplication window already). */
  private async appendDurably(zoneId: string, way: WayIn, dataset: string, chunks: readonly ChunkInput[], dedupeKey: string | undefined): Promise<number> {
    try {
      return await this.queue.append({ zoneId, dataset }, chunks, dedupeKey);
    } catch (error) {
      this.onAppendError(error);
      // Not durable, so not accepted: the client retries, and a retry of the same body is stored once.
      this.figures.count(zoneId, way, { rejected_requests: 1 });
      throw new AppError('queueUnavailable', undefined, 5);
    }
  }
}
