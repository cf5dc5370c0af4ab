/**
 * Keeps one runner per enabled job on this node: on start, and whenever configuration changes (a job
 * created, changed, enabled, disabled or deleted — here or on another node), it compares the enabled jobs
 * with its runners, starts the missing ones, and replaces a runner whose job changed (the old one aborts;
 * what it held stays queued, and the new one re-reads it).
 */
import type { FilterLimits } from '../domain/filters/parse-filter.ts';
import type { Job, Store } from '../store/store.ts';
import type { CounterRegistry } from './counter-registry.ts';
import { compileJobPlan } from '../ingest/job-plan.ts';
import { CoalescedRuns } from '../core/coalesced-runs.ts';
import type { Logger } from '../core/logger.ts';
import { JobRunner, type RunnerDeps } from './job-runner.ts';

/** What the supervisor needs to build runners. */
export interface SupervisorDeps extends Omit<RunnerDeps, 'counters' | 'onDisabled' | 'log' | 'persistCounters' | 'countedBefore'> {
  readonly store: Store;
  readonly log: Logger;
  readonly counters: CounterRegistry;
  readonly filterLimits: FilterLimits;
  /** Told when a runner disabled its job, so the rest of the node learns the configuration changed. */
  readonly onJobDisabled: (job: Job) => void;
}

/** A job's settings as far as the runner is concerned; a change means a new runner. */
function runKey(job: Job): string {
  return JSON.stringify([job.updatedAt, job.destinationConf, job.filter, job.outputOptions, job.logpullOptions, job.maxUploadBytes, job.maxUploadRecords, job.maxUploadIntervalSeconds]);
}

export class Supervisor {
  private readonly deps: SupervisorDeps;
  private readonly runners = new Map<number, { runner: JobRunner; key: string }>();
  private stopped = false;
  private readonly syncs = new CoalescedRuns(() =>
    this.sync().catch((error: unknown) => this.deps.log.error({ err: error }, 'Could not bring the job runners up to date; will retry on the next change.')),
  );

  constructor(deps: SupervisorDeps) {
    this.deps = deps;
  }

  /** Starts runners for the enabled jobs. */
  async start(): Promise<void> {
    await this.sync();
  }

  /** Schedules a comparison of jobs and runners; calls close together are merged into one. */
  requestSync(): Promise<void> {
    return this.stopped ? this.syncs.idle() : this.syncs.request();
  }

  /** The jobs this node runs now. */
  runningJobIds(): readonly number[] {
    return [...this.runners.keys()];
  }

  private async sync(): Promise<void> {
    if (this.stopped) return;
    const jobs = await this.deps.store.listEnabledJobs();
    const wanted = new Map(jobs.map((job) => [job.id, job] as const));
    const stops: Promise<void>[] = [];
    for (const [id, entry] of this.runners) {
      const job = wanted.get(id);
      if (job === undefined || runKey(job) !== entry.key) {
        this.runners.delete(id);
        stops.push(entry.runner.stop('abort'));
      }
    }
    await Promise.all(stops);
    for (const job of jobs) {
      if (this.runners.has(job.id) || this.stopped) continue;
      const plan = compileJobPlan(job, this.deps.filterLimits);
      if (!plan.ok) {
        this.deps.log.error({ jobId: job.id, problems: plan.error }, `Job ${job.id} cannot run: ${plan.error.map((p) => p.message).join('; ')}`);
        continue;
      }
      const runner = new JobRunner(job, plan.value, {
        ...this.deps,
        counters: await this.deps.counters.forJob(job.id),
        persistCounters: () => this.deps.counters.flushJob(job.id),
        countedBefore: (rangeId) => this.deps.counters.wasCounted(job.id, rangeId),
        onDisabled: (disabled) => {
          this.deps.onJobDisabled(disabled);
          void this.requestSync();
        },
      });
      this.runners.set(job.id, { runner, key: runKey(job) });
      runner.start();
    }
  }

  /** Stops every runner: each delivers what it holds until the deadline (ms since the epoch). */
  async stop(deadlineMs: number): Promise<void> {
    this.stopped = true;
    await this.syncs.idle();
    const runners = [...this.runners.values()];
    this.runners.clear();
    await Promise.all(runners.map((entry) => entry.runner.stop('drain', deadlineMs)));
  }
}
