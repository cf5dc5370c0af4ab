/**
 * The columns of a retained segment: one per dataset field, typed from the field catalogue, plus
 * `_received_ms`, the time the queue stored the event (what Logpull and replay select by). A segment is
 * a Parquet file any SQL engine reads directly (docs/retention.md lists the mapping). Pure.
 */
import type { Dataset, FieldType } from '../domain/datasets/http-requests.ts';

/** The column holding the receive time (Unix milliseconds); no dataset field starts with `_`. */
export const receivedColumn = '_received_ms';

/** The DuckDB (and Parquet) type a field is stored as. */
export function columnTypeOf(type: FieldType): string {
  switch (type) {
    case 'string':
      return 'VARCHAR';
    case 'int':
      return 'BIGINT';
    case 'float':
      return 'DOUBLE';
    case 'bool':
      return 'BOOLEAN';
    // Decimal strings of Unix nanoseconds, as the pipeline carries them: exact for every year up to 9999.
    case 'timestamp':
      return 'VARCHAR';
    case 'string[]':
      return 'VARCHAR[]';
    case 'int[]':
      return 'BIGINT[]';
    // The captured header and cookie maps, kept as their JSON text.
    case 'object':
      return 'JSON';
  }
}

/** A SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A quoted SQL identifier. */
export function sqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The `columns={…}` argument of DuckDB's read_json for a dataset's segments. */
export function readJsonColumns(dataset: Dataset): string {
  const columns = dataset.fields.map((f) => `${sqlString(f.name)}: ${sqlString(columnTypeOf(f.type))}`);
  return `{${columns.join(', ')}}`;
}

/**
 * The SELECT expression that reads a field back as the pipeline's canonical JavaScript value: integers as
 * doubles (JavaScript numbers, exact up to 2^53, as ingest accepted them), everything else as stored.
 */
export function selectExpression(name: string, type: FieldType): string {
  const column = sqlIdentifier(name);
  switch (type) {
    case 'int':
      return `CAST(${column} AS DOUBLE) AS ${column}`;
    case 'int[]':
      return `CAST(${column} AS DOUBLE[]) AS ${column}`;
    case 'string':
    case 'float':
    case 'bool':
    case 'timestamp':
    case 'string[]':
    case 'object':
      return column;
  }
}
