/**
 * The `http_requests` table a Log Explorer query sees: a view over the zone's retained segments (both
 * tiers, retained-files.ts) that types each field for SQL. Timestamp fields, kept as decimal strings of Unix
 * nanoseconds, become TIMESTAMPTZ (so `EdgeStartTimestamp >= now() - INTERVAL '1' HOUR` works); the captured
 * header and cookie maps, kept as JSON text, become MAP(VARCHAR, VARCHAR) (`RequestHeaders['user-agent']`);
 * every other field keeps its segment type. The receive time (`_received_ms`) is the store's, not the
 * dataset's, and is left out.
 *
 * A query that names its columns gets a view of those only (named-columns.ts says which a query names):
 * DuckDB binds every column of a view each time a query reads it, ~2 ms for all 108 against next to nothing
 * for the few a GROUP BY names, and the columns it does name are the same either way. Pure.
 */
import type { Dataset, FieldType } from '../domain/datasets/http-requests.ts';
import { sqlIdentifier, type RetainedColumn } from '../retention/segment-schema.ts';
import type { NamedColumns } from './named-columns.ts';

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
 * `CREATE OR REPLACE TEMP VIEW http_requests AS …` over `table` (retainedTableSql's expression), or over an
 * empty relation of the retained `columns` when the zone has no segment in the window: of the fields
 * `named` holds, or of every field. A query that names none (`SELECT count(*) FROM http_requests`) gets the
 * first integer field, as a view needs a column.
 */
export function explorerViewSql(dataset: Dataset, table: string | undefined, retained: readonly RetainedColumn[], named: NamedColumns = 'all'): string {
  const fields = named === 'all' ? dataset.fields : dataset.fields.filter((f) => named.has(f.name.toLowerCase()));
  const columns = (fields.length > 0 ? fields : dataset.fields.filter((f) => f.type === 'int').slice(0, 1)).map((f) => columnExpression(f.name, f.type)).join(', ');
  return `CREATE OR REPLACE TEMP VIEW ${sqlIdentifier(explorerTableName(dataset))} AS SELECT ${columns} FROM ${table ?? emptyRetainedSql(retained)}`;
}

/** An empty relation with a dataset's retained columns, for a zone with nothing retained in the window. */
function emptyRetainedSql(columns: readonly RetainedColumn[]): string {
  return `(SELECT ${columns.map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdentifier(c.name)}`).join(', ')} LIMIT 0)`;
}
