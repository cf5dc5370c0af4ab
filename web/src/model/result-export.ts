/**
 * A Log Explorer result as a file to download: CSV (RFC 4180: a header row, fields quoted when they hold a
 * comma, a quote or a line break; maps and lists as JSON) or NDJSON (one JSON object a line, the columns in
 * the result's order). Pure, so it is tested without a browser.
 */
import { cellText } from './live-view.ts';
import { rowValue, type SqlRow } from './sql-result.ts';

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The rows as CSV, lines ending in CRLF. */
export function rowsToCsv(columns: readonly string[], rows: readonly SqlRow[]): string {
  const lines = [columns.map(csvField).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvField(cellText(rowValue(row, c)))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** One row as a JSON object holding `columns` in order (a column the row lacks is null). */
export function rowJson(columns: readonly string[], row: SqlRow, indent?: number): string {
  return JSON.stringify(Object.fromEntries(columns.map((c) => [c, rowValue(row, c) ?? null])), null, indent);
}

/** The rows as NDJSON: one JSON object a line, each line ending in LF. */
export function rowsToNdjson(columns: readonly string[], rows: readonly SqlRow[]): string {
  return rows.map((row) => `${rowJson(columns, row)}\n`).join('');
}
