/**
 * Replay (logexport's own): exports a job's retained events of a past window through the job's current
 * filter, sampling, fields and format to its destination — batched by its `max_upload_*` limits, one gzip
 * object per batch, named from the job and the window (`replay_<start>_<end>_<hex>_<part>.log.gz`), so
 * running the same replay again overwrites instead of duplicating. A replay runs beside the job's runner,
 * with its own destination connection, and never touches the job's queue position. One per job at a time;
 * progress is kept by the node that runs it.
 */
import type { ReplayProgress } from '../domain/jobs/replay-progress.ts';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import type { Logger } from '../core/logger.ts';
import { httpRequests } from '../domain/datasets/http-requests.ts';
import { createDestination, type DestinationDeps } from '../destinations/create-destination.ts';
import { replayObjectKey } from '../destinations/object-key.ts';
import type { JobPlan } from '../ingest/job-plan.ts';
import type { Job } from '../store/store.ts';
import { readRetained, type ReceiveWindow, type RetainedSource } from './retained-reader.ts';

const gzip = promisify(zlib.gzip);

/** What replays need from the node. */
export interface ReplayDeps {
  readonly source: RetainedSource;
  readonly destinations: DestinationDeps;
  readonly gzipLevel: number;
  readonly log: Logger;
  readonly now: () => number;
  /** Attempts per object before the replay stops with an error. */
  readonly maxAttempts?: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class Replays {
  private readonly deps: ReplayDeps;
  private readonly progress = new Map<number, Mutable<ReplayProgress>>();
  private readonly running = new Map<number, Promise<void>>();
  private readonly stopSignal = new AbortController();

  constructor(deps: ReplayDeps) {
    this.deps = deps;
  }

  /** The latest replay of the job on this node, if any. */
  get(jobId: number): ReplayProgress | undefined {
    const p = this.progress.get(jobId);
    return p === undefined ? undefined : { ...p };
  }

  /** Whether the job has a replay running on this node. */
  isRunning(jobId: number): boolean {
    return this.running.has(jobId);
  }

  /** Starts a replay of the window with the job's compiled plan; the caller checked none is running. */
  start(job: Job, plan: JobPlan, window: ReceiveWindow): ReplayProgress {
    const startMs = Number(window.startNs / 1_000_000n);
    const endMs = Number(window.endNs / 1_000_000n);
    const progress: Mutable<ReplayProgress> = {
      job_id: job.id,
      start: new Date(startMs).toISOString(),
      end: new Date(endMs).toISOString(),
      status: 'running',
      events_read: 0,
      exported: 0,
      objects_written: 0,
      error: null,
      started_at: new Date(this.deps.now()).toISOString(),
      finished_at: null,
    };
    this.progress.set(job.id, progress);
    const run = this.run(job, plan, window, progress)
      .then(() => {
        progress.status = 'done';
      })
      .catch((error: unknown) => {
        progress.status = 'error';
        progress.error = error instanceof Error ? error.message : String(error);
        this.deps.log.warn({ err: error, jobId: job.id }, `The replay of job ${job.id} stopped: ${progress.error}`);
      })
      .finally(() => {
        progress.finished_at = new Date(this.deps.now()).toISOString();
        this.running.delete(job.id);
      });
    this.running.set(job.id, run);
    return { ...progress };
  }

  /** Waits for a running replay of the job (tests). */
  async settled(jobId: number): Promise<void> {
    await this.running.get(jobId);
  }

  private async run(job: Job, plan: JobPlan, window: ReceiveWindow, progress: Mutable<ReplayProgress>): Promise<void> {
    const destination = createDestination(plan.destination, this.deps.destinations);
    const pathTemplate = 'path' in plan.destination ? plan.destination.path : '';
    const startMs = Number(window.startNs / 1_000_000n);
    const endMs = Number(window.endNs / 1_000_000n);
    const { formatter, predicate, sampler } = plan;
    let records: string[] = [];
    let bytes = 0;
    let part = 0;
    const send = async (): Promise<void> => {
      if (records.length === 0) return;
      const text = formatter.batchPrefix + records.join(formatter.recordDelimiter) + formatter.batchSuffix;
      const body = await gzip(Buffer.from(text, 'utf8'), { level: this.deps.gzipLevel });
      const batch = { jobId: job.id, objectKey: replayObjectKey(pathTemplate, job.id, startMs, endMs, part), body, contentType: plan.contentType, records: records.length };
      for (let attempt = 1; ; attempt++) {
        if (this.stopSignal.signal.aborted) throw new Error('the node stopped before the replay finished');
        const outcome = await destination.send(batch, this.stopSignal.signal);
        if (outcome.kind === 'delivered') break;
        if (outcome.kind === 'permanent' || attempt >= (this.deps.maxAttempts ?? 5)) throw new Error(`the destination refused part ${part}: ${outcome.reason}`);
        await new Promise((resolve) => setTimeout(resolve, outcome.afterMs ?? 1000 * 2 ** (attempt - 1)));
      }
      progress.exported += records.length;
      progress.objects_written += 1;
      part += 1;
      records = [];
      bytes = 0;
    };
    try {
      for await (const batch of readRetained(this.deps.source, job.zoneId, window, httpRequests, httpRequests.fields)) {
        progress.events_read += batch.length;
        for (const record of batch) {
          if (!predicate(record) || !sampler(record)) continue;
          const text = formatter.format(record);
          const size = Buffer.byteLength(text, 'utf8');
          if (records.length > 0 && (records.length >= plan.batch.maxRecords || bytes + size > plan.batch.maxBytes)) await send();
          records.push(text);
          bytes += size;
        }
        if (this.stopSignal.signal.aborted) throw new Error('the node stopped before the replay finished');
      }
      await send();
    } finally {
      await destination.close();
    }
  }

  /** Stops every replay (the node is stopping); they end with an error status. */
  async stop(): Promise<void> {
    this.stopSignal.abort();
    await Promise.allSettled([...this.running.values()]);
  }
}
