/**
 * The time range the Analytics tab shows: the last hour, 24 hours or 7 days up to now, or a custom
 * from–to in UTC; each with the width of one chart bucket, so a chart has at most `maxBuckets` points.
 * Pure (the time is passed in), so it is tested without a browser.
 */

/** The range choices, as the range picker lists them. */
export type RangeChoice = 'hour' | 'day' | 'week' | 'custom';

export const rangeLabels: Readonly<Record<RangeChoice, string>> = { hour: 'Last hour', day: 'Last 24 hours', week: 'Last 7 days', custom: 'Custom' };

/** A window of time and its bucket width, in Unix seconds: `from` inclusive, `to` exclusive. */
export interface TimeWindow {
  readonly from: number;
  readonly to: number;
  readonly step: number;
}

/** The most points a chart of the range draws. */
export const maxBuckets = 168;

/** Bucket widths a window may use, in seconds: a minute up to a day. */
const steps = [60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400] as const;

/** The longest custom range: the longest retention anyone is likely to keep (a year). */
export const maxRangeSeconds = 366 * 86_400;

const presets: Readonly<Record<Exclude<RangeChoice, 'custom'>, { readonly seconds: number; readonly step: number }>> = {
  hour: { seconds: 3600, step: 60 },
  day: { seconds: 86_400, step: 900 },
  week: { seconds: 7 * 86_400, step: 3600 },
};

/** A preset range ending with the bucket now falls in (so the current minute is shown). */
export function presetWindow(choice: Exclude<RangeChoice, 'custom'>, nowMs: number): TimeWindow {
  const { seconds, step } = presets[choice];
  const to = Math.floor(nowMs / 1000 / step) * step + step;
  return { from: to - seconds, to, step };
}

/** The narrowest bucket that keeps a window within `maxBuckets` points. */
export function stepFor(seconds: number): number {
  return steps.find((step) => seconds / step <= maxBuckets) ?? 86_400;
}

/** Seconds since the epoch of a `datetime-local` value (`2026-11-26T16:00`, seconds optional) read as UTC. */
export function utcInputSeconds(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/.test(text)) return undefined;
  const ms = Date.parse(`${text}Z`);
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

/** A `datetime-local` value (UTC) for seconds since the epoch, to the minute. */
export function utcInputText(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16);
}

/** A custom range from the two inputs, or what is wrong with them. */
export function customWindow(fromText: string, toText: string): { readonly ok: true; readonly window: TimeWindow } | { readonly ok: false; readonly message: string } {
  const from = utcInputSeconds(fromText);
  const to = utcInputSeconds(toText);
  if (from === undefined || to === undefined) return { ok: false, message: 'Enter both a start and an end (UTC).' };
  if (to <= from) return { ok: false, message: 'The end must be after the start.' };
  if (to - from > maxRangeSeconds) return { ok: false, message: 'A custom range can be at most 366 days long.' };
  return { ok: true, window: { from, to, step: stepFor(to - from) } };
}

/** The window's bucket as words: "1 minute", "15 minutes", "1 hour", "1 day". */
export function stepText(step: number): string {
  if (step % 86_400 === 0) return step === 86_400 ? '1 day' : `${step / 86_400} days`;
  if (step % 3600 === 0) return step === 3600 ? '1 hour' : `${step / 3600} hours`;
  return step === 60 ? '1 minute' : `${step / 60} minutes`;
}
