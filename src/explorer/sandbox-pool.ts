/**
 * Warm Log Explorer sandboxes: one locked DuckDB instance per zone directory (sql-sandbox.ts), kept between
 * the zone's queries, so a query pays for a connection and its view instead of a new instance (10–20 ms to
 * create and ~5 to close). A connection whose query ended well is kept too, with its view, and lent again:
 * first to a query that asks for the same view (the same files and columns), or else to any query, which
 * makes its own view on it. Only SELECTs run on it, so it carries nothing from one query to the next but
 * the view.
 *
 * At most `maxWarm` zones' instances are kept: the least recently used idle one is closed when a zone needs
 * a new one, and one idle for `idleMs` is closed by a sweep. An instance a query found broken (DuckDB
 * invalidates a database after a fatal error) is dropped at once, so the zone's next query gets a new one.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBModule } from './duckdb-module.ts';
import { createSandbox, type SandboxLimits } from './sql-sandbox.ts';

/** Whether DuckDB's error means its database can no longer be used (it invalidates one after a fatal error). */
export function breaksInstance(error: unknown): boolean {
  return /^(FATAL|INTERNAL) Error|invalidated/m.test(error instanceof Error ? error.message : String(error));
}

/** How a query's connection is given back: kept for the next query, closed, or closed with its instance. */
export type QueryOutcome = 'answered' | 'failed' | 'broken';

/** A connection of the zone's sandbox, lent to one query; `release` once. */
export interface SandboxLease {
  readonly connection: DuckDBConnection;
  /** Makes `viewSql` (explorer-view.ts: `CREATE OR REPLACE TEMP VIEW …`) the connection's view, unless it is already. */
  view(viewSql: string): Promise<void>;
  release(outcome: QueryOutcome): void;
}

/** How many instances are kept and for how long. */
export interface SandboxPoolOptions {
  readonly maxWarm: number;
  readonly idleMs: number;
  readonly now: () => number;
}

/**
 * Idle connections kept per zone, each with its view: as many as the views the dashboard's Analytics tab asks
 * for (its 9 panels name 7 sets of fields), so refreshing it makes no view again while the files stay the same.
 */
const maxIdleConnections = 8;

interface Lent {
  viewSql: string | undefined;
  readonly connection: DuckDBConnection;
}

interface Warm {
  readonly instance: Promise<DuckDBInstance>;
  /** The instance once created, so it is closed at once rather than a turn later. */
  ready?: DuckDBInstance;
  /** Connections no query holds, with the view each has (none yet: undefined); most recently used last. */
  readonly idle: Lent[];
  busy: number;
  lastUsedMs: number;
  /** No longer lent: closed as soon as no query holds it. */
  dropped: boolean;
}

function closeWarm(warm: Warm): void {
  for (const { connection } of warm.idle.splice(0)) connection.closeSync();
  if (warm.ready !== undefined) warm.ready.closeSync();
  // Still being created (or failed to be: nothing to close).
  else warm.instance.then((instance) => instance.closeSync()).catch(() => undefined);
}

export class SandboxPool {
  private readonly limits: SandboxLimits;
  private readonly options: SandboxPoolOptions;
  /** By directory, least recently used first. */
  private readonly warm = new Map<string, Warm>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(limits: SandboxLimits, options: SandboxPoolOptions) {
    this.limits = limits;
    this.options = options;
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(1000, options.idleMs / 2));
    this.sweeper.unref();
  }

  /** Zones whose instances are kept now, lent or idle. */
  get size(): number {
    return this.warm.size;
  }

  /**
   * A connection of the sandbox that reads `directory` only: one that has `viewSql` made when one is idle,
   * else the most recently used idle one, else a new one.
   */
  async acquire(duck: DuckDBModule, directory: string, viewSql?: string): Promise<SandboxLease> {
    const warm = this.lend(duck, directory);
    let instance: DuckDBInstance;
    try {
      instance = await warm.instance;
      warm.ready = instance;
    } catch (error) {
      this.giveBack(directory, warm, undefined, 'broken');
      throw error;
    }
    const at = warm.idle.findIndex((c) => c.viewSql === viewSql);
    const held = (at >= 0 ? warm.idle.splice(at, 1)[0] : warm.idle.pop()) ?? (await this.connect(directory, warm, instance));
    let released = false;
    return {
      connection: held.connection,
      view: async (wanted) => {
        if (held.viewSql === wanted) return;
        held.viewSql = undefined;
        await held.connection.run(wanted);
        held.viewSql = wanted;
      },
      release: (outcome) => {
        if (released) return;
        released = true;
        this.giveBack(directory, warm, held, outcome);
      },
    };
  }

  /** A new connection of the zone's instance, without a view yet. */
  private async connect(directory: string, warm: Warm, instance: DuckDBInstance): Promise<Lent> {
    try {
      return { viewSql: undefined, connection: await instance.connect() };
    } catch (error) {
      this.giveBack(directory, warm, undefined, breaksInstance(error) ? 'broken' : 'failed');
      throw error;
    }
  }

  /** Closes every instance no query holds; the others close when their queries end. */
  close(): void {
    clearInterval(this.sweeper);
    for (const [directory, warm] of [...this.warm]) this.drop(directory, warm);
  }

  /** Closes instances idle for `idleMs`. */
  closeIdle(): void {
    const now = this.options.now();
    for (const [directory, warm] of [...this.warm]) if (warm.busy === 0 && now - warm.lastUsedMs >= this.options.idleMs) this.drop(directory, warm);
  }

  /** The zone's instance (made when there is none), counted as held. */
  private lend(duck: DuckDBModule, directory: string): Warm {
    let warm = this.warm.get(directory);
    if (warm === undefined) {
      warm = { instance: createSandbox(duck, directory, this.limits), idle: [], busy: 1, lastUsedMs: this.options.now(), dropped: false };
      this.warm.set(directory, warm);
      this.evictBeyond(this.options.maxWarm);
      return warm;
    }
    warm.busy += 1;
    // Most recently used last.
    this.warm.delete(directory);
    this.warm.set(directory, warm);
    return warm;
  }

  private giveBack(directory: string, warm: Warm, lent: Lent | undefined, outcome: QueryOutcome): void {
    warm.busy -= 1;
    warm.lastUsedMs = this.options.now();
    if (lent !== undefined) {
      if (outcome === 'answered' && !warm.dropped) {
        warm.idle.push(lent);
        if (warm.idle.length > maxIdleConnections) warm.idle.shift()?.connection.closeSync();
      } else lent.connection.closeSync();
    }
    if (outcome === 'broken') this.drop(directory, warm);
    else if (warm.dropped && warm.busy === 0) closeWarm(warm);
  }

  private evictBeyond(max: number): void {
    for (const [directory, warm] of [...this.warm]) {
      if (this.warm.size <= max) return;
      if (warm.busy === 0) this.drop(directory, warm);
    }
  }

  private drop(directory: string, warm: Warm): void {
    if (this.warm.get(directory) === warm) this.warm.delete(directory);
    if (warm.dropped) return;
    warm.dropped = true;
    if (warm.busy === 0) closeWarm(warm);
  }
}
