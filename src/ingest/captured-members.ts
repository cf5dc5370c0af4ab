/**
 * The captured custom fields of an event as the JSON members a retained line carries
 * (`"RequestHeaders":{…},"ResponseHeaders":{…},"Cookies":{…}`), written straight into the line's bytes from
 * the zone's capture plan: the text `JSON.stringify` gives for the captured maps, without their braces.
 *
 * `JSON.stringify` walks the maps as dictionaries (they have no prototype), which measured ~0.8 µs per
 * event for the benchmark's four fields, and its string then has to be encoded into the line: more than
 * the rest of the retained copy. The plan already knows every name, in the order capture fills them, so
 * each name's JSON is encoded once here, and the values are read by their slots (what capture kept of each
 * name, capture.ts) rather than looked up in the maps by name, which cost as much as the writing. A value
 * is copied character by character while checking that it holds nothing JSON escapes. Nothing is left for
 * the garbage collector. Pure but for `into`.
 */
import type { CapturePlan, CapturedFields, CapturedValues } from './capture.ts';

/** Writes what capture kept of an event, by slot, as the JSON members of its maps (nothing when capture found nothing). */
export interface CapturedMembersWriter {
  /** The bytes the members take at most. */
  bound(values: CapturedValues): number;
  /** Writes them into `into` at `at`, which has room for `bound` bytes; answers where they end. */
  write(values: CapturedValues, into: Buffer, at: number): number;
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

/** Writes `value` as a JSON string at `at`; answers where it ends. */
function writeValue(value: string, into: Buffer, at: number): number {
  into[at] = quote;
  const plainEnd = writePlain(value, into, at + 1);
  if (plainEnd < 0) return at + into.write(JSON.stringify(value), at, 'utf8');
  into[plainEnd] = quote;
  return plainEnd + 1;
}

/** The members as `JSON.stringify` writes them, for any maps. */
export function stringifiedMembers(captured: CapturedFields): string {
  return JSON.stringify(captured).slice(1, -1);
}

/** Copies a name's few bytes: a loop, as a native copy costs more below ~17 bytes. */
function put(bytes: Uint8Array, into: Buffer, at: number): number {
  const length = bytes.length;
  if (length > 16) into.set(bytes, at);
  else for (let i = 0; i < length; i++) into[at + i] = bytes[i] as number;
  return at + length;
}

/**
 * The writer of a plan's values: the same bytes as `JSON.stringify` writes for the maps, for any plan but
 * one with a name JavaScript keeps as an array index (which objects list first, not in the plan's order):
 * undefined then, and the maps are written by `JSON.stringify`.
 */
export function compileCapturedMembers(plan: CapturePlan): CapturedMembersWriter | undefined {
  const maps = [
    { key: 'RequestHeaders', fields: plan.requestHeaders },
    { key: 'ResponseHeaders', fields: plan.responseHeaders },
    { key: 'Cookies', fields: plan.cookies },
  ] as const;
  if (maps.some((map) => map.fields.some((field) => arrayIndex.test(field.name) && Number(field.name) < 2 ** 32 - 1))) return undefined;
  const compiled = maps
    .filter((map) => map.fields.length > 0)
    .map((map) => {
      // A map's names have consecutive slots, in its order.
      const firstSlot = map.fields[0]?.slot ?? 0;
      return {
        lead: Buffer.from(`${JSON.stringify(map.key)}:{`, 'utf8'),
        firstSlot,
        endSlot: firstSlot + map.fields.length,
        fields: map.fields.map((field) => ({ slot: field.slot, lead: Buffer.from(`${JSON.stringify(field.name)}:`, 'utf8') })),
      };
    });
  // With every name captured (the usual case), the text between two values is the same every time: the
  // pieces before each value (slots count in the maps' order) and after the last, written whole.
  const slotCount = plan.slotCount;
  const pieces: Buffer[] = [];
  let piece = '';
  compiled.forEach((map, m) => {
    piece += `${m > 0 ? '},' : ''}${map.lead.toString('utf8')}`;
    map.fields.forEach((field, f) => {
      pieces.push(Buffer.from(`${piece}${f > 0 ? ',' : ''}${field.lead.toString('utf8')}`, 'utf8'));
      piece = '';
    });
  });
  pieces.push(Buffer.from('}'));
  // Every map and name written, with a comma, its braces and a value's quotes: what the members take beyond the values.
  let fixedBytes = 0;
  for (const map of compiled) fixedBytes += 1 + map.lead.length + 1 + map.fields.reduce((sum, field) => sum + 1 + field.lead.length + 2, 0);
  return {
    bound(values) {
      let chars = 0;
      for (let i = 0; i < values.length; i++) chars += values[i]?.length ?? 0;
      return fixedBytes + maxBytesPerChar * chars;
    },
    write(values, into, at) {
      let cursor = at;
      let captured = 0;
      while (captured < slotCount && values[captured] !== undefined) captured++;
      if (captured === slotCount && captured > 0) {
        for (let slot = 0; slot < slotCount; slot++) {
          cursor = put(pieces[slot] as Buffer, into, cursor);
          cursor = writeValue(values[slot] as string, into, cursor);
        }
        return put(pieces[slotCount] as Buffer, into, cursor);
      }
      for (const map of compiled) {
        // A map capture left empty has no member (JSON.stringify of the maps has none for it).
        let slot = map.firstSlot;
        while (slot < map.endSlot && values[slot] === undefined) slot++;
        if (slot === map.endSlot) continue;
        if (cursor > at) into[cursor++] = comma;
        cursor = put(map.lead, into, cursor);
        const first = cursor;
        for (const field of map.fields) {
          const value = values[field.slot];
          if (value === undefined) continue;
          if (cursor > first) into[cursor++] = comma;
          cursor = put(field.lead, into, cursor);
          cursor = writeValue(value, into, cursor);
        }
        into[cursor++] = closingBrace;
      }
      return cursor;
    },
  };
}
