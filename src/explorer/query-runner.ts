/**
 * Log Explorer's SQL on one node: a query of a zone reads that zone's retained segments only (both tiers,
 * opened for the query's window and released after it), in the zone's sandbox (sql-sandbox.ts, kept warm
 * by sandbox-pool.ts) on a connection of its own, within a
 * time limit (interrupted when it runs over), a memory limit and a cap on returned rows; at most
 * `concurrency` queries run at once and the next one is refused with 429 rather than queued behind a slow
 * one. DuckDB is loaded on the first query, so a node that never runs one never pays for it.
 */
import { AppError } from '../core/app-error.ts';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import { openRetained } from '../retention/retained-files.ts';
import type { SegmentStore } from '../retention/segment-store.ts';
import { explorerViewSql } from './explorer-view.ts';
import type { NamedColumns } from './named-columns.ts';
import { explorerWindow } from './query-window.ts';
import { loadDuckDB } from './duckdb-module.ts';
import { SandboxPool } from './sandbox-pool.ts';
import { startSandboxQuery, type SandboxAnswer } from './sandbox-query.ts';

/** The bounds every query runs within (LOGEXPORT_SQL_*). */
export interface ExplorerLimits {
  readonly timeoutMs: number;
  readonly memoryBytes: number;
  readonly maxRows: number;
  readonly concurrency: number;
}

/** What the runner reads and how it is bounded. */
export interface ExplorerDeps {
  readonly segments: SegmentStore;
  /** How long events are retained, in ms: a query reads that far back. */
  readonly retentionMs: number;
  readonly now: () => number;
  readonly limits: ExplorerLimits;
  /** DuckDB's worker threads per query. */
  readonly threads?: number;
}

/** Zones whose sandboxes are kept warm at most, and how long an unused one is kept. */
const maxWarmSandboxes = 8;
const warmSandboxIdleMs = 60_000;
/** How often an overdue query is interrupted again, in case the first interrupt came between two of its steps. */
const interruptEveryMs = 25;
/** What a refused query is told to wait, in seconds. */
const busyRetryAfterSeconds = 1;

export class ExplorerQueries {
  private readonly deps: ExplorerDeps;
  private readonly sandboxes: SandboxPool;
  private running = 0;

  constructor(deps: ExplorerDeps) {
    this.deps = deps;
    this.sandboxes = new SandboxPool({ memoryBytes: deps.limits.memoryBytes, threads: deps.threads ?? 2 }, { maxWarm: maxWarmSandboxes, idleMs: warmSandboxIdleMs, now: deps.now });
  }

  /** Closes the warm sandboxes (a query still running closes its own when it ends). */
  close(): void {
    this.sandboxes.close();
  }

  /** Queries running on this node now. */
  get active(): number {
    return this.running;
  }

  /** Runs one SELECT over the zone's `dataset` table; throws an AppError saying why when it cannot. */
  async run(zoneId: string, dataset: Dataset, sql: string): Promise<SandboxAnswer> {
    if (this.running >= this.deps.limits.concurrency) throw new AppError('sqlBusy', undefined, busyRetryAfterSeconds);
    this.running += 1;
    try {
      return await this.runNow(zoneId, dataset, sql);
    } finally {
      this.running -= 1;
    }
  }

  private async runNow(zoneId: string, dataset: Dataset, sql: string): Promise<SandboxAnswer> {
    const duck = await loadDuckDB();
    const opened = await openRetained(this.deps.segments, zoneId, explorerWindow(this.deps.now(), this.deps.retentionMs), dataset);
    let timer: NodeJS.Timeout | undefined;
    let repeat: NodeJS.Timeout | undefined;
    try {
      const viewSql = (columns: NamedColumns): string => explorerViewSql(dataset, opened.table, opened.columns, columns);
      const limits = this.deps.limits;
      const directory = this.deps.segments.zoneDirectory(zoneId);
      const query = startSandboxQuery(duck, this.sandboxes, { directory, viewSql, sql, maxRows: limits.maxRows });
      timer = setTimeout(() => {
        query.interrupt();
        repeat = setInterval(() => query.interrupt(), interruptEveryMs);
      }, limits.timeoutMs);
      return await query.answer;
    } finally {
      clearTimeout(timer);
      clearInterval(repeat);
      await opened.release();
    }
  }
}
