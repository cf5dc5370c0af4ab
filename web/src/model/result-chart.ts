/**
 * Whether a Log Explorer result can be drawn over time, and how: a column of date-times is the time
 * axis (the first, if several), each numeric column a line; with one text column beside them (a status class, a host) the first
 * numeric column is drawn once per value of that text column. Pure, so it is tested without a browser.
 */
import { numberValue, rowValue, timeValueMs, type SqlRow } from './sql-result.ts';
import { seriesByCategory, seriesByColumn, type TimeSeries } from './time-series.ts';

/** The most lines a chart draws: more are unreadable, and the table holds them anyway. */
export const maxChartSeries = 12;

/** A result's chart, or why it has none. */
export type ResultChart =
  | { readonly kind: 'chart'; readonly timeColumn: string; readonly valueColumns: readonly string[]; readonly categoryColumn: string | undefined; readonly data: TimeSeries }
  | { readonly kind: 'none'; readonly reason: string };

function every(rows: readonly SqlRow[], column: string, test: (value: unknown) => boolean): boolean {
  let seen = false;
  for (const row of rows) {
    const value = rowValue(row, column);
    if (value === null || value === undefined) continue;
    if (!test(value)) return false;
    seen = true;
  }
  return seen;
}

/** The chart of a result with these columns. */
export function resultChart(columns: readonly string[], rows: readonly SqlRow[]): ResultChart {
  const timeColumn = columns.find((c) => every(rows, c, (v) => timeValueMs(v) !== undefined));
  if (timeColumn === undefined) return { kind: 'none', reason: 'No chart: the result has no date-time column.' };
  const rest = columns.filter((c) => c !== timeColumn);
  const valueColumns = rest.filter((c) => every(rows, c, (v) => numberValue(v) !== undefined));
  if (valueColumns.length === 0) return { kind: 'none', reason: 'No chart: the result has no numeric column beside its time column.' };
  // Further date-time columns (a request's end beside its start) are neither lines nor categories.
  const textColumns = rest.filter(
    (c) => !valueColumns.includes(c) && !every(rows, c, (v) => timeValueMs(v) !== undefined) && rows.some((row) => rowValue(row, c) !== null && rowValue(row, c) !== undefined),
  );
  if (textColumns.length > 1) return { kind: 'none', reason: `No chart: the result has more than one column besides the time and the numbers (${textColumns.join(', ')}).` };
  const categoryColumn = textColumns[0];
  const firstValue = valueColumns[0] ?? '';
  const data = categoryColumn === undefined ? seriesByColumn(rows, timeColumn, valueColumns) : seriesByCategory(rows, timeColumn, categoryColumn, firstValue);
  if (data.series.length > maxChartSeries) return { kind: 'none', reason: `No chart: it would draw ${data.series.length} lines (at most ${maxChartSeries}).` };
  return { kind: 'chart', timeColumn, valueColumns: categoryColumn === undefined ? valueColumns : [firstValue], categoryColumn, data };
}
