/**
 * The one statement a Log Explorer query may be: DuckDB itself parses the text (its own serializer accepts
 * SELECT statements only, which refuses PRAGMA, SET, COPY, ATTACH, INSTALL, LOAD, CREATE… before anything is
 * bound, and counts them: exactly one is allowed), and the statement DuckDB ran or prepared says it is a
 * SELECT. No SQL is parsed by hand. The sandbox (sql-sandbox.ts) refuses what a SELECT could
 * still reach (files, URLs, settings).
 */
import type { DuckDBConnection, DuckDBExtractedStatements, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { DuckDBModule } from './duckdb-module.ts';
import { AppError } from '../core/app-error.ts';
import { sqlAppError } from './sql-error.ts';
import { sqlString } from '../retention/segment-schema.ts';
import { namedColumns, type NamedColumns } from './named-columns.ts';

/**
 * Texts the serializer found to be one SELECT, with the columns each names (named-columns.ts), most recently
 * checked last. Both depend on the text alone, so a text asked again (a dashboard panel's query, a script
 * polling the same question) is not parsed again: one call into DuckDB less, and its narrower view is known
 * before a connection is chosen. Refusals are not kept (they are errors, and cheap enough).
 */
const knownSelects = new Map<string, NamedColumns>();
const maxKnownSelects = 256;
/** Longer texts are checked every time, so the set holds at most a few megabytes. */
const maxKnownLength = 16 * 1024;

function remember(sql: string, columns: NamedColumns): void {
  if (sql.length > maxKnownLength) return;
  knownSelects.set(sql, columns);
  if (knownSelects.size > maxKnownSelects) knownSelects.delete(knownSelects.keys().next().value as string);
}

/** The columns `sql` names when it was found to be one SELECT before (marked most recently used), else undefined. */
export function knownSelect(sql: string): NamedColumns | undefined {
  const columns = knownSelects.get(sql);
  if (columns === undefined) return undefined;
  knownSelects.delete(sql);
  knownSelects.set(sql, columns);
  return columns;
}

/** What DuckDB's serializer says of `sql`: how many SELECT statements it holds, or that it is not only SELECTs. */
type SerializerVerdict = { readonly selects: number; readonly columns: NamedColumns } | { readonly selects?: undefined; readonly parserError?: string };

async function serializerVerdict(connection: DuckDBConnection, sql: string): Promise<SerializerVerdict> {
  // The text as a literal rather than a parameter, and the one row read where DuckDB made it: one call into
  // DuckDB instead of a prepared statement's four. A literal has one escape (a doubled quote), and
  // `checkSelect` refused NUL before.
  const result = await connection.run(`SELECT json_serialize_sql(${sqlString(sql)}) AS tree`);
  const text = result.chunkCount > 0 ? result.getChunk(0).getColumnVector(0).getItem(0) : undefined;
  const tree = JSON.parse(typeof text === 'string' ? text : '{}') as { error?: boolean; error_type?: string; error_message?: string; statements?: unknown[] };
  if (tree.error !== true) return { selects: Array.isArray(tree.statements) ? tree.statements.length : 0, columns: namedColumns(tree.statements) };
  return tree.error_type === 'parser' ? { parserError: tree.error_message ?? 'syntax error' } : {};
}

function statementCountError(count: number): AppError {
  return new AppError('sqlNotSelect', `The query holds ${count} statements; Log Explorer runs exactly one SELECT statement over http_requests`);
}

/**
 * Why `sql` is not one SELECT, once the serializer refused it: DuckDB's statement splitter says it most
 * precisely (a syntax error with where it is, or how many statements there are). Only refused queries pay
 * for this second look.
 */
async function refusal(connection: DuckDBConnection, sql: string, verdict: { readonly parserError?: string }): Promise<AppError> {
  let extracted: DuckDBExtractedStatements;
  try {
    extracted = await connection.extractStatements(sql);
  } catch (error) {
    return sqlAppError(error, sql);
  }
  if (extracted.count !== 1) return statementCountError(extracted.count);
  if (verdict.parserError !== undefined) return new AppError('sqlInvalid', `Parser Error: ${verdict.parserError}`);
  return new AppError('sqlNotSelect');
}

/**
 * Throws the answer that says why `sql` is not one SELECT statement; when it is one, returns the columns it
 * names.
 */
export async function checkSelect(connection: DuckDBConnection, sql: string): Promise<NamedColumns> {
  if (sql.trim() === '') throw new AppError('sqlInvalid', 'The query is empty: send one SELECT over http_requests, such as SELECT count(*) FROM http_requests');
  // DuckDB takes a query's text as a C string: what follows a NUL would be checked here but not run.
  if (sql.includes('\0')) throw new AppError('sqlInvalid', 'The query holds a NUL character');
  const known = knownSelect(sql);
  if (known !== undefined) return known;
  const verdict = await serializerVerdict(connection, sql);
  if (verdict.selects === undefined) throw await refusal(connection, sql, verdict);
  if (verdict.selects !== 1) throw statementCountError(verdict.selects);
  remember(sql, verdict.columns);
  return verdict.columns;
}

/** Whether a result came from a SELECT statement (what `checkSelect` let through; checked again on the result). */
export function isSelectResult(duck: DuckDBModule, result: { readonly statementType: number }): boolean {
  return result.statementType === duck.StatementType.SELECT;
}

/** Prepares `sql`, checked by `checkSelect`, as a statement whose type DuckDB says is SELECT. */
export async function prepareSelect(duck: DuckDBModule, connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  let prepared: DuckDBPreparedStatement;
  try {
    prepared = await connection.prepare(sql);
  } catch (error) {
    throw sqlAppError(error, sql);
  }
  if (prepared.statementType !== duck.StatementType.SELECT) throw new AppError('sqlNotSelect');
  return prepared;
}
