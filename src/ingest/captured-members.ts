/**
 * The captured custom fields of an event as the JSON members a retained line carries
 * (`"RequestHeaders":{…},"ResponseHeaders":{…},"Cookies":{…}`), written straight into the line's bytes from
 * the zone's capture plan: the text `JSON.stringify` gives for the captured maps, without their braces.
 *
 * `JSON.stringify` walks the maps as dictionaries (they have no prototype), which measured ~0.8 µs per
 * event for the benchmark's four fields, and its string then has to be encoded into the line: more than
 * the rest of the retained copy. The plan already knows every name, in the order capture fills them, so
 * each name's JSON is encoded once here, and a value is copied character by character while checking that
 * it holds nothing JSON escapes. Nothing is left for the garbage collector. Pure but for `into`.
 */
import type { CapturePlan, CapturedFields } from './capture.ts';

/** Writes an event's captured maps as JSON members (nothing when capture found nothing). */
export interface CapturedMembersWriter {
  /** The bytes the members take at most. */
  bound(captured: CapturedFields): number;
  /** Writes them into `into` at `at`, which has room for `bound` bytes; answers where they end. */
  write(captured: CapturedFields, into: Buffer, at: number): number;
}

/** A name JavaScript keeps as an array index, which objects list before every other name. */
const arrayIndex = /^(?:0|[1-9]\d{0,9})$/;
const comma = 0x2c;
const quote = 0x22;
const backslash = 0x5c;
const closingBrace = 0x7d;
/** UTF-8 bytes a character of a value takes at most, escaped (`\u001f`). */
const maxBytesPerChar = 6;

/**
 * Writes `value` at `at` as its characters, when it is ASCII that JSON writes as it is (no quote, backslash
 * or control character: nearly every header value); answers where it ends, or -1 for any other value (then
 * what it wrote is to be overwritten). A loop over the characters, as Buffer#write's call costs more than
 * a short value's copy.
 */
function writePlain(value: string, into: Buffer, at: number): number {
  const length = value.length;
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === quote || code === backslash || code >= 0x80) return -1;
    into[at + i] = code;
  }
  return at + length;
}

/** The members as `JSON.stringify` writes them, for any maps. */
export function stringifiedMembers(captured: CapturedFields): string {
  return JSON.stringify(captured).slice(1, -1);
}

/** The writer for any maps, through `JSON.stringify` (a plan's own writer is faster). */
export const stringifiedMembersWriter: CapturedMembersWriter = {
  bound: (captured) => 3 * stringifiedMembers(captured).length,
  write: (captured, into, at) => at + into.write(stringifiedMembers(captured), at, 'utf8'),
};

/** The writer for a plan's maps: the same bytes as `JSON.stringify`, for any plan. */
export function compileCapturedMembers(plan: CapturePlan): CapturedMembersWriter {
  const maps = [
    { key: 'RequestHeaders', fields: plan.requestHeaders },
    { key: 'ResponseHeaders', fields: plan.responseHeaders },
    { key: 'Cookies', fields: plan.cookies },
  ] as const;
  // An index-like name (a cookie named "1") moves ahead of the others in JSON.stringify's order, not in the plan's.
  if (maps.some((map) => map.fields.some((field) => arrayIndex.test(field.name) && Number(field.name) < 2 ** 32 - 1))) return stringifiedMembersWriter;
  const compiled = maps
    .filter((map) => map.fields.length > 0)
    .map((map) => ({
      key: map.key,
      lead: Buffer.from(`${JSON.stringify(map.key)}:{`, 'utf8'),
      fields: map.fields.map((field) => ({ name: field.name, lead: Buffer.from(`${JSON.stringify(field.name)}:`, 'utf8') })),
    }));
  return {
    bound(captured) {
      let bytes = 0;
      for (const map of compiled) {
        const values = captured[map.key];
        if (values === undefined) continue;
        bytes += map.lead.length + 2;
        for (const field of map.fields) {
          const value = values[field.name];
          if (value !== undefined) bytes += field.lead.length + maxBytesPerChar * value.length + 3;
        }
      }
      return bytes;
    },
    write(captured, into, at) {
      let cursor = at;
      for (const map of compiled) {
        const values = captured[map.key];
        if (values === undefined) continue;
        if (cursor > at) into[cursor++] = comma;
        into.set(map.lead, cursor);
        cursor += map.lead.length;
        const first = cursor;
        for (const field of map.fields) {
          const value = values[field.name];
          if (value === undefined) continue;
          if (cursor > first) into[cursor++] = comma;
          into.set(field.lead, cursor);
          cursor += field.lead.length;
          into[cursor] = quote;
          const plainEnd = writePlain(value, into, cursor + 1);
          if (plainEnd < 0) cursor += into.write(JSON.stringify(value), cursor, 'utf8');
          else {
            into[plainEnd] = quote;
            cursor = plainEnd + 1;
          }
        }
        into[cursor++] = closingBrace;
      }
      return cursor;
    },
  };
}
