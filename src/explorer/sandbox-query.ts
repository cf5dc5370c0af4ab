/**
 * Runs one checked query on a connection of its own of the zone's sandbox (sandbox-pool.ts) and reads its
 * rows as JSON, at most `maxRows` of them: the answer is streamed from DuckDB chunk by chunk and reading
 * stops one row past the cap, so a query that would return millions of rows costs only what the cap reads. Column names are lower case in the answer, as
 * the public product answers them (docs/log-explorer.md); two names equal but for case get `_2`, `_3`….
 * `interrupt` stops a running query (the runner's time limit).
 */
import { AppError } from '../core/app-error.ts';
import type { DuckDBModule } from './duckdb-module.ts';
import { jsonConverter, setMember, type JsonValue } from './json-value.ts';
import { breaksInstance, type QueryOutcome, type SandboxPool } from './sandbox-pool.ts';
import { sqlAppError } from './sql-error.ts';
import { prepareSelect } from './statement-check.ts';

/** What a query answered: its rows (at most the cap), and whether more were cut. */
export interface SandboxAnswer {
  readonly rows: readonly Readonly<Record<string, JsonValue>>[];
  readonly truncated: boolean;
}

/** A query being run; `interrupt` may be called any number of times, before or while it runs. */
export interface RunningQuery {
  readonly answer: Promise<SandboxAnswer>;
  interrupt(): void;
}

/** The answer's keys: DuckDB's column names in lower case, made unique. */
export function answerKeys(names: readonly string[]): readonly string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    const lower = name.toLowerCase();
    let key = lower;
    for (let n = 2; seen.has(key); n++) key = `${lower}_${n}`;
    seen.add(key);
    return key;
  });
}

/** What a query reads and how much of its answer is kept. */
export interface SandboxQuery {
  /** The zone's directory: all its sandbox may read. */
  readonly directory: string;
  /** Makes the `http_requests` view (explorer-view.ts) over files under `directory`. */
  readonly viewSql: string;
  readonly sql: string;
  readonly maxRows: number;
}

/** Starts a query on the zone's sandbox from `pool`. */
export function startSandboxQuery(duck: DuckDBModule, pool: SandboxPool, query: SandboxQuery): RunningQuery {
  const { sql, maxRows } = query;
  let interrupted = false;
  let interruptNow: (() => void) | undefined;
  const answer = (async (): Promise<SandboxAnswer> => {
    const jsonOf = jsonConverter(duck);
    const lease = await pool.acquire(duck, query.directory, query.viewSql);
    let outcome: QueryOutcome = 'failed';
    try {
      const connection = lease.connection;
      interruptNow = () => connection.interrupt();
      if (interrupted) throw new AppError('sqlTimeout');
      const prepared = await prepareSelect(duck, connection, sql);
      if (interrupted) throw new AppError('sqlTimeout');
      const result = await prepared.stream();
      const keys = answerKeys(result.deduplicatedColumnNames());
      const rows: Record<string, JsonValue>[] = [];
      let truncated = false;
      for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
        for (const values of chunk.getRows()) {
          if (rows.length === maxRows) {
            truncated = true;
            break;
          }
          const row: Record<string, JsonValue> = {};
          values.forEach((value, i) => setMember(row, keys[i] as string, jsonOf(value)));
          rows.push(row);
        }
        if (truncated) break;
      }
      outcome = 'answered';
      return { rows, truncated };
    } catch (error) {
      if (breaksInstance(error)) outcome = 'broken';
      if (error instanceof AppError) throw error;
      if (interrupted) throw new AppError('sqlTimeout');
      throw sqlAppError(error, sql);
    } finally {
      interruptNow = undefined;
      lease.release(outcome);
    }
  })();
  return {
    answer,
    interrupt: () => {
      interrupted = true;
      interruptNow?.();
    },
  };
}
