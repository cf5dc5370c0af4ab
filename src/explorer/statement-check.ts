/**
 * The one statement a Log Explorer query may be: DuckDB itself splits the text into statements (exactly one
 * is allowed), parses it (its own serializer accepts SELECT statements only, which refuses PRAGMA, SET,
 * COPY, ATTACH, INSTALL, LOAD, CREATE… before anything is bound), and prepares it (the prepared statement's
 * type must be SELECT). No SQL is parsed by hand. The sandbox (sql-sandbox.ts) refuses what a SELECT could
 * still reach (files, URLs, settings).
 */
import type { DuckDBConnection, DuckDBExtractedStatements, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { DuckDBModule } from './duckdb-module.ts';
import { AppError } from '../core/app-error.ts';
import { sqlAppError } from './sql-error.ts';


/** Whether DuckDB's serializer takes `sql` as a SELECT; its parser's message when it does not parse. */
async function serializerVerdict(connection: DuckDBConnection, sql: string): Promise<{ readonly select: boolean; readonly parserError?: string }> {
  const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS tree', [sql]);
  const text = reader.getRowObjects()[0]?.tree;
  const tree = JSON.parse(typeof text === 'string' ? text : '{}') as { error?: boolean; error_type?: string; error_message?: string };
  if (tree.error !== true) return { select: true };
  return tree.error_type === 'parser' ? { select: false, parserError: tree.error_message ?? 'syntax error' } : { select: false };
}

/** Prepares `sql` as the query's one SELECT, or throws the answer that says why it is not one. */
export async function prepareSelect(duck: DuckDBModule, connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  if (sql.trim() === '') throw new AppError('sqlInvalid', 'The query is empty: send one SELECT over http_requests, such as SELECT count(*) FROM http_requests');
  let extracted: DuckDBExtractedStatements;
  try {
    extracted = await connection.extractStatements(sql);
  } catch (error) {
    throw sqlAppError(error, sql);
  }
  const count = extracted.count;
  if (count !== 1) throw new AppError('sqlNotSelect', `The query holds ${count} statements; Log Explorer runs exactly one SELECT statement over http_requests`);
  const verdict = await serializerVerdict(connection, sql);
  if (verdict.parserError !== undefined) throw new AppError('sqlInvalid', `Parser Error: ${verdict.parserError}`);
  if (!verdict.select) throw new AppError('sqlNotSelect');
  let prepared: DuckDBPreparedStatement;
  try {
    prepared = await extracted.prepare(0);
  } catch (error) {
    throw sqlAppError(error, sql);
  }
  if (prepared.statementType !== duck.StatementType.SELECT) throw new AppError('sqlNotSelect');
  return prepared;
}
