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
 *   also carries are no column of a segment, so readers skip them. The captured members are written from
 *   the zone's capture plan (captured-members.ts).
 * - its **record**: the checked event object (a source's events, or a line that is not canonical), written
 *   as JSON.
 * A line with a key twice is copied too (finding one would cost every line a scan); the retention stage
 * rewrites such a line from the parsed event when it meets it (src/retention/hot-repair.ts).
 *
 * Each line is written into the section's buffer as its event is added, so nothing of an event outlives
 * the call (held until the chunk closes, its strings were copied by every young-generation collection and
 * then promoted, for the old generation's collector to trace), and the buffer is memory kept from one
 * request to the next (section-buffers.ts). Pure but for that memory.
 */
import type { EventRecord } from '../domain/datasets/event-record.ts';
import type { CapturedFields, CapturedValues } from './capture.ts';
import { stringifiedMembers, type CapturedMembersWriter } from './captured-members.ts';
import { keptFieldsOf, type RetainRule } from './retain-rule.ts';
import { eventStatus, retainedSectionId, type SectionInput } from './chunk-format.ts';
import { borrowSectionBuffer, returnSectionBuffer } from './section-buffers.ts';

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
const empty = Buffer.alloc(0);

function isSpace(code: number | undefined): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0a;
}

/** The retained events of one chunk; `take` turns them into the chunk's section and starts afresh. */
export class RetainedSection {
  private readonly body: RequestBody | undefined;
  /** `{"_received_ms":<ms>`: the start of every line. */
  private readonly prefix: Buffer;
  private readonly receivedMs: number;
  /** What a Log Explorer dataset keeps, when it alone decides (retain-rule.ts); undefined: every event whole. */
  private readonly rule: RetainRule | undefined;
  private readonly members: CapturedMembersWriter | undefined;
  /** The lines so far, each ending in a newline, in memory borrowed until `finish`; undefined before the first. */
  private buffer: Buffer | undefined;
  private written = 0;
  /** Per line, its bytes without the newline. */
  private recordLengths: number[] = [];
  /** The events a Log Explorer dataset's filter refused (indexes among every event of the section): no line. */
  private refused: number[] = [];

  /**
   * The events of `body` (when they come as lines), all received at `receivedMs`, kept as `rule` says;
   * `members` writes what capture added from its values by slot (the zone's plan compiled,
   * captured-members.ts); without it, or without the values, the maps are written by `JSON.stringify`.
   */
  constructor(receivedMs: number, body?: RequestBody, rule?: RetainRule, members?: CapturedMembersWriter) {
    this.body = body;
    this.rule = rule;
    this.members = members;
    this.receivedMs = receivedMs;
    this.prefix = Buffer.from(`{${JSON.stringify(receivedMember)}:${receivedMs}`, 'latin1');
  }

  /** Bytes of the lines held so far. */
  get size(): number {
    return this.written;
  }

  /**
   * Adds an event: its line at [start, end) of the body when `asSent` says the line is canonical and the
   * body is ASCII, else its record; `captured` is what capture added to the record (undefined: nothing),
   * and `values` the same by the plan's slots, valid for this call.
   */
  add(record: EventRecord, captured: CapturedFields | undefined, start: number, end: number, asSent: boolean, values?: CapturedValues): void {
    const rule = this.rule;
    if (rule !== undefined) {
      if (!rule.predicate(record)) return this.refuse();
      // Only the dataset's fields: written from the record (the line holds them all).
      if (rule.fields !== undefined) return this.addRecord(JSON.stringify(keptFieldsOf(record, rule.fields)).slice(1, -1));
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
        this.addLine(inner, innerEnd, captured, values);
        return;
      }
    }
    this.addRecord(JSON.stringify(record).slice(1, -1));
  }

  /** Counts an event that is not retained (a Log Explorer dataset's filter refused it): it gets no line. */
  private refuse(): void {
    this.refused.push(this.recordLengths.length + this.refused.length);
  }

  /** Writes a line of the body: the prefix, the line's members at [start, end) of the body, then what capture added. */
  private addLine(start: number, end: number, captured: CapturedFields | undefined, values: CapturedValues | undefined): void {
    const lineBytes = end - start;
    // The plan's writer when there is one and the values by slot came with the maps, else JSON.stringify of the maps.
    const writer = captured !== undefined && values !== undefined ? this.members : undefined;
    const slotted = writer === undefined ? undefined : values;
    const json = captured !== undefined && slotted === undefined ? stringifiedMembers(captured) : undefined;
    const membersBound = writer !== undefined && slotted !== undefined ? writer.bound(slotted) : json !== undefined ? 3 * json.length : 0;
    // At most: the prefix, a comma and the line, a comma and the captured members, the brace and the newline.
    const buffer = this.room(this.prefix.length + 1 + lineBytes + 1 + membersBound + 2);
    let cursor = this.written;
    buffer.set(this.prefix, cursor);
    cursor += this.prefix.length;
    if (lineBytes > 0) {
      buffer[cursor++] = comma;
      buffer.set((this.body?.bytes ?? empty).subarray(start, end), cursor);
      cursor += lineBytes;
    }
    if (slotted !== undefined || json !== undefined) {
      const membersAt = cursor + 1;
      const membersEnd = writer !== undefined && slotted !== undefined ? writer.write(slotted, buffer, membersAt) : membersAt + buffer.write(json ?? '', membersAt, 'utf8');
      if (membersEnd > membersAt) {
        buffer[cursor] = comma;
        cursor = membersEnd;
      }
    }
    this.endLine(cursor);
  }

  /** Writes a line of a record: the prefix, then the record's members (JSON without its braces). */
  private addRecord(members: string): void {
    const buffer = this.room(this.prefix.length + 1 + 3 * members.length + 2);
    let cursor = this.written;
    buffer.set(this.prefix, cursor);
    cursor += this.prefix.length;
    if (members.length > 0) {
      buffer[cursor++] = comma;
      cursor += buffer.write(members, cursor, 'utf8');
    }
    this.endLine(cursor);
  }

  /** Closes the line being written, which ends before `cursor`. */
  private endLine(cursor: number): void {
    const buffer = this.buffer as Buffer;
    buffer[cursor++] = closingBrace;
    this.recordLengths.push(cursor - this.written);
    buffer[cursor++] = newline;
    this.written = cursor;
  }

  /** The buffer, with room for `bytes` more. */
  private room(bytes: number): Buffer {
    const needed = this.written + bytes;
    let buffer = this.buffer;
    if (buffer === undefined) buffer = borrowSectionBuffer(needed);
    else if (buffer.length < needed) {
      const larger = borrowSectionBuffer(Math.max(needed, 2 * buffer.length));
      buffer.copy(larger, 0, 0, this.written);
      returnSectionBuffer(buffer);
      buffer = larger;
    }
    this.buffer = buffer;
    return buffer;
  }

  /**
   * The section of the events added since the last `take`: their lines, each ending in a newline. The text
   * is a view of the section's buffer, valid until it adds again (the chunk compresses it at once).
   */
  take(): SectionInput {
    const statuses = new Uint8Array(this.recordLengths.length + this.refused.length).fill(eventStatus.kept);
    for (const event of this.refused) statuses[event] = eventStatus.filteredOut;
    const text = this.buffer === undefined ? empty : this.buffer.subarray(0, this.written);
    const recordLengths = this.recordLengths;
    this.recordLengths = [];
    this.refused = [];
    this.written = 0;
    return {
      jobId: retainedSectionId,
      statuses,
      recordLengths,
      delimiterLength: 1,
      text,
      zstd: { receivedMs: this.receivedMs },
    };
  }

  /** Gives the buffer back once the last events were taken and their text used; the section may fill again after. */
  finish(): void {
    if (this.buffer !== undefined) returnSectionBuffer(this.buffer);
    this.buffer = undefined;
  }
}
