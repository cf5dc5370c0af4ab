/**
 * Capture of custom fields at ingest: the zone's `log_custom_field` rules are compiled once into a
 * `CapturePlan`; `captureCustomFields` runs the plan over each event's raw headers. This is on the ingest
 * hot path, so it scans with plain loops, allocates nothing when the plan is empty, and only the output
 * maps otherwise (plus one slot array, unless the caller lends one it reuses).
 */
import type { CustomFieldParameters } from '../domain/rulesets/custom-fields.ts';

/** The captured custom fields of one event; a map with nothing in it is left out. Maps have no prototype. */
export interface CapturedFields {
  readonly RequestHeaders?: Readonly<Record<string, string>>;
  readonly ResponseHeaders?: Readonly<Record<string, string>>;
  readonly Cookies?: Readonly<Record<string, string>>;
}

/** One name the plan captures: its output key, its UTF-8 size for the cap, and its slot in the fill order. */
interface PlannedField {
  readonly name: string;
  readonly nameBytes: number;
  readonly slot: number;
}

/** Planned fields indexed by name length (UTF-16 units), so most raw names are rejected by one array read. */
type FieldsByLength = readonly (readonly PlannedField[] | undefined)[];

/** The compiled custom-field configuration of a zone; build it with `compileCapturePlan`. */
export interface CapturePlan {
  /** True when nothing is configured: ingest can skip capture entirely. */
  readonly isEmpty: boolean;
  readonly requestHeaders: readonly PlannedField[];
  readonly responseHeaders: readonly PlannedField[];
  readonly cookies: readonly PlannedField[];
  readonly requestByLength: FieldsByLength;
  readonly responseByLength: FieldsByLength;
  readonly cookiesByLength: FieldsByLength;
  /** Slots are numbered in fill order: request headers, then response headers, then cookies. */
  readonly slotCount: number;
}

/** The cap on one event's captured names and values together, in UTF-8 bytes. */
export const defaultCaptureCapBytes = 8192;

/** The plan of a zone with no enabled custom fields. */
export const emptyCapturePlan: CapturePlan = Object.freeze({
  isEmpty: true,
  requestHeaders: [],
  responseHeaders: [],
  cookies: [],
  requestByLength: [],
  responseByLength: [],
  cookiesByLength: [],
  slotCount: 0,
});

/**
 * What capture kept of each planned name, by the name's slot (undefined: not captured), once the cap is
 * applied: the values of the output maps in fill order, which the retained copy writes from without
 * looking names up in the maps (captured-members.ts).
 */
export type CapturedValues = (string | undefined)[];

const nothingCaptured: CapturedFields = Object.freeze({});

/**
 * Compiles the enabled rules into a plan: names in configuration order (rules in order, then entries in
 * order), each name once. Header names are lower-cased here so the hot path compares without allocating.
 */
export function compileCapturePlan(
  rules: readonly { readonly enabled: boolean; readonly action_parameters: CustomFieldParameters }[],
): CapturePlan {
  const request: string[] = [];
  const response: string[] = [];
  const cookies: string[] = [];
  const add = (into: string[], name: string): void => {
    if (!into.includes(name)) into.push(name);
  };
  for (const rule of rules) {
    if (!rule.enabled) continue;
    const parameters = rule.action_parameters;
    for (const field of parameters.request_fields ?? []) add(request, field.name.toLowerCase());
    for (const field of parameters.response_fields ?? []) add(response, field.name.toLowerCase());
    for (const field of parameters.cookie_fields ?? []) add(cookies, field.name);
  }
  const slotCount = request.length + response.length + cookies.length;
  if (slotCount === 0) return emptyCapturePlan;

  const plan = (names: readonly string[], firstSlot: number): readonly PlannedField[] =>
    names.map((name, index) => ({ name, nameBytes: utf8ByteLength(name, Infinity), slot: firstSlot + index }));
  const requestHeaders = plan(request, 0);
  const responseHeaders = plan(response, request.length);
  const cookieFields = plan(cookies, request.length + response.length);
  return Object.freeze({
    isEmpty: false,
    requestHeaders,
    responseHeaders,
    cookies: cookieFields,
    requestByLength: indexByLength(requestHeaders),
    responseByLength: indexByLength(responseHeaders),
    cookiesByLength: indexByLength(cookieFields),
    slotCount,
  });
}

function indexByLength(fields: readonly PlannedField[]): FieldsByLength {
  const byLength: (PlannedField[] | undefined)[] = [];
  let longest = 0;
  for (const field of fields) longest = Math.max(longest, field.name.length);
  // A dense array (no holes) keeps the hot-path lookup a plain element read.
  for (let i = 0; i <= longest; i++) byLength.push(undefined);
  for (const field of fields) {
    const bucket = byLength[field.name.length];
    if (bucket === undefined) byLength[field.name.length] = [field];
    else bucket.push(field);
  }
  return byLength;
}

/**
 * Captures the plan's custom fields from one event's raw headers (`[name, value]` pairs in wire order):
 * the first instance of each header (names compared ignoring ASCII case) and the first occurrence of each
 * cookie in the request's `cookie` headers (exact case). Names and values of all three maps together are
 * capped at `capBytes` UTF-8 bytes, filled request headers → response headers → cookies, each in plan
 * order; the value that crosses the cap is cut at a character boundary and every later name is left out.
 * `lent` (of `plan.slotCount` slots), when given, is where the values are gathered — a caller reuses it from
 * one event to the next — and afterwards holds what the maps hold, by slot (untouched when the plan is empty).
 */
export function captureCustomFields(
  plan: CapturePlan,
  rawRequestHeaders: readonly (readonly [string, string])[],
  rawResponseHeaders: readonly (readonly [string, string])[],
  capBytes: number = defaultCaptureCapBytes,
  lent?: CapturedValues,
): CapturedFields {
  if (plan.isEmpty) return nothingCaptured;
  const values = lent === undefined ? new Array<string | undefined>(plan.slotCount) : lent;
  values.fill(undefined);

  let missingRequest = plan.requestHeaders.length;
  let missingCookies = plan.cookies.length;
  for (let i = 0; i < rawRequestHeaders.length && (missingRequest > 0 || missingCookies > 0); i++) {
    const header = rawRequestHeaders[i];
    if (header === undefined) continue;
    const name = header[0];
    if (missingCookies > 0 && name.length === 6 && equalsIgnoringAsciiCase(name, 'cookie')) {
      missingCookies -= captureCookies(plan.cookiesByLength, header[1], values);
    }
    if (missingRequest > 0 && fillHeader(plan.requestByLength, name, header[1], values)) missingRequest--;
  }

  let missingResponse = plan.responseHeaders.length;
  for (let i = 0; i < rawResponseHeaders.length && missingResponse > 0; i++) {
    const header = rawResponseHeaders[i];
    if (header === undefined) continue;
    if (fillHeader(plan.responseByLength, header[0], header[1], values)) missingResponse--;
  }

  return assemble(plan, values, capBytes);
}

/** Puts `value` into the slot of the planned header `name` if that slot is still empty; true when it did. */
function fillHeader(byLength: FieldsByLength, name: string, value: string, values: (string | undefined)[]): boolean {
  const bucket = byLength[name.length];
  if (bucket === undefined) return false;
  for (const field of bucket) {
    if (equalsIgnoringAsciiCase(name, field.name)) {
      if (values[field.slot] !== undefined) return false;
      values[field.slot] = value;
      return true;
    }
  }
  return false;
}

/**
 * Fills the slots of planned cookies from one `cookie` header (`a=1; b=2`): pairs split on `;`, name and
 * value trimmed of spaces and tabs, value kept as sent (quotes included). Returns how many slots it filled.
 */
function captureCookies(byLength: FieldsByLength, header: string, values: (string | undefined)[]): number {
  let filled = 0;
  const length = header.length;
  let position = 0;
  while (position < length) {
    let end = header.indexOf(';', position);
    if (end < 0) end = length;
    let start = position;
    while (start < end && isCookieSpace(header.charCodeAt(start))) start++;
    let equals = start;
    while (equals < end && header.charCodeAt(equals) !== 0x3d) equals++;
    // A pair without "=" has no name to match (RFC 6265bis gives it the empty name), so it is skipped.
    if (equals < end) {
      let nameEnd = equals;
      while (nameEnd > start && isCookieSpace(header.charCodeAt(nameEnd - 1))) nameEnd--;
      const bucket = byLength[nameEnd - start];
      if (bucket !== undefined) {
        for (const field of bucket) {
          if (values[field.slot] === undefined && header.startsWith(field.name, start)) {
            let valueStart = equals + 1;
            let valueEnd = end;
            while (valueStart < valueEnd && isCookieSpace(header.charCodeAt(valueStart))) valueStart++;
            while (valueEnd > valueStart && isCookieSpace(header.charCodeAt(valueEnd - 1))) valueEnd--;
            values[field.slot] = header.slice(valueStart, valueEnd);
            filled++;
            break;
          }
        }
      }
    }
    position = end + 1;
  }
  return filled;
}

function isCookieSpace(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** Whether `raw` equals the lower-case `lower`, folding only ASCII A–Z (header names are ASCII tokens). */
function equalsIgnoringAsciiCase(raw: string, lower: string): boolean {
  if (raw.length !== lower.length) return false;
  for (let i = 0; i < raw.length; i++) {
    let code = raw.charCodeAt(i);
    if (code >= 0x41 && code <= 0x5a) code += 0x20;
    if (code !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** Builds the output maps in fill order within the byte cap; `values` is left holding what they hold. */
function assemble(plan: CapturePlan, values: CapturedValues, capBytes: number): CapturedFields {
  // A cap that is not a non-negative number (NaN from a bad configuration) captures nothing rather than everything.
  const budget: Budget = { left: capBytes >= 0 ? capBytes : 0, stopped: false };
  const requestHeaders = fillMap(plan.requestHeaders, values, budget);
  const responseHeaders = fillMap(plan.responseHeaders, values, budget);
  const cookies = fillMap(plan.cookies, values, budget);
  if (requestHeaders === undefined && responseHeaders === undefined && cookies === undefined) return nothingCaptured;
  const captured: { RequestHeaders?: Record<string, string>; ResponseHeaders?: Record<string, string>; Cookies?: Record<string, string> } = {};
  if (requestHeaders !== undefined) captured.RequestHeaders = requestHeaders;
  if (responseHeaders !== undefined) captured.ResponseHeaders = responseHeaders;
  if (cookies !== undefined) captured.Cookies = cookies;
  return captured;
}

interface Budget {
  left: number;
  /** Set once a value was cut or a name did not fit: every later name is left out. */
  stopped: boolean;
}

/** The map of `fields` within the budget; each slot of `values` is left holding what the map holds. */
function fillMap(fields: readonly PlannedField[], values: CapturedValues, budget: Budget): Record<string, string> | undefined {
  let map: Record<string, string> | undefined;
  for (const field of fields) {
    const value = values[field.slot];
    if (value === undefined) continue;
    if (budget.stopped) {
      values[field.slot] = undefined;
      continue;
    }
    const room = budget.left - field.nameBytes;
    if (room < 0) {
      budget.stopped = true;
      values[field.slot] = undefined;
      continue;
    }
    const valueBytes = utf8ByteLength(value, room);
    let kept = value;
    if (valueBytes <= room) {
      budget.left = room - valueBytes;
    } else {
      budget.stopped = true;
      const end = utf8PrefixEnd(value, room);
      // A name whose value has no room for even one character is left out rather than shown empty.
      if (end === 0) {
        values[field.slot] = undefined;
        continue;
      }
      kept = value.slice(0, end);
      values[field.slot] = kept;
    }
    // No prototype, so names such as "__proto__" or "constructor" are ordinary own keys.
    map ??= Object.create(null) as Record<string, string>;
    map[field.name] = kept;
  }
  return map;
}

/**
 * The UTF-8 size of `text`, counting as `TextEncoder` does (a lone surrogate becomes U+FFFD, 3 bytes);
 * stops counting once the size exceeds `limit`, so a huge value costs no more than the room left.
 */
function utf8ByteLength(text: string, limit: number): number {
  let bytes = 0;
  const length = text.length;
  for (let i = 0; i < length && bytes <= limit; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The end index of the longest prefix of `text` within `budget` UTF-8 bytes that does not split a character. */
function utf8PrefixEnd(text: string, budget: number): number {
  let bytes = 0;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    let size = 3;
    let units = 1;
    if (code < 0x80) size = 1;
    else if (code < 0x800) size = 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      size = 4;
      units = 2;
    }
    if (bytes + size > budget) break;
    bytes += size;
    i += units;
  }
  return i;
}
