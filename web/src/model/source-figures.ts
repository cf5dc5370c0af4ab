/**
 * The Sources page's figures as rows to show: every figure the server answers, the known ones first with
 * their labels, then any other under a label made from its name, so figures a newer server adds appear
 * without a change here. Pure, so it is tested without a browser.
 */
import type { IngestFigures, ZoneIngestFigures } from '../api/zone-sources.ts';

/** One row: a count, counts by reason, a time, or text. */
export type FigureRow =
  | { readonly kind: 'count'; readonly key: string; readonly label: string; readonly value: number }
  | { readonly kind: 'reasons'; readonly key: string; readonly label: string; readonly counts: readonly (readonly [string, number])[]; readonly total: number }
  | { readonly kind: 'time'; readonly key: string; readonly label: string; readonly value: string | null }
  | { readonly kind: 'text'; readonly key: string; readonly label: string; readonly value: string };

/** Labels of the figures the page knows, in the order it shows them. */
const knownLabels: readonly (readonly [string, string])[] = [
  ['requests', 'Requests'],
  ['rejected_requests', 'Requests refused whole'],
  ['accepted_events', 'Events accepted'],
  ['dropped', 'Events dropped'],
  ['rejected_events', 'Events rejected'],
  ['last_event_at', 'Last event'],
  ['lines_read', 'Lines read'],
  ['lines_accepted', 'Lines accepted'],
  ['lines_rejected', 'Lines rejected (errors)'],
  ['lines_unknown_host', 'Lines for no domain'],
  ['bytes_behind', 'Bytes behind'],
  ['offset', 'Bytes read'],
  ['last_line_at', 'Last line'],
  ['rotations', 'Rotations'],
  ['paused', 'Paused (the queue is full)'],
  ['last_error_at', 'Last error'],
];

/** What each reason of a count by reason means. */
export const reasonLabels: Readonly<Record<string, string>> = {
  no_job: 'no enabled job',
  unknown_host: 'no domain for the host',
};

/** Labels of the ways in. */
export const wayInLabels: Readonly<Record<string, string>> = { http: 'HTTP ingest', otlp: 'OTLP', tail: 'From tailed files' };

/** A figure's label: the known one, or its name in words (`bytes_skipped` → "Bytes skipped"). */
export function figureLabel(key: string): string {
  const known = knownLabels.find(([k]) => k === key)?.[1];
  if (known !== undefined) return known;
  const words = key.replace(/_at$/, '').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function isCounts(value: unknown): value is Readonly<Record<string, number>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((n) => typeof n === 'number');
}

/** The rows of an object of figures, leaving out the keys in `skip`. */
export function figureRows(figures: Readonly<Record<string, unknown>>, skip: readonly string[] = []): FigureRow[] {
  const order = (key: string) => {
    const index = knownLabels.findIndex(([k]) => k === key);
    return index === -1 ? knownLabels.length : index;
  };
  const keys = Object.keys(figures)
    .filter((key) => !skip.includes(key))
    .sort((a, b) => order(a) - order(b));
  const rows: FigureRow[] = [];
  for (const key of keys) {
    const value = figures[key];
    const label = figureLabel(key);
    if (typeof value === 'number') rows.push({ kind: 'count', key, label, value });
    else if (typeof value === 'boolean') rows.push({ kind: 'text', key, label, value: value ? 'yes' : 'no' });
    else if (key.endsWith('_at') && (value === null || typeof value === 'string')) rows.push({ kind: 'time', key, label, value });
    else if (isCounts(value)) {
      const counts = Object.entries(value).filter(([, n]) => n > 0);
      rows.push({ kind: 'reasons', key, label, counts, total: counts.reduce((sum, [, n]) => sum + n, 0) });
    } else if (typeof value === 'string') rows.push({ kind: 'text', key, label, value });
    else if (value === null) rows.push({ kind: 'text', key, label, value: '—' });
  }
  return rows;
}

/** Events of the zone checked and dropped because no enabled job exports them. */
export function noJobDrops(ingest: IngestFigures | null | undefined): number {
  const n = ingest?.dropped?.no_job;
  return typeof n === 'number' ? n : 0;
}

/** The ways in the server counts separately, in a fixed order (known ones first). */
export function waysIn(ingest: ZoneIngestFigures): (readonly [string, IngestFigures])[] {
  const ways = Object.entries(ingest.way_in ?? {});
  const order = (way: string) => {
    const index = Object.keys(wayInLabels).indexOf(way);
    return index === -1 ? Infinity : index;
  };
  return ways.sort(([a], [b]) => order(a) - order(b));
}
