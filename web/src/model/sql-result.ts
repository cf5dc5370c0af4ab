/**
 * A Log Explorer answer read the same way whatever case its keys come in: the public product answers
 * lower-case column names, so every query the dashboard writes gives its columns lower-case aliases and
 * every row is read case-insensitively. Pure, so it is tested without a browser.
 */

/** One row of a SQL answer: column name → value (numbers, RFC 3339 strings, objects, null). */
export type SqlRow = Readonly<Record<string, unknown>>;

/** The columns of an answer, in the order they first appear (the query's order: JSON objects keep it). */
export function resultColumns(rows: readonly SqlRow[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

/** The value of a column, its name matched exactly first and then without regard to case. */
export function rowValue(row: SqlRow, column: string): unknown {
  if (Object.hasOwn(row, column)) return row[column];
  const lower = column.toLowerCase();
  const key = Object.keys(row).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : row[key];
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Milliseconds since the epoch of a date-time text (UTC when it names no offset), or undefined. */
export function timeValueMs(value: unknown): number | undefined {
  if (typeof value !== 'string' || !rfc3339.test(value)) return undefined;
  // Date.parse takes `Z` or `+hh:mm` only, and reads a time without an offset as local time.
  const text = value
    .replace(' ', 'T')
    .replace(/([+-]\d{2}):?(\d{2})$/, '$1:$2')
    .replace(/(T[\d:.]+[+-]\d{2})$/, '$1:00');
  const ms = Date.parse(/(?:Z|[+-]\d{2}:\d{2})$/i.test(text) ? text : `${text}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A number a column holds: a JSON number, or a numeric string (DuckDB's HUGEINT and DECIMAL may come as text). */
export function numberValue(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(value.trim())) return Number(value);
  return undefined;
}
