/**
 * Series over time built from SQL rows, in the shape uPlot draws: one list of times (Unix seconds,
 * ascending, each once) and, per series, one value for each time (null where a series has none). Pure,
 * so it is tested without a browser.
 */
import { numberValue, rowValue, timeValueMs, type SqlRow } from './sql-result.ts';

/** One named line (or band) of a chart. */
export interface Series {
  readonly label: string;
  readonly values: readonly (number | null)[];
}

/** Series sharing one time axis. */
export interface TimeSeries {
  /** Unix seconds, ascending, each once. */
  readonly times: readonly number[];
  readonly series: readonly Series[];
}

const collator = new Intl.Collator('en', { numeric: true });

function build(points: Map<number, Map<string, number>>, labels: readonly string[]): TimeSeries {
  const times = [...points.keys()].sort((a, b) => a - b);
  return {
    times,
    series: labels.map((label) => ({ label, values: times.map((t) => points.get(t)?.get(label) ?? null) })),
  };
}

function add(points: Map<number, Map<string, number>>, time: number, label: string, value: number): void {
  const at = points.get(time) ?? new Map<string, number>();
  at.set(label, (at.get(label) ?? 0) + value);
  points.set(time, at);
}

/** One series per value column; rows of the same time add up; a row whose time cannot be read is left out. */
export function seriesByColumn(rows: readonly SqlRow[], timeColumn: string, valueColumns: readonly string[]): TimeSeries {
  const points = new Map<number, Map<string, number>>();
  for (const row of rows) {
    const ms = timeValueMs(rowValue(row, timeColumn));
    if (ms === undefined) continue;
    for (const column of valueColumns) {
      const n = numberValue(rowValue(row, column));
      if (n !== undefined) add(points, Math.floor(ms / 1000), column, n);
    }
  }
  return build(points, valueColumns);
}

/**
 * One series per value of `categoryColumn` (`2xx`, `3xx`…), each the sum of `valueColumn` at each time.
 * Series come in the categories' natural order (`2xx` before `10xx`); an empty category is `(none)`.
 */
export function seriesByCategory(rows: readonly SqlRow[], timeColumn: string, categoryColumn: string, valueColumn: string): TimeSeries {
  const points = new Map<number, Map<string, number>>();
  const labels = new Set<string>();
  for (const row of rows) {
    const ms = timeValueMs(rowValue(row, timeColumn));
    const n = numberValue(rowValue(row, valueColumn));
    if (ms === undefined || n === undefined) continue;
    const raw = rowValue(row, categoryColumn);
    const label = raw === null || raw === undefined || raw === '' ? '(none)' : String(raw);
    labels.add(label);
    add(points, Math.floor(ms / 1000), label, n);
  }
  return build(points, [...labels].sort(collator.compare));
}

/**
 * The series on a regular axis from `from` (inclusive) to `to` (exclusive) every `step` seconds. A time
 * with no row takes `missing`: 0 for counts (a minute without requests is a minute of no traffic, not a
 * gap), null for ratios (no requests, no error rate). Times off the grid are moved down onto it; times
 * outside the window are left out.
 */
export function fillTimes(data: TimeSeries, from: number, to: number, step: number, missing: 0 | null = 0): TimeSeries {
  const start = Math.floor(from / step) * step;
  const times: number[] = [];
  for (let t = start; t < to; t += step) times.push(t);
  const index = new Map(times.map((t, i) => [t, i]));
  return {
    times,
    series: data.series.map((s) => {
      const values: (number | null)[] = times.map(() => missing);
      data.times.forEach((t, i) => {
        const at = index.get(Math.floor(t / step) * step);
        const v = s.values[i];
        if (at !== undefined && v !== null && v !== undefined) values[at] = (values[at] ?? 0) + v;
      });
      return { label: s.label, values };
    }),
  };
}

/**
 * The series stacked: each one's values are its own plus those of the series before it, so drawn as
 * filled bands the top of the last is the total. A missing value counts 0.
 */
export function stackSeries(data: TimeSeries): TimeSeries {
  const running = data.times.map(() => 0);
  return {
    times: data.times,
    series: data.series.map((s) => ({
      label: s.label,
      values: running.map((sum, i) => (running[i] = sum + (s.values[i] ?? 0))),
    })),
  };
}

/** Each series' sum over the whole axis, for a legend that reads without hovering. */
export function seriesTotals(data: TimeSeries): { readonly label: string; readonly total: number }[] {
  return data.series.map((s) => ({ label: s.label, total: s.values.reduce<number>((sum, v) => sum + (v ?? 0), 0) }));
}

/** Each series' largest value over the axis (null when it has none), for rates, which do not add up. */
export function seriesPeaks(data: TimeSeries): { readonly label: string; readonly peak: number | null }[] {
  return data.series.map((s) => ({ label: s.label, peak: s.values.reduce<number | null>((max, v) => (v === null || (max !== null && max >= v) ? max : v), null) }));
}
