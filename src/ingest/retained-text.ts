/**
 * The retained section of a chunk being built: each event whole, one JSON object per line, for the
 * retention writer to load into a segment (src/retention/). When the request line already says everything
 * in its canonical form — timestamps as their nanosecond digits, as edges send them (the parser tells) —
 * the line's own bytes are copied from the request body, with the captured custom fields added, instead of
 * serialising the record again: the copy costs a fraction of a microsecond, a `JSON.stringify` of the
 * record and the encoding of its text many. The writer reads only dataset fields, so the raw header arrays
 * the line also carries are ignored there. Other events (no body bytes to copy, a timestamp rewritten) are
 * kept as the record's JSON. The section is compressed at the fastest level: stored as it is, it cost the
 * queue more (writing, syncing and reading back a kilobyte and a half more per event) than the compression
 * costs here. Pure.
 */
import { utf8Bytes } from '../core/utf8-bytes.ts';
import type { EventRecord } from '../domain/datasets/event-record.ts';
import { eventStatus, retainedSectionId, type SectionInput } from './chunk-format.ts';

/** A request body and the text ingest decoded it to; `ascii` says every character is one byte, so the offsets agree. */
export interface RequestBody {
  readonly bytes: Uint8Array;
  readonly ascii: boolean;
}

const comma = 0x2c;
const closingBrace = 0x7d;
const newline = 0x0a;
const empty = new Uint8Array(0);

function isSpace(code: number | undefined): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0a;
}

/** The retained events of one chunk; `take` turns them into the chunk's section and starts afresh. */
export class RetainedSection {
  /** Per event: where its line starts in the body, or -1 when the event is all in `texts`. */
  private starts: number[] = [];
  private ends: number[] = [];
  /**
   * Per event, one after the other: what capture added as JSON members (`"RequestHeaders":{…},…`, or
   * nothing) for a line, the whole event's JSON otherwise. One string, encoded once.
   */
  private texts = '';
  /** Where each event's part of `texts` ends (characters). */
  private textEnds: number[] = [];
  /** Bytes held so far (characters for texts: about as many). */
  size = 0;

  /**
   * Adds an event: its line at [start, end) of `body` when the line is canonical and the body is ASCII,
   * else its record; `captured` is what capture added to the record (undefined: nothing).
   */
  add(record: EventRecord, captured: object | undefined, body: RequestBody | undefined, start: number, end: number, asSent: boolean): void {
    if (body !== undefined && body.ascii && asSent) {
      const bytes = body.bytes;
      while (start < end && isSpace(bytes[start])) start++;
      while (end > start && isSpace(bytes[end - 1])) end--;
      if (bytes[start] === 0x7b && bytes[end - 1] === 0x7d) {
        if (captured !== undefined) {
          const members = JSON.stringify(captured).slice(1, -1);
          this.texts += members;
          this.size += members.length + 1;
        }
        this.starts.push(start);
        this.ends.push(end);
        this.textEnds.push(this.texts.length);
        this.size += end - start + 1;
        return;
      }
    }
    const text = JSON.stringify(record);
    this.texts += text;
    this.starts.push(-1);
    this.ends.push(0);
    this.textEnds.push(this.texts.length);
    this.size += text.length + 1;
  }

  /** The section of the events added since the last `take`, joined by newlines. */
  take(body: RequestBody | undefined): SectionInput {
    const count = this.starts.length;
    const texts = utf8Bytes(this.texts);
    // ASCII (the usual case): a character's offset is its byte's; otherwise each part is encoded on its own.
    const ascii = texts.length === this.texts.length;
    const source = body?.bytes ?? empty;
    // Per event: its part of `texts` as bytes, and whether its line (if any) is an empty object.
    const parts: Uint8Array[] = new Array<Uint8Array>(count);
    const emptyLines: boolean[] = new Array<boolean>(count);
    const recordLengths: number[] = new Array<number>(count);
    let total = count - 1;
    let textStart = 0;
    for (let i = 0; i < count; i++) {
      const start = this.starts[i] as number;
      const end = this.ends[i] as number;
      const textEnd = this.textEnds[i] as number;
      const part = textEnd === textStart ? empty : ascii ? texts.subarray(textStart, textEnd) : Buffer.from(this.texts.slice(textStart, textEnd), 'utf8');
      textStart = textEnd;
      const emptyLine = start >= 0 && part.length > 0 && isEmptyObject(source, start, end);
      // A line with members added loses its closing brace and gains a comma (unless it is empty), the members, the brace.
      const length = start < 0 ? part.length : end - start + (part.length === 0 ? 0 : part.length + (emptyLine ? 0 : 1));
      parts[i] = part;
      emptyLines[i] = emptyLine;
      recordLengths[i] = length;
      total += length;
    }
    const out = scratchOf(Math.max(0, total));
    let cursor = 0;
    for (let i = 0; i < count; i++) {
      const start = this.starts[i] as number;
      const end = this.ends[i] as number;
      const part = parts[i] as Uint8Array;
      if (start >= 0 && part.length === 0) {
        out.set(source.subarray(start, end), cursor);
        cursor += end - start;
      } else {
        if (start >= 0) {
          out.set(source.subarray(start, end - 1), cursor);
          cursor += end - 1 - start;
          if (!(emptyLines[i] as boolean)) out[cursor++] = comma;
        }
        out.set(part, cursor);
        cursor += part.length;
        if (start >= 0) out[cursor++] = closingBrace;
      }
      if (i + 1 < count) out[cursor++] = newline;
    }
    this.starts = [];
    this.ends = [];
    this.texts = '';
    this.textEnds = [];
    this.size = 0;
    // The text is a view of the scratch buffer, valid until the next `take`: the chunk compresses it at once.
    return { jobId: retainedSectionId, statuses: new Uint8Array(count).fill(eventStatus.kept), recordLengths, delimiterLength: 1, text: out, level: 1 };
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

/** Whether the line at [start, end) of the body, braces included, holds only spaces between its braces. */
function isEmptyObject(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start + 1; i < end - 1; i++) if (!isSpace(bytes[i])) return false;
  return true;
}
