/**
 * Ingest: a request's events → processed as one task (checked whole, custom fields captured once per
 * event, every enabled job's filter, sampler and formatter applied; ingest-task.ts), on a worker thread
 * when there are some → the resulting chunks durably appended to the zone's stream. Only then does the
 * request succeed. Events of a dataset with no enabled job are acknowledged and counted as dropped.
 */
import { AppError } from '../core/app-error.ts';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import type { EventQueue } from '../queue/queue.ts';
import type { IngestWorkers } from './workers/ingest-workers.ts';
import type { ZoneSnapshots } from './zone-snapshots.ts';

/** Counters of what ingest did, per zone (for /metrics). */
export interface IngestCounters {
  requests: number;
  rejected_requests: number;
  accepted_events: number;
  dropped: Record<string, number>;
}

/** A request body as received. */
export interface IngestBody {
  readonly bytes: Uint8Array;
  readonly encoding: 'identity' | 'gzip';
  /** Largest body after decompression. */
  readonly limitBytes: number;
}

export class Ingestor {
  private readonly queue: EventQueue;
  private readonly snapshots: ZoneSnapshots;
  private readonly workers: IngestWorkers;
  private readonly onAppendError: (error: unknown) => void;
  readonly counters = new Map<string, IngestCounters>();
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(queue: EventQueue, snapshots: ZoneSnapshots, workers: IngestWorkers, onAppendError: (error: unknown) => void = () => {}) {
    this.queue = queue;
    this.snapshots = snapshots;
    this.workers = workers;
    this.onAppendError = onAppendError;
  }

  private countersOf(zoneId: string): IngestCounters {
    let c = this.counters.get(zoneId);
    if (c === undefined) {
      c = { requests: 0, rejected_requests: 0, accepted_events: 0, dropped: {} };
      this.counters.set(zoneId, c);
    }
    return c;
  }

  /** Resolves when no request is being ingested (stopping waits for this before the runners drain). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Checks, prepares and queues the events of one request; resolves once they are durable. */
  async ingest(zoneId: string, dataset: Dataset, body: IngestBody): Promise<{ accepted: number }> {
    this.inFlight += 1;
    try {
      return await this.ingestNow(zoneId, dataset, body);
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  private async ingestNow(zoneId: string, dataset: Dataset, body: IngestBody): Promise<{ accepted: number }> {
    const counters = this.countersOf(zoneId);
    counters.requests += 1;
    const snapshot = await this.snapshots.get(zoneId, dataset.id);
    const result = await this.workers.run({
      dataset: dataset.id,
      body: body.bytes,
      encoding: body.encoding,
      limitBytes: body.limitBytes,
      planKey: snapshot.planKey,
      plan: snapshot.plan,
    });
    if (!result.ok) {
      counters.rejected_requests += 1;
      throw new AppError(result.kind, result.details);
    }
    if (snapshot.plan.jobs.length === 0 && !snapshot.plan.retain) {
      counters.dropped.no_job = (counters.dropped.no_job ?? 0) + result.accepted;
      return { accepted: result.accepted };
    }
    try {
      await this.queue.append({ zoneId, dataset: dataset.id }, result.chunks, result.dedupeKey);
    } catch (error) {
      this.onAppendError(error);
      // Not durable, so not accepted: the client retries, and a retry of the same body is stored once.
      counters.rejected_requests += 1;
      throw new AppError('queueUnavailable', undefined, 5);
    }
    counters.accepted_events += result.accepted;
    return { accepted: result.accepted };
  }
}
