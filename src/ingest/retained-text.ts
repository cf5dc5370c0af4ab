/**
 * The retained copy of a chunk's events: each event whole, one JSON object per line that starts with the
 * time the events were received (`{"_received_ms":…,`) and ends with a newline, compressed as one zstd
 * frame (zstd-frame.ts) — what the retention writer appends to a zone's hot segment as it is, and what
 * DuckDB reads with the same columns as a compacted Parquet segment (src/retention/segment-schema.ts).
 *
 * An event comes in one of two ways, and costs next to nothing beyond the compression either way:
 * - its **line**: when the request line already says everything in its canonical form (timestamps as their
 *   nanosecond digits, as edges send them; the parser tells) and the body is ASCII, the line's own bytes are
 *   copied from the request body, with what capture added appended as JSON members. A `JSON.stringify` of
 *   the record and the encoding of its text would cost many microseconds. The raw header arrays the line
 *   also carries are no column of a segment, so readers skip them.
 * - its **record**: the checked event object (a source's events, or a line that is not canonical), written
 *   as JSON.
 * A line with a key twice is copied too (finding one would cost every line a scan); the retention stage
 * rewrites such a line from the parsed event when it meets it (src/retention/hot-repair.ts). Pure.
 */
import { utf8Bytes } from '../core/utf8-bytes.ts';
import type { EventRecord } from '../domain/datasets/event-record.ts';
import { keptFieldsOf, type RetainRule } from './retain-rule.ts';
import { eventStatus, retainedSectionId, type SectionInput } from './chunk-format.ts';

/** A request body and the text ingest decoded it to; `ascii` says every character is one byte, so the offsets agree. */
export interface RequestBody {
  readonly bytes: Uint8Array;
  readonly ascii: boolean;
}

/** The member every retained line starts with: when the event was received (Unix ms), a column of every segment. */
export const receivedMember = '_received_ms';

const comma = 0x2c;
const closingBrace = 0x7d;
const newline = 0x0a;
const empty = new Uint8Array(0);

function isSpace(code: number | undefined): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0a;
}

/** The retained events of one chunk; `take` turns them into the chunk's section and starts afresh. */
export class RetainedSection {
  private readonly body: RequestBody | undefined;
  /** `{"_received_ms":<ms>`: the start of every line. */
  private readonly prefix: Buffer;
  private readonly receivedMs: number;
  /** Per event: where its line's members start and end in the body (inside the braces), or -1 when it has no line. */
  private starts: number[] = [];
  private ends: number[] = [];
  /**
   * Per event, one after the other: the JSON members capture added (`"RequestHeaders":{…},…`, or nothing)
   * for a line, the record's members otherwise. One string, encoded once.
   */
  private texts = '';
  /** Where each event's part of `texts` ends (characters). */
  private textEnds: number[] = [];
  /** The events a Log Explorer dataset's filter refused (indexes among every event of the section): no line. */
  private refused: number[] = [];
  /** Bytes held so far (characters for texts: about as many). */
  size = 0;

  /** What a Log Explorer dataset keeps, when it alone decides (retain-rule.ts); undefined: every event whole. */
  private readonly rule: RetainRule | undefined;

  /** The events of `body` (when they come as lines), all received at `receivedMs`, kept as `rule` says. */
  constructor(receivedMs: number, body?: RequestBody, rule?: RetainRule) {
    this.body = body;
    this.rule = rule;
    this.receivedMs = receivedMs;
    this.prefix = Buffer.from(`{${JSON.stringify(receivedMember)}:${receivedMs}`, 'latin1');
  }

  /**
   * Adds an event: its line at [start, end) of the body when `asSent` says the line is canonical and the
   * body is ASCII, else its record; `captured` is what capture added to the record (undefined: nothing).
   */
  add(record: EventRecord, captured: object | undefined, start: number, end: number, asSent: boolean): void {
    const rule = this.rule;
    if (rule !== undefined) {
      if (!rule.predicate(record)) return this.refuse();
      // Only the dataset's fields: written from the record (the line holds them all).
      if (rule.fields !== undefined) return this.addMembers(-1, -1, JSON.stringify(keptFieldsOf(record, rule.fields)).slice(1, -1));
    }
    const body = this.body;
    if (body !== undefined && body.ascii && asSent) {
      const bytes = body.bytes;
      while (start < end && isSpace(bytes[start])) start++;
      while (end > start && isSpace(bytes[end - 1])) end--;
      if (bytes[start] === 0x7b && bytes[end - 1] === 0x7d) {
        let inner = start + 1;
        let innerEnd = end - 1;
        while (inner < innerEnd && isSpace(bytes[inner])) inner++;
        while (innerEnd > inner && isSpace(bytes[innerEnd - 1])) innerEnd--;
        this.addMembers(inner, innerEnd, captured === undefined ? '' : JSON.stringify(captured).slice(1, -1));
        return;
      }
    }
    this.addMembers(-1, -1, JSON.stringify(record).slice(1, -1));
  }

  /** Counts an event that is not retained (a Log Explorer dataset's filter refused it): it gets no line. */
  private refuse(): void {
    this.refused.push(this.starts.length + this.refused.length);
  }

  private addMembers(start: number, end: number, members: string): void {
    this.texts += members;
    this.starts.push(start);
    this.ends.push(end);
    this.textEnds.push(this.texts.length);
    this.size += this.prefix.length + Math.max(0, end - start) + members.length + 4;
  }

  /** The section of the events added since the last `take`: their lines, each ending in a newline. */
  take(): SectionInput {
    const count = this.starts.length;
    const texts = utf8Bytes(this.texts);
    // ASCII (the usual case): a character's offset is its byte's; otherwise each part is encoded on its own.
    const ascii = texts.length === this.texts.length;
    const source = this.body?.bytes ?? empty;
    const prefix = this.prefix;
    const parts: Uint8Array[] = new Array<Uint8Array>(count);
    const recordLengths: number[] = new Array<number>(count);
    let total = 0;
    let textStart = 0;
    for (let i = 0; i < count; i++) {
      const lineBytes = (this.ends[i] as number) - (this.starts[i] as number);
      const textEnd = this.textEnds[i] as number;
      const part = textEnd === textStart ? empty : ascii ? texts.subarray(textStart, textEnd) : Buffer.from(this.texts.slice(textStart, textEnd), 'utf8');
      textStart = textEnd;
      parts[i] = part;
      // The prefix, each non-empty run of members after a comma, the closing brace; then the newline.
      const length = prefix.length + (lineBytes > 0 ? lineBytes + 1 : 0) + (part.length > 0 ? part.length + 1 : 0) + 1;
      recordLengths[i] = length;
      total += length + 1;
    }
    const out = scratchOf(total);
    let cursor = 0;
    for (let i = 0; i < count; i++) {
      const start = this.starts[i] as number;
      const end = this.ends[i] as number;
      const part = parts[i] as Uint8Array;
      out.set(prefix, cursor);
      cursor += prefix.length;
      if (end > start) {
        out[cursor++] = comma;
        out.set(source.subarray(start, end), cursor);
        cursor += end - start;
      }
      if (part.length > 0) {
        out[cursor++] = comma;
        out.set(part, cursor);
        cursor += part.length;
      }
      out[cursor++] = closingBrace;
      out[cursor++] = newline;
    }
    const statuses = new Uint8Array(count + this.refused.length).fill(eventStatus.kept);
    for (const event of this.refused) statuses[event] = eventStatus.filteredOut;
    this.starts = [];
    this.ends = [];
    this.texts = '';
    this.textEnds = [];
    this.refused = [];
    this.size = 0;
    // The text is a view of the scratch buffer, valid until the next `take`: the chunk compresses it at once.
    return {
      jobId: retainedSectionId,
      statuses,
      recordLengths,
      delimiterLength: 1,
      text: out,
      zstd: { receivedMs: this.receivedMs },
    };
  }
}

let scratch = Buffer.allocUnsafeSlow(0);

/**
 * A buffer of `size` bytes reused from one section to the next (on each thread). Copying thousands of
 * records one by one into freshly allocated memory measured ten times slower than into memory in use.
 */
function scratchOf(size: number): Buffer {
  if (scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.max(size, 2 * scratch.length));
  return scratch.subarray(0, size);
}
