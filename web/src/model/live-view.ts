/**
 * What the Instant Logs screen and the wizard's Preview show, from the messages of a live session's
 * WebSocket: records (one JSON object each), `dropped` control messages (records the server could not send
 * because the viewer fell behind) and `stats` control messages (events the session looked at, and how many
 * its filter and sample left out). Pure, so it is tested without a browser.
 */

/** One message of the stream, read. */
export type LiveMessage =
  | { readonly kind: 'record'; readonly text: string; readonly record: Readonly<Record<string, unknown>> }
  | { readonly kind: 'dropped'; readonly dropped: number; readonly total: number }
  | { readonly kind: 'stats'; readonly events: number; readonly filteredOut: number; readonly sampledOut: number }
  | { readonly kind: 'other' };

/** One row of the live table. */
export interface LiveRow {
  /** Counts up from 1 over everything received, so rows keep their identity as old ones fall off. */
  readonly seq: number;
  readonly text: string;
  readonly record: Readonly<Record<string, unknown>>;
}

/** The screen's state: the newest rows first, and the running totals. */
export interface LiveView {
  readonly rows: readonly LiveRow[];
  readonly received: number;
  readonly dropped: number;
  readonly events: number;
  readonly filteredOut: number;
  readonly sampledOut: number;
}

export const emptyLiveView: LiveView = { rows: [], received: 0, dropped: 0, events: 0, filteredOut: 0, sampledOut: 0 };

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

/** Reads one message's text. */
export function parseLiveMessage(text: string): LiveMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'other' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { kind: 'other' };
  const object = parsed as Record<string, unknown>;
  switch (object.control) {
    case undefined:
      return { kind: 'record', text, record: object };
    case 'dropped':
      return { kind: 'dropped', dropped: count(object.dropped), total: count(object.dropped_total) };
    case 'stats':
      return { kind: 'stats', events: count(object.events), filteredOut: count(object.filtered_out), sampledOut: count(object.sampled_out) };
    default:
      return { kind: 'other' };
  }
}

/** The view after one message; the table keeps the newest `maxRows` records. */
export function applyLiveMessage(view: LiveView, message: LiveMessage, maxRows: number): LiveView {
  switch (message.kind) {
    case 'record': {
      const row: LiveRow = { seq: view.received + 1, text: message.text, record: message.record };
      return { ...view, received: view.received + 1, rows: [row, ...view.rows.slice(0, Math.max(0, maxRows - 1))] };
    }
    case 'dropped':
      return { ...view, dropped: view.dropped + message.dropped };
    case 'stats':
      return { ...view, events: view.events + message.events, filteredOut: view.filteredOut + message.filteredOut, sampledOut: view.sampledOut + message.sampledOut };
    case 'other':
      return view;
  }
}

/**
 * What a Preview found: the records the filter kept (those the server could not send because the viewer fell
 * behind count too, and are named), the records it left out, and the events it looked at.
 */
export function previewSummary(view: LiveView): string {
  const kept = view.received + view.dropped;
  const notShown = view.dropped > 0 ? ` (${view.dropped} not shown: they came faster than the preview could take them)` : '';
  return `${kept} record${kept === 1 ? '' : 's'} kept${notShown}, ${view.filteredOut} left out by the filter, of ${view.events} received.`;
}

/** Records per second over the samples `[time ms, records received]` taken once a second, oldest first. */
export function recordsPerSecond(samples: readonly (readonly [number, number])[]): number {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined || last[0] <= first[0]) return 0;
  return ((last[1] - first[1]) * 1000) / (last[0] - first[0]);
}

/** A field's value as a table cell: strings as they are, anything else as its JSON, absent as empty. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

/** `sample` as the API takes it (a whole number from 1), or undefined when the text is not one. */
export function parseSample(text: string): number | undefined {
  const t = text.trim();
  if (!/^[1-9]\d{0,6}$/.test(t)) return undefined;
  const n = Number(t);
  return n <= 1_000_000 ? n : undefined;
}

/** The live table's columns: the session's fields, `RayID` first (it names a request), less those hidden. */
export function tableColumns(fieldNames: readonly string[], hidden: ReadonlySet<string>): string[] {
  const ordered = fieldNames.includes('RayID') ? ['RayID', ...fieldNames.filter((f) => f !== 'RayID')] : [...fieldNames];
  return ordered.filter((f) => !hidden.has(f));
}
