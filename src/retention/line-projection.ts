/**
 * Logpull's line for a retained line of a hot segment, made from its bytes: one pass over the line finds
 * each member's value, checks that its text is already what the job formatter writes for the value DuckDB
 * reads from it (the answer of the compacted tier and of DuckDB's hot read), and copies that text between
 * the field names — no JSON.parse, no typed columns. A line written by ingest (a request line as it was
 * sent, or JSON.stringify of a record) nearly always qualifies. What the pass cannot vouch for — an escape
 * other than `\" \\ \b \f \n \r \t`, a number not in its shortest form, whitespace inside an array or
 * object, a key written twice, anything unexpected — it reports as `refused`, and the caller has DuckDB read
 * that line instead. Pure.
 *
 * The text of a value, by field type, that is copied as it is (anything else is refused):
 * - string: a string; int: an integer of at most 15 digits, no leading zero, not `-0`; float: the same, or
 *   a decimal whose text is JavaScript's (`String(Number(t)) === t`) with at most 15 significant digits;
 *   bool: `true`/`false`; timestamp: canonical nanosecond digits bare (up to 2^63 - 1) or in a string
 *   (written bare); string[] and int[]: such elements in brackets, no spaces; object: string members with
 *   distinct keys that are not array indexes (JSON.parse would move those first), no spaces;
 * - `null` for any field (written `null`, as an absent one).
 * Lines are UTF-8; every byte this pass looks at is ASCII, and other bytes are copied as they are.
 */
import type { Dataset, DatasetField, FieldType } from '../domain/datasets/http-requests.ts';
import { receivedColumn } from './segment-schema.ts';

/** What `project` answers for a line outside what was asked for (the window, the RayID). */
export const skippedLine = -1;
/** What `project` answers for a line it cannot vouch for: DuckDB must read it. */
export const refusedLine = -2;

/** Scan results inside this file. */
const projected = { written: 0, skipped: 1, refused: 2 } as const;
type Projected = (typeof projected)[keyof typeof projected];

const quote = 0x22;
const backslash = 0x5c;
const colon = 0x3a;
const comma = 0x2c;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const minus = 0x2d;
const zero = 0x30;
const nine = 0x39;
const dot = 0x2e;

/** How a member's value is checked (a field's type; or a member no output field takes). */
const kind = { string: 0, int: 1, float: 2, bool: 3, timestamp: 4, stringList: 5, intList: 6, object: 7, other: 8, received: 9 } as const;
type Kind = (typeof kind)[keyof typeof kind];

/** How a field's value is checked, by its type. */
const kindOfType: Readonly<Record<FieldType, Kind>> = {
  string: kind.string,
  int: kind.int,
  float: kind.float,
  bool: kind.bool,
  timestamp: kind.timestamp,
  'string[]': kind.stringList,
  'int[]': kind.intList,
  object: kind.object,
};

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

const maxIntDigits = 15;
const int64Max = Buffer.from('9223372036854775807', 'latin1');

/** Whether the 19 digits at `i` are at most 2^63 - 1. */
function atMostInt64Max(text: Uint8Array, i: number): boolean {
  for (let k = 0; k < int64Max.length; k++) {
    const d = text[i + k] as number;
    const m = int64Max[k] as number;
    if (d !== m) return d < m;
  }
  return true;
}

/** What a member's key means: the output slot it fills (-1: none) and how its value is checked. */
interface KeyMeaning {
  readonly slot: number;
  readonly kind: Kind;
  /** Whether the key is RayID's. */
  readonly ray: boolean;
}

/**
 * The output of one order of members: for each member the output slot it fills (-1 none), and the constant
 * bytes around the values in output order — `{"A":null,"B":` before the first value, and so on.
 */
interface Shape {
  /** The key bytes of each member (with quotes), as the line that made the shape wrote them. */
  readonly keys: readonly Uint8Array[];
  /** Each key's bytes as little-endian 32-bit words (`keyWords`), to compare four bytes at a time. */
  readonly words: readonly Int32Array[];
  readonly meanings: readonly KeyMeaning[];
  /** Member indexes in output order (only the members that fill a slot). */
  readonly order: Int32Array;
  /** `order.length + 1` constant texts: before each value in output order, and the end of the line. */
  readonly constants: readonly Uint8Array[];
  readonly constantViews: readonly DataView[];
}

/** A compiled projection onto the asked-for fields. */
export class LineProjection {
  private readonly fields: readonly DatasetField[];
  private readonly meaningOf = new Map<string, KeyMeaning>();
  private readonly startMs: number;
  private readonly endMs: number;
  /** The RayID's text with quotes when only that RayID is asked for. */
  private readonly onlyRay: Uint8Array | undefined;
  private readonly wantRay: boolean;
  private readonly shapes = new Map<string, Shape>();
  /** The bytes of an output line beyond its values' text: names, punctuation, nulls. */
  private readonly namesBytes: number;
  private shape: Shape | undefined;

  // Per line: each member's key span and value span (quotes of a timestamp string left out).
  private keyStarts: Int32Array = new Int32Array(256);
  private keyEnds: Int32Array = new Int32Array(256);
  private valueStarts: Int32Array = new Int32Array(256);
  private valueEnds: Int32Array = new Int32Array(256);
  /** Where the current line's RayID value lies (with its quotes), or -1. */
  private rayStart = -1;
  private rayEnd = -1;
  private text: Buffer = Buffer.alloc(0);
  private view: DataView = new DataView(new ArrayBuffer(0));
  private out: Uint8Array = new Uint8Array(0);
  private outView: DataView = new DataView(new ArrayBuffer(0));
  /** Where the next backslash of the text is at or after the current line's start (the text's length when none). */
  private nextBackslash = -1;
  /** The text's bytes when the current line holds no backslash (undefined when it does). */
  private plain: DataView | undefined;
  /** The slot each output field was last filled at (line number), to find a key written twice. */
  private readonly filledAt: Int32Array;
  private line = 0;

  /**
   * `fields` in output order; lines received in [startMs, endMs) are written (and of those only RayID `only`'s
   * when given); `wantRay` keeps each written line's RayID for sampling.
   */
  constructor(fields: readonly DatasetField[], dataset: Dataset, window: { readonly startMs: number; readonly endMs: number }, only: string | undefined, wantRay: boolean) {
    this.fields = fields;
    this.startMs = window.startMs;
    this.endMs = window.endMs;
    this.onlyRay = only === undefined ? undefined : Buffer.from(JSON.stringify(only), 'utf8');
    this.wantRay = wantRay || only !== undefined;
    this.filledAt = new Int32Array(fields.length).fill(-1);
    this.namesBytes = fields.reduce((sum, field) => sum + field.name.length + 8, 2);
    for (const field of dataset.fields) this.meaningOf.set(JSON.stringify(field.name), { slot: -1, kind: kind.other, ray: field.name === 'RayID' });
    fields.forEach((field, slot) => this.meaningOf.set(JSON.stringify(field.name), { slot, kind: kindOfType[field.type], ray: field.name === 'RayID' }));
    this.meaningOf.set(JSON.stringify(receivedColumn), { slot: -1, kind: kind.received, ray: false });
  }

  /** The RayID of the last line written (JSON.parse's string; '' when it has none). */
  rayId(): string {
    if (this.rayStart < 0 || this.text[this.rayStart] !== quote) return '';
    const ray = this.text.subarray(this.rayStart + 1, this.rayEnd - 1);
    return ray.toString(isAscii(ray) ? 'latin1' : 'utf8');
  }

  /**
   * Projects the line at [start, end) of `text` (without its newline) into `out` at `at`, which has room for
   * `maxOutputBytes` of the line's length: answers where its output line (newline included) ends, or
   * `skippedLine`, or `refusedLine`.
   */
  project(text: Buffer, start: number, end: number, out: Uint8Array, at: number): number {
    if (text !== this.text) {
      this.text = text;
      this.view = new DataView(text.buffer, text.byteOffset, text.byteLength);
      this.nextBackslash = -1;
    }
    // Strings of a line without a backslash end at their next quote, looked for a word at a time.
    if (this.nextBackslash < start) {
      const found = text.indexOf(backslash, start);
      this.nextBackslash = found < 0 ? text.length : found;
    }
    this.plain = this.nextBackslash >= end ? this.view : undefined;
    this.line++;
    this.rayStart = -1;
    const result = this.scan(text, start, end);
    if (result === projected.written) return this.write(text, out, at);
    return result === projected.skipped ? skippedLine : refusedLine;
  }

  /** The most bytes the output line of a line of `length` bytes may take. */
  maxOutputBytes(length: number): number {
    return this.namesBytes + length;
  }

  private scan(text: Buffer, start: number, end: number): Projected {
    // `{"_received_ms":<digits>` first: the receive time decides before anything else is read.
    const prefix = receivedPrefix;
    if (end - start < prefix.length + 2) return projected.refused;
    for (let k = 0; k < prefix.length; k++) if (text[start + k] !== prefix[k]) return projected.refused;
    let i = start + prefix.length;
    let ms = 0;
    const digitsStart = i;
    while (i < end) {
      const c = text[i] as number;
      if (c < zero || c > nine) break;
      ms = ms * 10 + (c - zero);
      i++;
    }
    const digits = i - digitsStart;
    if (digits === 0 || digits > 15 || (digits > 1 && text[digitsStart] === zero)) return projected.refused;
    if (ms < this.startMs || ms >= this.endMs) return projected.skipped;
    return this.scanMembers(text, i, end);
  }

  private scanMembers(text: Buffer, i: number, end: number): Projected {
    const line = this.line;
    let shape = this.shape;
    let predicted = shape !== undefined;
    let m = 0;
    for (;;) {
      while (i < end && isSpace(text[i] as number)) i++;
      const c = text[i];
      if (c === closeBrace) break;
      if (c !== comma) return projected.refused;
      i++;
      while (i < end && isSpace(text[i] as number)) i++;
      if (text[i] !== quote) return projected.refused;
      // The key: the one the last line of this shape had here, else looked up.
      const keyStart = i;
      let meaning: KeyMeaning | undefined;
      if (predicted && shape !== undefined && m < shape.keys.length) {
        const expected = shape.keys[m] as Uint8Array;
        if (keyAt(this.view, text, i, expected, shape.words[m] as Int32Array)) {
          meaning = shape.meanings[m] as KeyMeaning;
          i += expected.length;
        }
      }
      if (meaning === undefined) {
        predicted = false;
        i++;
        while (i < end) {
          const b = text[i] as number;
          if (b === quote) break;
          // A key with an escape may name a field in other letters: DuckDB reads such a line.
          if (b === backslash) return projected.refused;
          i++;
        }
        if (i >= end) return projected.refused;
        i++;
        meaning = this.meaningOf.get(latin1(text, keyStart, i)) ?? otherMember;
      }
      const keyEnd = i;
      while (i < end && isSpace(text[i] as number)) i++;
      if (text[i] !== colon) return projected.refused;
      i++;
      while (i < end && isSpace(text[i] as number)) i++;
      const valueStart = i;
      i = this.scanValue(text, i, end, meaning.kind);
      if (i < 0) return projected.refused;
      if (m >= this.keyStarts.length) this.grow();
      this.keyStarts[m] = keyStart;
      this.keyEnds[m] = keyEnd;
      let from = valueStart;
      let to = i;
      if (meaning.kind === kind.timestamp && text[valueStart] === quote) {
        from++;
        to--;
      }
      this.valueStarts[m] = from;
      this.valueEnds[m] = to;
      const slot = meaning.slot;
      if (slot >= 0) {
        // A key written twice: DuckDB refuses the segment and the repair keeps the last value.
        if (this.filledAt[slot] === line) return projected.refused;
        this.filledAt[slot] = line;
      }
      if (meaning.kind === kind.received) return projected.refused;
      if (meaning.ray) {
        // A RayID is compared and hashed as its text: one with an escape is DuckDB's to decode.
        if (this.wantRay && this.plain === undefined && text[valueStart] === quote && hasByte(text, valueStart, i, backslash)) return projected.refused;
        this.rayStart = valueStart;
        this.rayEnd = i;
      }
      m++;
    }
    i++;
    while (i < end && isSpace(text[i] as number)) i++;
    if (i !== end) return projected.refused;
    if (this.onlyRay !== undefined && (this.rayStart < 0 || this.rayEnd - this.rayStart !== this.onlyRay.length || !sameBytes(text, this.rayStart, this.onlyRay))) return projected.skipped;
    if (!predicted || shape === undefined || m !== shape.keys.length) {
      shape = this.shapeOf(text, m);
      this.shape = shape;
    }
    return projected.written;
  }

  /** The end of the value at `i` when its text is what the formatter writes for `valueKind`, else -1. */
  private scanValue(text: Buffer, i: number, end: number, valueKind: Kind): number {
    const plain = this.plain;
    const c = text[i];
    if (c === quote) {
      if (valueKind === kind.timestamp) {
        const stop = scanDigits(text, i + 1, end);
        return stop > i + 1 && stop - i - 1 <= 30 && text[stop] === quote && (text[i + 1] !== zero || stop === i + 2) ? stop + 1 : -1;
      }
      if (valueKind !== kind.string && valueKind !== kind.other) return -1;
      return scanString(text, i, end, valueKind === kind.other, plain);
    }
    if (c === 0x6e) return isLiteral(text, i, end, nullBytes) ? i + 4 : -1;
    switch (valueKind) {
      case kind.int:
        return scanInt(text, i, end);
      case kind.float:
        return scanFloat(text, i, end);
      case kind.bool:
        if (c === 0x74) return isLiteral(text, i, end, trueBytes) ? i + 4 : -1;
        return isLiteral(text, i, end, falseBytes) ? i + 5 : -1;
      case kind.timestamp:
        return scanTimestamp(text, i, end);
      case kind.stringList:
        return scanList(text, i, end, false, plain);
      case kind.intList:
        return scanList(text, i, end, true, plain);
      case kind.object:
        return scanObject(text, i, end, plain);
      case kind.other:
      case kind.received:
        return skipValue(text, i, end, plain);
      case kind.string:
        return -1;
    }
  }

  private grow(): void {
    const size = this.keyStarts.length * 2;
    const grown = (a: Int32Array): Int32Array => {
      const b = new Int32Array(size);
      b.set(a);
      return b;
    };
    this.keyStarts = grown(this.keyStarts);
    this.keyEnds = grown(this.keyEnds);
    this.valueStarts = grown(this.valueStarts);
    this.valueEnds = grown(this.valueEnds);
  }

  /** The shape of the current line's `m` members (cached by their keys). */
  private shapeOf(text: Uint8Array, m: number): Shape {
    const keys: Uint8Array[] = [];
    // Copies: the text's memory is reused for the next lines.
    for (let k = 0; k < m; k++) keys.push(Uint8Array.prototype.slice.call(text, this.keyStarts[k], this.keyEnds[k]));
    const signature = keys.map((k) => latin1(k, 0, k.length)).join(',');
    const known = this.shapes.get(signature);
    if (known !== undefined) return known;
    const meanings = keys.map((k) => this.meaningOf.get(latin1(k, 0, k.length)) ?? otherMember);
    const memberOfSlot = new Int32Array(this.fields.length).fill(-1);
    meanings.forEach((meaning, member) => {
      if (meaning.slot >= 0) memberOfSlot[meaning.slot] = member;
    });
    const order: number[] = [];
    const constants: Uint8Array[] = [];
    let constant = '';
    this.fields.forEach((field, slot) => {
      constant += `${slot === 0 ? '{' : ','}${JSON.stringify(field.name)}:`;
      const member = memberOfSlot[slot] as number;
      if (member < 0) constant += 'null';
      else {
        constants.push(Buffer.from(constant, 'latin1'));
        order.push(member);
        constant = '';
      }
    });
    constants.push(Buffer.from(`${this.fields.length === 0 ? '{' : constant}}\n`, 'latin1'));
    const constantViews = constants.map((c) => new DataView(c.buffer, c.byteOffset, c.byteLength));
    const shape: Shape = { keys, words: keys.map(keyWords), meanings, order: Int32Array.from(order), constants, constantViews };
    // Events of one source share a few shapes; a bound keeps a stream of odd ones from growing the cache.
    if (this.shapes.size >= maxShapes) this.shapes.clear();
    this.shapes.set(signature, shape);
    return shape;
  }

  /** Writes the current line's output at `at` of `out`; answers where it ends. */
  private write(text: Uint8Array, out: Uint8Array, at: number): number {
    if (out !== this.out) {
      this.out = out;
      this.outView = new DataView(out.buffer, out.byteOffset, out.byteLength);
    }
    const outView = this.outView;
    const view = this.view;
    const shape = this.shape as Shape;
    const order = shape.order;
    const constants = shape.constants;
    const constantViews = shape.constantViews;
    const starts = this.valueStarts;
    const ends = this.valueEnds;
    let o = at;
    for (let k = 0; k < order.length; k++) {
      const constant = constants[k] as Uint8Array;
      // A constant beyond a field name (`,"A":null,"B":…`) is copied natively: measured cheaper from 17 bytes.
      if (constant.length > 16) {
        out.set(constant, o);
        o += constant.length;
      } else o = copyWords(constantViews[k] as DataView, constant, 0, constant.length, outView, out, o);
      const member = order[k] as number;
      const from = starts[member] as number;
      const to = ends[member] as number;
      if (to - from > 256) {
        out.set(text.subarray(from, to), o);
        o += to - from;
      } else o = copyWords(view, text, from, to, outView, out, o);
    }
    const last = constants[order.length] as Uint8Array;
    out.set(last, o);
    return o + last.length;
  }
}

const maxShapes = 64;
const otherMember: KeyMeaning = { slot: -1, kind: kind.other, ray: false };
const receivedPrefix = Buffer.from(`{${JSON.stringify(receivedColumn)}:`, 'latin1');
const nullBytes = Buffer.from('null', 'latin1');
const trueBytes = Buffer.from('true', 'latin1');
const falseBytes = Buffer.from('false', 'latin1');

function latin1(text: Uint8Array, start: number, end: number): string {
  return Buffer.from(text.buffer, text.byteOffset + start, end - start).toString('latin1');
}

/**
 * Copies [from, to) of `source` (`sourceView` its bytes) to `out` at `o`, four bytes at a time; answers where
 * the copy ends. For short texts — most values and the names between them — a native copy costs more (and
 * a view of the source to copy from, more again).
 */
function copyWords(sourceView: DataView, source: Uint8Array, from: number, to: number, outView: DataView, out: Uint8Array, o: number): number {
  for (; from + 4 <= to; from += 4, o += 4) outView.setInt32(o, sourceView.getInt32(from, true), true);
  while (from < to) out[o++] = source[from++] as number;
  return o;
}

/** A key's bytes as little-endian 32-bit words: at 0, 4, 8, … and, when the length is no multiple of 4, at the last four bytes. */
function keyWords(key: Uint8Array): Int32Array {
  const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
  const words: number[] = [];
  let k = 0;
  for (; k + 4 <= key.length; k += 4) words.push(view.getInt32(k, true));
  if (k < key.length && key.length >= 4) words.push(view.getInt32(key.length - 4, true));
  return Int32Array.from(words);
}

/** Whether `key` is at `i` of the text (`view` its bytes), compared four bytes at a time. */
function keyAt(view: DataView, text: Uint8Array, i: number, key: Uint8Array, words: Int32Array): boolean {
  const length = key.length;
  if (i + length > text.length) return false;
  if (length < 4) return sameBytes(text, i, key);
  let w = 0;
  let k = 0;
  for (; k + 4 <= length; k += 4) if (view.getInt32(i + k, true) !== words[w++]) return false;
  return k === length || view.getInt32(i + length - 4, true) === words[w];
}

function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if ((bytes[i] as number) > 0x7f) return false;
  return true;
}

function hasByte(text: Uint8Array, start: number, end: number, byte: number): boolean {
  for (let i = start; i < end; i++) if (text[i] === byte) return true;
  return false;
}

function sameBytes(text: Uint8Array, at: number, bytes: Uint8Array): boolean {
  for (let k = 0; k < bytes.length; k++) if (text[at + k] !== bytes[k]) return false;
  return true;
}

function isLiteral(text: Uint8Array, i: number, end: number, literal: Uint8Array): boolean {
  return i + literal.length <= end && sameBytes(text, i, literal);
}

function scanDigits(text: Buffer, i: number, end: number): number {
  while (i < end) {
    const c = text[i] as number;
    if (c < zero || c > nine) break;
    i++;
  }
  return i;
}

/**
 * The end of a string at `i` whose escapes are all ones JSON.stringify writes (any escape when `anyEscape`),
 * else -1. `plain` is the line's bytes when it holds no backslash at all: its strings end at the next quote,
 * looked for four bytes at a time.
 */
function scanString(text: Buffer, i: number, end: number, anyEscape: boolean, plain: DataView | undefined): number {
  let j = i + 1;
  if (plain !== undefined) {
    for (; j + 4 <= end; j += 4) {
      // A zero byte in the word XOR four quotes: a quote among the four bytes.
      const x = plain.getInt32(j, true) ^ 0x22222222;
      if (((x - 0x01010101) & ~x & 0x80808080) !== 0) break;
    }
    for (; j < end; j++) if (text[j] === quote) return j + 1;
    return -1;
  }
  for (; j < end; j++) {
    const c = text[j] as number;
    if (c === quote) return j + 1;
    if (c === backslash) {
      const e = text[j + 1];
      if (!anyEscape && e !== quote && e !== backslash && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74) return -1;
      j++;
    }
  }
  return -1;
}

/** The end of an integer in its shortest form (at most 15 digits, not -0), else -1. */
function scanInt(text: Buffer, i: number, end: number): number {
  const negative = text[i] === minus;
  const first = negative ? i + 1 : i;
  const stop = scanDigits(text, first, end);
  const digits = stop - first;
  if (digits === 0 || digits > maxIntDigits) return -1;
  if (text[first] === zero && (digits > 1 || negative)) return -1;
  const next = text[stop];
  return next === dot || next === 0x65 || next === 0x45 ? -1 : stop;
}

/** The end of a float written as JavaScript writes it (at most 15 significant digits), else -1. */
function scanFloat(text: Buffer, i: number, end: number): number {
  const integer = scanInt(text, i, end);
  if (integer >= 0) return integer;
  let stop = i;
  while (stop < end) {
    const c = text[stop] as number;
    if (!((c >= zero && c <= nine) || c === dot || c === minus || c === 0x2b || c === 0x65 || c === 0x45)) break;
    stop++;
  }
  if (stop - i > 18) return -1;
  const number = latin1(text, i, stop);
  return /^-?(?:0|[1-9]\d*)\.\d+$/.test(number) && String(Number(number)) === number && number.replace(/^-?0?\.?0*/, '').replace('.', '').length <= maxIntDigits ? stop : -1;
}

/** The end of bare nanosecond digits DuckDB reads as they are (0 to 2^63 - 1, no leading zero), else -1. */
function scanTimestamp(text: Buffer, i: number, end: number): number {
  const stop = scanDigits(text, i, end);
  const digits = stop - i;
  if (digits === 0 || (digits > 1 && text[i] === zero) || digits > int64Max.length) return -1;
  if (digits === int64Max.length && !atMostInt64Max(text, i)) return -1;
  const next = text[stop];
  return next === dot || next === 0x65 || next === 0x45 ? -1 : stop;
}

/** The end of `[]` or of strings (ints when `ints`) in brackets without spaces, else -1. */
function scanList(text: Buffer, i: number, end: number, ints: boolean, plain: DataView | undefined): number {
  if (text[i] !== openBracket) return -1;
  i++;
  if (text[i] === closeBracket) return i + 1;
  for (;;) {
    i = ints ? scanInt(text, i, end) : text[i] === quote ? scanString(text, i, end, false, plain) : -1;
    if (i < 0) return -1;
    const c = text[i];
    if (c === closeBracket) return i + 1;
    if (c !== comma) return -1;
    i++;
  }
}

/** Key spans of the object being scanned (objects hold a few members). */
let objectKeys = new Int32Array(64);

/**
 * The end of `{}` or of string members in braces without spaces, keys distinct and none an array index
 * (JSON.parse would list those first), else -1.
 */
function scanObject(text: Buffer, i: number, end: number, plain: DataView | undefined): number {
  if (text[i] !== openBrace) return -1;
  i++;
  if (text[i] === closeBrace) return i + 1;
  let keys = 0;
  for (;;) {
    if (text[i] !== quote) return -1;
    const keyEnd = scanString(text, i, end, false, plain);
    if (keyEnd < 0 || isIndexKey(text, i, keyEnd)) return -1;
    for (let k = 0; k < keys; k++) if (sameSpan(text, objectKeys[2 * k] as number, objectKeys[2 * k + 1] as number, i, keyEnd)) return -1;
    if (2 * keys + 2 > objectKeys.length) {
      const grown = new Int32Array(objectKeys.length * 2);
      grown.set(objectKeys);
      objectKeys = grown;
    }
    objectKeys[2 * keys] = i;
    objectKeys[2 * keys + 1] = keyEnd;
    keys++;
    if (text[keyEnd] !== colon || text[keyEnd + 1] !== quote) return -1;
    i = scanString(text, keyEnd + 1, end, false, plain);
    if (i < 0) return -1;
    const c = text[i];
    if (c === closeBrace) return i + 1;
    if (c !== comma) return -1;
    i++;
  }
}

/** Whether the key at [start, end) (with quotes) is all digits: a name JSON.parse would treat as an array index. */
function isIndexKey(text: Uint8Array, start: number, end: number): boolean {
  if (end - start < 3) return false;
  for (let k = start + 1; k < end - 1; k++) {
    const c = text[k] as number;
    if (c < zero || c > nine) return false;
  }
  return true;
}

function sameSpan(text: Uint8Array, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let k = 0; k < aEnd - aStart; k++) if (text[aStart + k] !== text[bStart + k]) return false;
  return true;
}

/** The end of any JSON value at `i` (a member no output field takes), else -1. */
function skipValue(text: Buffer, i: number, end: number, plain: DataView | undefined): number {
  const c = text[i];
  if (c === quote) return scanString(text, i, end, true, plain);
  if (c !== openBrace && c !== openBracket) {
    while (i < end) {
      const b = text[i] as number;
      if (b === comma || b === closeBrace || b === closeBracket || isSpace(b)) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  for (; i < end; i++) {
    const b = text[i] as number;
    if (b === quote) {
      i = scanString(text, i, end, true, plain) - 1;
      if (i < 0) return -1;
    } else if (b === openBrace || b === openBracket) depth++;
    else if (b === closeBrace || b === closeBracket) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
