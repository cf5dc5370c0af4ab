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

/** The answer's pieces from the hot segment open as `file`. Stops when the answer is done. */
export async function* readHotNdjson(file: SegmentFile, projection: LineProjection, answer: NdjsonAnswer, readRefused: RefusedReader, redacts: boolean): AsyncGenerator<Buffer> {
  let out = Buffer.allocUnsafe(outBytes);
  /** Projected lines kept are at [from, at) of `out`, not yet added to the answer. */
  let from = 0;
  let at = 0;
  let refused: Buffer[] = [];
  let refusedBytes = 0;
  let runs = 0;
  const handOut = (): void => {
    if (at === from) return;
    if (redacts) redact(out, from, at);
    answer.add(out.subarray(from, at));
    from = at;
  };
  async function* readHeld(): AsyncGenerator<Buffer> {
    handOut();
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
        handOut();
        out = Buffer.allocUnsafe(Math.max(outBytes, need));
        from = 0;
        at = 0;
        // Handed to the response as it is, not joined with the next (the piece stays valid meanwhile).
        yield* answer.take();
      }
      const written = runs >= maxRefusedRuns ? refusedLine : projection.project(piece, start, end, out, at);
      if (written === refusedLine) {
        // A copy: the piece's memory is reused for the next one.
        refused.push(Buffer.from(piece.subarray(start, end + 1)));
        refusedBytes += end + 1 - start;
      } else if (written !== skippedLine) {
        // Refused lines come before this one: DuckDB's lines for them go first (the projected line stays where
        // it is in `out`, after what was handed out).
        if (refused.length > 0) yield* readHeld();
        if (answer.keeps(answer.samples ? projection.rayId() : '')) at = written;
      }
      start = end + 1;
    }
    if (refusedBytes >= maxRefusedBytes) yield* readHeld();
    if (at - from >= logpullPieceBytes) handOut();
    yield* answer.take();
    if (answer.done) break;
  }
  if (refused.length > 0 && !answer.done) yield* readHeld();
  handOut();
}
