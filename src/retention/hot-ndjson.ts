/**
 * Logpull's lines from one hot segment without DuckDB: the segment is decompressed as it is read
 * (hot-segment-lines.ts) and each line projected onto the asked-for fields (line-projection.ts) straight into
 * the answer's buffers. The lines the projection cannot vouch for are handed, in runs and in their place in
 * the order, to `readRefused` (DuckDB reading them as it reads a hot segment), so the answer is the one DuckDB
 * would give for the whole segment.
 */
import { hotSegmentLines, type SegmentFile } from './hot-segment-lines.ts';
import { type LineProjection, refusedLine, skippedLine } from './line-projection.ts';
import type { NdjsonAnswer } from './ndjson-answer.ts';
import { logpullPieceBytes } from './logpull-output.ts';

/** Reads refused lines (whole, each with its newline) into the answer, yielding its pieces. */
export type RefusedReader = (lines: readonly Buffer[]) => AsyncIterable<Buffer>;

/** The room of a buffer the projection writes into: a few pieces' worth. */
const outBytes = 2 * logpullPieceBytes;
/** Refused lines held before DuckDB reads them even though no projected line follows yet. */
const maxRefusedBytes = 16 * 1024 * 1024;
/**
 * Runs of refused lines in one segment after which every later line of it goes to DuckDB too: a segment whose
 * lines mostly need DuckDB (a client that escapes every `/`) costs a few large reads, not one per line.
 */
const maxRefusedRuns = 16;

const newline = 0x0a;
const dollar = 0x24;
const openBrace = 0x7b;

/** Replaces each `${` by `x{` (CVE-2021-44228), as DuckDB's query and the formatter do. */
function redact(bytes: Uint8Array, start: number, end: number): void {
  for (let i = start; i < end - 1; i++) if (bytes[i] === dollar && bytes[i + 1] === openBrace) bytes[i] = 0x78;
}

/**
 * The answer's pieces from the hot segment open as `file`. Stops when the answer is done. The lines are
 * projected into buffers from `allocate` (one of at least that many bytes), each handed to the answer once and
 * never written again, so a thread can move it to another instead of copying it.
 */
export async function* readHotNdjson(
  file: SegmentFile,
  projection: LineProjection,
  answer: NdjsonAnswer,
  readRefused: RefusedReader,
  redacts: boolean,
  allocate: (bytes: number) => Buffer = Buffer.allocUnsafe,
): AsyncGenerator<Buffer> {
  let out = allocate(outBytes);
  /** Projected lines kept are at [0, at) of `out`, not yet added to the answer. */
  let at = 0;
  let refused: Buffer[] = [];
  let refusedBytes = 0;
  let runs = 0;
  /** Adds the kept lines to the answer; the next go to a new buffer of at least `need` bytes (none when 0: the end). */
  const handOut = (need = outBytes): void => {
    if (at > 0) {
      if (redacts) redact(out, 0, at);
      answer.add(out.subarray(0, at));
    }
    if (need > 0 && (at > 0 || out.length < need)) out = allocate(Math.max(outBytes, need));
    at = 0;
  };
  async function* readHeld(need?: number): AsyncGenerator<Buffer> {
    handOut(need);
    const lines = refused;
    refused = [];
    refusedBytes = 0;
    runs += 1;
    yield* readRefused(lines);
  }
  for await (const piece of hotSegmentLines(file)) {
    let start = 0;
    while (start < piece.length && !answer.done) {
      const end = piece.indexOf(newline, start);
      // An empty line holds no event (DuckDB skips it too).
      if (end === start) {
        start = end + 1;
        continue;
      }
      const need = projection.maxOutputBytes(end - start);
      if (out.length - at < need) {
        handOut(need);
        // Handed to the response as it is, not joined with the next.
        yield* answer.take();
      }
      const written = runs >= maxRefusedRuns ? refusedLine : projection.project(piece, start, end, out, at);
      if (written === refusedLine) {
        // A copy: the piece's memory is reused for the next one.
        refused.push(Buffer.from(piece.subarray(start, end + 1)));
        refusedBytes += end + 1 - start;
      } else if (written !== skippedLine) {
        let stop = written;
        if (refused.length > 0) {
          // Refused lines come before this one: DuckDB's lines for them go first, after the kept ones, and this
          // line (written after those) starts the next buffer.
          const line = Buffer.from(out.subarray(at, written));
          yield* readHeld(line.length);
          out.set(line, 0);
          stop = line.length;
        }
        if (answer.keeps(answer.samples ? projection.rayId() : '')) at = stop;
      }
      start = end + 1;
    }
    if (refusedBytes >= maxRefusedBytes) yield* readHeld();
    if (at >= logpullPieceBytes) handOut();
    yield* answer.take();
    if (answer.done) break;
  }
  if (refused.length > 0 && !answer.done) yield* readHeld();
  handOut(0);
}
