/**
 * Replay (logexport's own): exports a job's retained events of a past window through the job's current
 * filter, sampling, fields and format to its destination — batched by its `max_upload_*` limits, one gzip
 * object per batch, named from the job and the window (`replay_<start>_<end>_<hex>_<part>.log.gz`), so
 * running the same replay again overwrites instead of duplicating. A replay runs beside the job's runner,
 * with its own destination connection, and never touches the job's queue position.
 *
 * Bounded: one per job at a time; at most `LOGEXPORT_REPLAYS_PER_NODE` run at once on a node, the others
 * wait `queued`; a replay reads only the partitions that exist (retained-files.ts). Its progress is kept in
 * the store, written every second: any node answers for it, `DELETE …/replay` on any node cancels it (the
 * node running it reads the cancellation at its next write), and a node that stops leaves its replays as
 * they stood, to resume them from the start of their window when it starts again (the objects are
 * overwritten, not duplicated).
 */
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import type { Logger } from '../core/logger.ts';
import { httpRequests } from '../domain/datasets/http-requests.ts';
import type { FilterLimits } from '../domain/filters/parse-filter.ts';
import { isReplayActive, type ReplayProgress } from '../domain/jobs/replay-progress.ts';
import { createDestination, type DestinationDeps } from '../destinations/create-destination.ts';
import { replayObjectKey } from '../destinations/object-key.ts';
import { compileJobPlan, type JobPlan } from '../ingest/job-plan.ts';
import type { Job, Store, StoredReplay } from '../store/store.ts';
import { readRetained, type ReceiveWindow, type RetainedSource } from './retained-reader.ts';

const gzip = promisify(zlib.gzip);

/** What replays need from the node. */
export interface ReplayDeps {
  readonly source: RetainedSource;
  readonly destinations: DestinationDeps;
  readonly store: Pick<Store, 'saveReplay' | 'getReplay' | 'listReplays' | 'getJob' | 'getRetentionSince'>;
  readonly gzipLevel: number;
  readonly filterLimits: FilterLimits;
  readonly log: Logger;
  readonly now: () => number;
  /** Names this node in the store, so it resumes its own replays after a restart. */
  readonly nodeId: string;
  /** Replays run at once on this node (LOGEXPORT_REPLAYS_PER_NODE). */
  readonly perNode: number;
  /** Attempts per object before the replay stops with an error. */
  readonly maxAttempts?: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A replay of this node, queued or running. */
interface LocalReplay {
  readonly jobId: number;
  readonly zoneId: string;
  readonly window: ReceiveWindow;
  readonly progress: Mutable<ReplayProgress>;
  readonly abort: AbortController;
  /** Why it was aborted: cancelled through the API, or the node is stopping. */
  abortedFor?: 'cancel' | 'stop';
  /** Whether the stored row is this run's (before its first write, it is the job's previous replay). */
  stored?: boolean;
  done?: Promise<void>;
}

/** How often a running replay writes its progress (and reads whether it was cancelled). */
const saveEveryMs = 1000;

/** Thrown inside a replay that was aborted. */
class ReplayAborted extends Error {}

export class Replays {
  private readonly deps: ReplayDeps;
  private readonly local = new Map<number, LocalReplay>();
  private readonly waiting: LocalReplay[] = [];
  private runningCount = 0;
  private stopped = false;

  constructor(deps: ReplayDeps) {
    this.deps = deps;
  }

  /** The job's latest replay, wherever it runs. */
  async get(jobId: number): Promise<ReplayProgress | undefined> {
    const here = this.local.get(jobId);
    if (here !== undefined) return { ...here.progress };
    return (await this.deps.store.getReplay(jobId))?.progress;
  }

  /**
   * Starts a replay of the window, or queues it behind this node's running ones; undefined when the job has
   * one queued or running already. The caller checked the window.
   */
  async start(job: Job, window: ReceiveWindow): Promise<ReplayProgress | undefined> {
    if (this.local.has(job.id)) return undefined;
    const stored = await this.deps.store.getReplay(job.id);
    // (Checked again after the read: two requests for one job on this node cannot both pass.)
    if (this.local.has(job.id) || (stored !== undefined && isReplayActive(stored.progress.status))) return undefined;
    const startMs = Number(window.startNs / 1_000_000n);
    const endMs = Number(window.endNs / 1_000_000n);
    const replay: LocalReplay = {
      jobId: job.id,
      zoneId: job.zoneId,
      window,
      abort: new AbortController(),
      progress: {
        job_id: job.id,
        start: new Date(startMs).toISOString(),
        end: new Date(endMs).toISOString(),
        status: 'queued',
        events_read: 0,
        exported: 0,
        objects_written: 0,
        error: null,
        message: null,
        started_at: new Date(this.deps.now()).toISOString(),
        finished_at: null,
      },
    };
    this.local.set(job.id, replay);
    // Run at once when a slot is free (the run stores its progress first), else stored as queued.
    this.enqueue(replay);
    if (replay.progress.status === 'queued') await this.save(replay);
    return { ...replay.progress };
  }

  /** Cancels the job's queued or running replay (on whichever node); answers how it stands, or undefined when it has none. */
  async cancel(jobId: number): Promise<ReplayProgress | undefined> {
    const here = this.local.get(jobId);
    if (here !== undefined) {
      this.finish(here, 'cancelled');
      here.abortedFor = 'cancel';
      here.abort.abort();
      const index = this.waiting.indexOf(here);
      if (index >= 0) {
        this.waiting.splice(index, 1);
        this.local.delete(jobId);
      }
      await this.save(here);
      return { ...here.progress };
    }
    const stored = await this.deps.store.getReplay(jobId);
    if (stored === undefined) return undefined;
    if (!isReplayActive(stored.progress.status)) return stored.progress;
    const progress: ReplayProgress = { ...stored.progress, status: 'cancelled', finished_at: new Date(this.deps.now()).toISOString() };
    // The node running it reads this at its next write of progress, and stops.
    await this.deps.store.saveReplay({ ...stored, progress, updatedAt: new Date(this.deps.now()).toISOString() });
    return progress;
  }

  /** After a start: the replays this node had queued or running when it stopped run again, from the start of their window. */
  async resume(): Promise<void> {
    for (const stored of await this.deps.store.listReplays(this.deps.nodeId, ['queued', 'running'])) {
      if (this.local.has(stored.progress.job_id) || this.stopped) continue;
      const replay: LocalReplay = {
        jobId: stored.progress.job_id,
        zoneId: stored.zoneId,
        window: { startNs: BigInt(stored.startNs), endNs: BigInt(stored.endNs) },
        abort: new AbortController(),
        progress: { ...stored.progress, status: 'queued', events_read: 0, exported: 0, objects_written: 0, message: 'resumed after the node restarted' },
        stored: true,
      };
      this.local.set(replay.jobId, replay);
      this.enqueue(replay);
      if (replay.progress.status === 'queued') await this.save(replay);
    }
  }

  /** Waits for the job's replay on this node to end (tests). */
  async settled(jobId: number): Promise<void> {
    for (let replay = this.local.get(jobId); replay !== undefined; replay = this.local.get(jobId)) {
      if (replay.done !== undefined) await replay.done;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Stops every replay of this node (the node is stopping): they end at once and stay as they stood, to resume after the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waiting.splice(0);
    const running = [...this.local.values()];
    for (const replay of running) {
      replay.abortedFor ??= 'stop';
      replay.abort.abort();
    }
    await Promise.allSettled(running.map((r) => r.done));
  }

  private enqueue(replay: LocalReplay): void {
    this.waiting.push(replay);
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.runningCount < this.deps.perNode && this.waiting.length > 0) {
      const replay = this.waiting.shift() as LocalReplay;
      this.runningCount += 1;
      replay.progress.status = 'running';
      replay.done = this.runOne(replay).finally(() => {
        this.runningCount -= 1;
        if (this.local.get(replay.jobId) === replay) this.local.delete(replay.jobId);
        this.pump();
      });
    }
  }

  private finish(replay: LocalReplay, status: 'done' | 'error' | 'cancelled', error?: string): void {
    if (!isReplayActive(replay.progress.status)) return;
    replay.progress.status = status;
    replay.progress.error = error ?? null;
    replay.progress.finished_at = new Date(this.deps.now()).toISOString();
  }

  private async runOne(replay: LocalReplay): Promise<void> {
    const { progress } = replay;
    try {
      await this.save(replay);
      const job = await this.deps.store.getJob(replay.zoneId, replay.jobId);
      if (job === undefined) throw new Error('the job was deleted');
      const plan = compileJobPlan(job, this.deps.filterLimits);
      if (!plan.ok) throw new Error(`the job's settings cannot be compiled: ${plan.error.map((e) => e.message).join('; ')}`);
      await this.export(replay, job, plan.value);
      if (progress.events_read === 0) progress.message = await this.nothingRetained(replay.zoneId);
      this.finish(replay, 'done');
    } catch (error) {
      if (replay.abortedFor === 'stop') {
        // Left as it stood in the store (queued or running): the next start of this node resumes it.
        progress.message = 'interrupted: the node stopped; it resumes when the node starts again';
      } else if (replay.abortedFor !== 'cancel') {
        const message = error instanceof Error ? error.message : String(error);
        this.finish(replay, 'error', message);
        this.deps.log.warn({ err: error, jobId: replay.jobId }, `The replay of job ${replay.jobId} stopped: ${message}`);
      }
    }
    await this.save(replay).catch((error: unknown) => this.deps.log.warn({ err: error, jobId: replay.jobId }, `Could not store how the replay of job ${replay.jobId} ended.`));
  }

  /** Issue 26: a replay that read nothing says why it may have, and since when the zone keeps events. */
  private async nothingRetained(zoneId: string): Promise<string> {
    const since = await this.deps.store.getRetentionSince(zoneId);
    if (since === undefined) return "Nothing was retained in this window: the zone's retention flag is off, so it keeps no events (turn it on with POST …/logs/control/retention/flag).";
    return `Nothing was retained in this window. The zone keeps its events since ${since}, when its retention flag was turned on; events received before that, or in a window with no traffic, were not kept.`;
  }

  /** Writes the progress, first reading whether another node cancelled the replay meanwhile. */
  private async save(replay: LocalReplay): Promise<void> {
    const stored = replay.stored === true ? await this.deps.store.getReplay(replay.jobId) : undefined;
    if (stored !== undefined && stored.progress.status === 'cancelled' && isReplayActive(replay.progress.status)) {
      replay.progress.status = 'cancelled';
      replay.progress.finished_at = stored.progress.finished_at;
      replay.abortedFor ??= 'cancel';
      replay.abort.abort();
    }
    const now = new Date(this.deps.now()).toISOString();
    const row: StoredReplay = {
      progress: { ...replay.progress },
      zoneId: replay.zoneId,
      startNs: String(replay.window.startNs),
      endNs: String(replay.window.endNs),
      nodeId: this.deps.nodeId,
      updatedAt: now,
    };
    await this.deps.store.saveReplay(row);
    replay.stored = true;
  }

  private async export(replay: LocalReplay, job: Job, plan: JobPlan): Promise<void> {
    const { progress, window } = replay;
    const signal = replay.abort.signal;
    const destination = createDestination(plan.destination, this.deps.destinations);
    const pathTemplate = 'path' in plan.destination ? plan.destination.path : '';
    const startMs = Number(window.startNs / 1_000_000n);
    const endMs = Number(window.endNs / 1_000_000n);
    const { formatter, predicate, sampler } = plan;
    let records: string[] = [];
    let bytes = 0;
    let part = 0;
    let savedAt = this.deps.now();
    const check = async (): Promise<void> => {
      if (signal.aborted) throw new ReplayAborted();
      if (this.deps.now() - savedAt < saveEveryMs) return;
      savedAt = this.deps.now();
      await this.save(replay);
      if (signal.aborted) throw new ReplayAborted();
    };
    const send = async (): Promise<void> => {
      if (records.length === 0) return;
      const text = formatter.batchPrefix + records.join(formatter.recordDelimiter) + formatter.batchSuffix;
      const body = await gzip(Buffer.from(text, 'utf8'), { level: this.deps.gzipLevel });
      const batch = { jobId: job.id, objectKey: replayObjectKey(pathTemplate, job.id, startMs, endMs, part), body, contentType: plan.contentType, records: records.length };
      for (let attempt = 1; ; attempt++) {
        await check();
        const outcome = await destination.send(batch, signal);
        if (outcome.kind === 'delivered') break;
        if (signal.aborted) throw new ReplayAborted();
        if (outcome.kind === 'permanent' || attempt >= (this.deps.maxAttempts ?? 5)) throw new Error(`the destination refused part ${part}: ${outcome.reason}`);
        await sleep(outcome.afterMs ?? 1000 * 2 ** (attempt - 1), signal);
      }
      progress.exported += records.length;
      progress.objects_written += 1;
      part += 1;
      records = [];
      bytes = 0;
    };
    try {
      for await (const batch of readRetained(this.deps.source, replay.zoneId, window, httpRequests, httpRequests.fields)) {
        progress.events_read += batch.length;
        for (const record of batch) {
          if (!predicate(record) || !sampler(record)) continue;
          const text = formatter.format(record);
          const size = Buffer.byteLength(text, 'utf8');
          if (records.length > 0 && (records.length >= plan.batch.maxRecords || bytes + size > plan.batch.maxBytes)) await send();
          records.push(text);
          bytes += size;
        }
        await check();
      }
      await send();
    } finally {
      await destination.close();
    }
  }
}

/** Waits `ms`, or until the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
