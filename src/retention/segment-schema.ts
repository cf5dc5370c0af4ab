/**
 * The columns of a retained segment: one per dataset field, typed from the field catalogue, plus
 * `_received_ms`, the time ingest received the event (what Logpull and replay select by). A compacted
 * segment is a Parquet file and a hot one NDJSON in zstd frames; any SQL engine reads either directly, and
 * DuckDB reads both as one table with these types (docs/retention.md lists the mapping). Pure.
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

/** A column of a retained table and its DuckDB (and Parquet) type. */
export interface RetainedColumn {
  readonly name: string;
  readonly type: string;
}

/**
 * The columns of a zone's retained events, in the order a compacted segment stores them: the receive time,
 * then every field of the dataset. A hot segment read with these (`read_json(…, columns=…)`) is the same
 * table as a compacted one.
 */
export function retainedColumns(dataset: Dataset): readonly RetainedColumn[] {
  return [{ name: receivedColumn, type: 'BIGINT' }, ...dataset.fields.map((f) => ({ name: f.name, type: columnTypeOf(f.type) }))];
}

/** The `columns={…}` argument of DuckDB's read_json for a dataset's hot segments. */
export function readJsonColumns(dataset: Dataset): string {
  return `{${retainedColumns(dataset).map((c) => `${sqlString(c.name)}: ${sqlString(c.type)}`).join(', ')}}`;
}

/** A DuckDB table of hot segments (local files of zstd frames of NDJSON), typed like a compacted segment. */
export function hotTableSql(paths: readonly string[], dataset: Dataset): string {
  return `read_json([${paths.map(sqlString).join(', ')}], format='newline_delimited', compression='zstd', columns=${readJsonColumns(dataset)})`;
}

/** A DuckDB table of compacted segments (local Parquet files). */
export function compactedTableSql(paths: readonly string[]): string {
  return `read_parquet([${paths.map(sqlString).join(', ')}])`;
}

/** One table of both tiers' files (undefined when there are none): what every reader of retained events selects from. */
export function retainedTableSql(compactedPaths: readonly string[], hotPaths: readonly string[], dataset: Dataset): string | undefined {
  const compacted = compactedPaths.length > 0 ? compactedTableSql(compactedPaths) : undefined;
  const hot = hotPaths.length > 0 ? hotTableSql(hotPaths, dataset) : undefined;
  // One tier alone is read as it is: a query binds a union of one part ~0.5 ms more slowly.
  if (compacted === undefined || hot === undefined) return compacted ?? hot;
  // By name: a segment compacted before the dataset gained a field reads it as NULL.
  return `(SELECT * FROM ${compacted} UNION ALL BY NAME SELECT * FROM ${hot})`;
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
