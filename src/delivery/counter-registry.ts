import type { Clock } from '../core/clock.ts';
import type { Store } from '../store/store.ts';
import {
  addCounterValues,
  emptyCounterValues,
  JobCounters,
  mergeSeries,
  type JobCounterValues,
  type SeriesPoint,
  type StoredCounters,
} from './job-counters.ts';

/** A job's counters as the API answers them: every node's, with this node's batches not yet done included. */
export interface JobTotals {
  /** `pending`: records read into a batch that is not done yet (open, or being delivered and retried). */
  readonly counters: JobCounterValues & { readonly pending: number };
  readonly series: readonly SeriesPoint[];
}

function parseStored(text: string): StoredCounters | undefined {
  try {
    const value = JSON.parse(text) as StoredCounters;
    return typeof value === 'object' && value !== null && typeof value.counters === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The counters of this node's jobs: handed to runners, written to the store every few seconds (one row
 * per job and node), and summed with the other nodes' rows when the API asks.
 */
export class CounterRegistry {
  private readonly jobs = new Map<number, JobCounters>();
  private readonly store: Store;
  private readonly clock: Clock;
  readonly nodeId: string;

  constructor(store: Store, clock: Clock, nodeId: string) {
    this.store = store;
    this.clock = clock;
    this.nodeId = nodeId;
  }

  /** The live counters of a job on this node, continuing from what this node stored before a restart. */
  async forJob(jobId: number): Promise<JobCounters> {
    const existing = this.jobs.get(jobId);
    if (existing !== undefined) return existing;
    const rows = await this.store.listJobCounters(jobId);
    const own = rows.find((r) => r.node === this.nodeId);
    const counters = this.jobs.get(jobId) ?? new JobCounters(own === undefined ? undefined : parseStored(own.counters));
    this.jobs.set(jobId, counters);
    return counters;
  }

  /** Forgets a deleted job. */
  forget(jobId: number): void {
    this.jobs.delete(jobId);
  }

  /**
   * Writes one after another, each taking its snapshot when its turn comes, so an older snapshot never
   * lands after a newer one (a periodic flush racing a runner's write before a commit).
   */
  private writing: Promise<void> = Promise.resolve();

  private write(jobId: number, counters: JobCounters): Promise<void> {
    const next = this.writing.then(async () => {
      const now = this.clock.now();
      counters.dirty = false;
      await this.store.putJobCounters({
        jobId,
        node: this.nodeId,
        counters: JSON.stringify(counters.snapshot(now)),
        updatedAt: new Date(now).toISOString(),
      });
    });
    this.writing = next.catch(() => {});
    return next;
  }

  /** Writes every changed job's counters to the store. */
  async flush(): Promise<void> {
    for (const [jobId, counters] of this.jobs) {
      if (counters.dirty) await this.write(jobId, counters);
    }
  }

  /** Writes one job's counters now (a runner does, before it commits a batch it counted). */
  async flushJob(jobId: number): Promise<void> {
    const counters = this.jobs.get(jobId);
    if (counters !== undefined) await this.write(jobId, counters);
  }

  /** Whether a batch's range was counted already, here or by a node that stored it before it stopped. */
  async wasCounted(jobId: number, rangeId: string): Promise<boolean> {
    if (this.jobs.get(jobId)?.countedRange === rangeId) return true;
    const rows = await this.store.listJobCounters(jobId);
    return rows.some((row) => parseStored(row.counters)?.counted_range === rangeId);
  }

  /**
   * The job's counters summed over every node: this node's live values and the others' stored rows. The
   * records of this node's batches not done yet count as received (and as filtered out, sampled out or
   * dropped when they were), and those waiting to be delivered as `pending`; other nodes' open batches
   * are counted once done, as a node that stopped leaves its open batches to be read again.
   */
  async total(jobId: number): Promise<JobTotals> {
    const now = this.clock.now();
    const rows = await this.store.listJobCounters(jobId);
    const parts: StoredCounters[] = [];
    for (const row of rows) {
      if (row.node === this.nodeId && this.jobs.has(jobId)) continue;
      const stored = parseStored(row.counters);
      if (stored !== undefined) parts.push(stored);
    }
    const live = this.jobs.get(jobId);
    if (live !== undefined) parts.push(live.snapshot(now));
    const counters = emptyCounterValues();
    for (const part of parts) addCounterValues(counters, part.counters);
    const open = live?.pending();
    let pending = 0;
    if (open !== undefined) {
      addCounterValues(counters, { ...emptyCounterValues(), received: open.received, filtered_out: open.filtered_out, sampled_out: open.sampled_out, dropped: open.dropped });
      pending = open.received - open.filtered_out - open.sampled_out - Object.values(open.dropped).reduce((sum, n) => sum + n, 0);
    }
    return { counters: { ...counters, pending }, series: mergeSeries(parts.map((p) => p.series), now) };
  }

  /** This node's live counters, for /metrics. */
  live(): ReadonlyMap<number, JobCounters> {
    return this.jobs;
  }
}
