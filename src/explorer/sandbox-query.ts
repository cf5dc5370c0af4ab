/**
 * Runs one checked query on a connection of its own of the zone's sandbox (sandbox-pool.ts) and reads its
 * rows as JSON, at most `maxRows` of them: the answer is streamed from DuckDB chunk by chunk and reading
 * stops one row past the cap, so a query that would return millions of rows costs only what the cap reads. Column names are lower case in the answer, as
 * the public product answers them (docs/log-explorer.md); two names equal but for case get `_2`, `_3`….
 * `interrupt` stops a running query (the runner's time limit).
 */
import type { DuckDBConnection, DuckDBDataChunk, DuckDBResult, DuckDBValue } from '@duckdb/node-api';
import { AppError } from '../core/app-error.ts';
import type { DuckDBModule } from './duckdb-module.ts';
import { setMember } from '../core/set-member.ts';
import { jsonConverter, type JsonValue } from './json-value.ts';
import { breaksInstance, type QueryOutcome, type SandboxPool } from './sandbox-pool.ts';
import { sqlAppError } from './sql-error.ts';
import { checkSelect, isSelectResult, knownSelect, prepareSelect } from './statement-check.ts';
import type { NamedColumns } from './named-columns.ts';

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

/** Whether DuckDB refused the query while binding it (a name it could not resolve), before running anything. */
function bindingError(error: unknown): boolean {
  return !(error instanceof AppError) && /^(Binder|Catalog) Error/.test(error instanceof Error ? error.message : String(error));
}

/** Whether DuckDB's error says the query needed more memory than its limit. */
function outOfMemory(error: unknown): boolean {
  return /^Out of Memory Error/.test(error instanceof Error ? error.message : String(error));
}

/**
 * Runs a checked SELECT. Its answer is first made whole inside DuckDB (the cheapest way: a prepared or
 * streamed statement is bound and planned twice, ~2 ms more per query); an answer too large for the memory
 * limit is streamed instead, so it is cut at the row cap rather than refused.
 */
async function runSelect(duck: DuckDBModule, connection: DuckDBConnection, sql: string): Promise<DuckDBResult> {
  let result: DuckDBResult;
  try {
    result = await connection.run(sql);
  } catch (error) {
    if (!outOfMemory(error)) throw error;
    result = await (await prepareSelect(duck, connection, sql)).stream();
  }
  if (!isSelectResult(duck, result)) throw new AppError('sqlNotSelect');
  return result;
}

/** A result's chunks: a whole one's read where they are, a streamed one's fetched one by one. */
async function* chunksOf(duck: DuckDBModule, result: DuckDBResult): AsyncGenerator<DuckDBDataChunk> {
  if (result instanceof duck.DuckDBMaterializedResult) {
    for (let i = 0; i < result.chunkCount; i++) yield result.getChunk(i);
    return;
  }
  for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) yield chunk;
}

/** What a query reads and how much of its answer is kept. */
export interface SandboxQuery {
  /** The zone's directory: all its sandbox may read. */
  readonly directory: string;
  /** Makes the `http_requests` view (explorer-view.ts) of these columns over files under `directory`. */
  readonly viewSql: (columns: NamedColumns) => string;
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
    const known = knownSelect(sql);
    const knownView = known === undefined ? undefined : query.viewSql(known);
    const lease = await pool.acquire(duck, query.directory, knownView);
    let outcome: QueryOutcome = 'failed';
    try {
      const connection = lease.connection;
      interruptNow = () => connection.interrupt();
      if (interrupted) throw new AppError('sqlTimeout');
      const columns = await checkSelect(connection, sql);
      if (interrupted) throw new AppError('sqlTimeout');
      // A known text's columns come back as they were remembered, so its view is the one already made.
      await lease.view(columns === known && knownView !== undefined ? knownView : query.viewSql(columns));
      let result: DuckDBResult;
      try {
        result = await runSelect(duck, connection, sql);
      } catch (error) {
        if (columns === 'all' || interrupted || !bindingError(error)) throw error;
        // A narrower view can only change what binds: a query that does not bind on it is told what the whole
        // view would tell it (a misspelt column's candidates are every field), and should a name have been
        // missed, it is answered. A query that failed while running would fail the same way again.
        await lease.view(query.viewSql('all'));
        result = await runSelect(duck, connection, sql);
      }
      const keys = answerKeys(result.deduplicatedColumnNames());
      const rows: Record<string, JsonValue>[] = [];
      let truncated = false;
      for await (const chunk of chunksOf(duck, result)) {
        const columns = chunk.getColumns();
        for (let r = 0; r < chunk.rowCount; r++) {
          if (rows.length === maxRows) {
            truncated = true;
            break;
          }
          const row: Record<string, JsonValue> = {};
          for (let c = 0; c < keys.length; c++) setMember(row, keys[c] as string, jsonOf((columns[c] as DuckDBValue[])[r] as DuckDBValue));
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
