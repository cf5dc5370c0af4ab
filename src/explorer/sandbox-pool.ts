/**
 * Warm Log Explorer sandboxes: one locked DuckDB instance per zone directory (sql-sandbox.ts), kept between
 * the zone's queries, so a query pays for a connection and its view (under a millisecond) instead of a new
 * instance (10–20 ms to create and ~5 to close). At most `maxWarm` idle instances are kept: the least
 * recently used idle one is closed when a zone needs a new one, and one idle for `idleMs` is closed by a
 * sweep. An instance a query found broken (DuckDB invalidates a database after a fatal error) is dropped at
 * once, so the zone's next query gets a new one.
 */
import type { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBModule } from './duckdb-module.ts';
import { createSandbox, type SandboxLimits } from './sql-sandbox.ts';

/** A zone's instance lent to one query; `release` once, after the query's connection is closed. */
export interface SandboxLease {
  readonly instance: DuckDBInstance;
  /** `broken`: the query's error said the instance can no longer be used. */
  release(broken: boolean): void;
}

/** How many instances are kept and for how long. */
export interface SandboxPoolOptions {
  readonly maxWarm: number;
  readonly idleMs: number;
  readonly now: () => number;
}

interface Warm {
  readonly instance: Promise<DuckDBInstance>;
  /** The instance once created, so it is closed at once rather than a turn later. */
  ready?: DuckDBInstance;
  busy: number;
  lastUsedMs: number;
  /** No longer lent: closed as soon as no query holds it. */
  dropped: boolean;
}

function closeInstance(warm: Warm): void {
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

  /** Instances kept now, lent or idle. */
  get size(): number {
    return this.warm.size;
  }

  /** The instance that reads `directory` only, warm when one is kept. */
  async acquire(duck: DuckDBModule, directory: string): Promise<SandboxLease> {
    let lent = this.warm.get(directory);
    if (lent === undefined) {
      lent = { instance: createSandbox(duck, directory, this.limits), busy: 1, lastUsedMs: this.options.now(), dropped: false };
      this.warm.set(directory, lent);
      this.evictBeyond(this.options.maxWarm);
    } else {
      lent.busy += 1;
      // Most recently used last.
      this.warm.delete(directory);
      this.warm.set(directory, lent);
    }
    let instance: DuckDBInstance;
    try {
      instance = await lent.instance;
      lent.ready = instance;
    } catch (error) {
      lent.busy -= 1;
      this.drop(directory, lent);
      throw error;
    }
    const held = lent;
    let released = false;
    return {
      instance,
      release: (broken) => {
        if (released) return;
        released = true;
        held.busy -= 1;
        held.lastUsedMs = this.options.now();
        if (broken) this.drop(directory, held);
        else if (held.dropped && held.busy === 0) closeInstance(held);
      },
    };
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
    if (warm.busy === 0) closeInstance(warm);
  }
}
