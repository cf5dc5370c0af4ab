/**
 * The `http_requests` table a Log Explorer query sees: a view over the zone's retained segments (both
 * tiers, retained-files.ts) that types each field for SQL. Timestamp fields, kept as decimal strings of Unix
 * nanoseconds, become TIMESTAMPTZ (so `EdgeStartTimestamp >= now() - INTERVAL '1' HOUR` works); the captured
 * header and cookie maps, kept as JSON text, become MAP(VARCHAR, VARCHAR) (`RequestHeaders['user-agent']`);
 * every other field keeps its segment type. The receive time (`_received_ms`) is the store's, not the
 * dataset's, and is left out. Pure.
 */
import type { Dataset, FieldType } from '../domain/datasets/http-requests.ts';
import { sqlIdentifier, type RetainedColumn } from '../retention/segment-schema.ts';

/** The table name queries select from (the dataset's id). */
export function explorerTableName(dataset: Dataset): string {
  return dataset.id;
}

function columnExpression(name: string, type: FieldType): string {
  const column = sqlIdentifier(name);
  switch (type) {
    case 'timestamp':
      return `make_timestamp_ns(TRY_CAST(${column} AS BIGINT))::TIMESTAMPTZ AS ${column}`;
    case 'object':
      return `TRY_CAST(${column} AS MAP(VARCHAR, VARCHAR)) AS ${column}`;
    case 'string':
    case 'int':
    case 'float':
    case 'bool':
    case 'string[]':
    case 'int[]':
      return column;
  }
}

/**
 * `CREATE TEMP VIEW http_requests AS …` over `table` (retainedTableSql's expression), or over an empty
 * relation of the retained `columns` when the zone has no segment in the window.
 */
export function explorerViewSql(dataset: Dataset, table: string | undefined, retained: readonly RetainedColumn[]): string {
  const columns = dataset.fields.map((f) => columnExpression(f.name, f.type)).join(', ');
  return `CREATE TEMP VIEW ${sqlIdentifier(explorerTableName(dataset))} AS SELECT ${columns} FROM ${table ?? emptyRetainedSql(retained)}`;
}

/** An empty relation with a dataset's retained columns, for a zone with nothing retained in the window. */
function emptyRetainedSql(columns: readonly RetainedColumn[]): string {
  return `(SELECT ${columns.map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdentifier(c.name)}`).join(', ')} LIMIT 0)`;
}
