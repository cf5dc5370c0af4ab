/**
 * Collects formatted records (prepared and compressed at ingest) into a batch and remembers exactly which
 * queue records the batch consumed (kept or not), so the batch can be recorded before sending, re-sent
 * exactly after a crash, and committed. A batch closes on the first of: its byte limit (uncompressed),
 * its record limit, or its interval since the first record arrived.
 *
 * Records come in two forms: all of a job's kept records of a chunk as one text (the usual case; long
 * texts were compressed at ingest), or one record at a time (when a chunk's records do not fit in any
 * batch, or only some of them are to be sent). `compressBatch` turns a batch into its gzip object,
 * compressing only what ingest did not.
 */
import type { BatchSegment, InflightBatch } from '../queue/queue.ts';
import { rangeIdOf } from '../queue/range-id.ts';
import { deflateText, type DeflatedText } from '../ingest/deflated-text.ts';
import { gzipOfPieces } from './gzip-of-pieces.ts';
import type { BatchLimits } from '../ingest/job-plan.ts';
import type { RecordFormatter } from '../ingest/stages/format.ts';

/** A stretch of a batch's text: as it is, or a piece compressed at ingest. */
export type BatchPart = { readonly kind: 'text'; readonly text: Buffer } | { readonly kind: 'deflated'; readonly piece: DeflatedText };

/** The uncompressed bytes of a part. */
export function bytesOf(part: BatchPart): number {
  return part.kind === 'text' ? part.text.length : part.piece.length;
}

/** A closed batch: its text in parts (framing included), what it holds, and the queue range it consumed. */
export interface ClosedBatch {
  readonly parts: readonly BatchPart[];
  readonly records: number;
  /** Uncompressed bytes of the records and the delimiters between them. */
  readonly bytes: number;
  readonly range: InflightBatch;
}

/** The framing of a batch: what goes before, between and after its records. */
export interface BatchFraming {
  readonly prefix: Buffer;
  readonly delimiter: Buffer;
  readonly suffix: Buffer;
}

export function batchFraming(formatter: RecordFormatter): BatchFraming {
  return { prefix: Buffer.from(formatter.batchPrefix), delimiter: Buffer.from(formatter.recordDelimiter), suffix: Buffer.from(formatter.batchSuffix) };
}

/** Limits that never close a batch (a batch re-sent after a crash is rebuilt whole). */
export const noBatchLimits: BatchLimits = { maxBytes: Infinity, maxRecords: Infinity, maxIntervalMs: Infinity };

/** Whether `next` starts in memory exactly where `previous` ends. */
function adjoins(previous: Buffer, next: Buffer): boolean {
  return previous.buffer === next.buffer && previous.byteOffset + previous.length === next.byteOffset;
}

export class Batcher {
  private readonly limits: BatchLimits;
  private readonly framing: BatchFraming;
  /**
   * The batch's text so far, without the prefix and suffix. With no delimiter, a record that directly
   * follows the previous one in memory extends its part: a batch taken record by record then holds a few
   * large views instead of one object per record, which would otherwise burden the garbage collector.
   */
  private parts: BatchPart[] = [];
  private records = 0;
  private bytes = 0;
  private segments: BatchSegment[] = [];
  private firstAppendMs = 0;
  private lastAppendMs = 0;
  private openedAtMs: number | undefined;

  constructor(limits: BatchLimits, framing: BatchFraming) {
    this.limits = limits;
    this.framing = framing;
  }

  /** Records the open batch holds for delivery (those filtered or sampled out not counted). */
  heldRecords(): number {
    return this.records;
  }

  /** True when nothing was consumed since the last take. */
  isEmpty(): boolean {
    return this.segments.length === 0;
  }

  /** When the interval limit closes the open batch (ms since the epoch); undefined when nothing is open. */
  deadline(): number | undefined {
    return this.openedAtMs === undefined ? undefined : this.openedAtMs + this.limits.maxIntervalMs;
  }

  /** Whether a batch can hold `records` records of `bytes` bytes (delimiters between them included) at all. */
  fits(records: number, bytes: number): boolean {
    return records <= this.limits.maxRecords && bytes <= this.limits.maxBytes;
  }

  /** Whether adding `records` records of `bytes` bytes must close the open batch first. */
  wouldOverflow(records: number, bytes: number): boolean {
    if (records === 0 || this.records === 0) return false;
    return this.records + records > this.limits.maxRecords || this.bytes + this.framing.delimiter.length + bytes > this.limits.maxBytes;
  }

  /**
   * Consumes queue record `index` of chunk `seq`; `record` is its formatted bytes, or undefined when the
   * record was filtered or sampled out (it is still part of the range the batch commits).
   */
  consume(seq: number, index: number, appendedAtMs: number, record: Buffer | undefined, nowMs: number): void {
    this.extendRange(seq, index, index + 1, appendedAtMs, nowMs);
    if (record === undefined) return;
    this.addDelimiter();
    this.bytes += record.length;
    this.records += 1;
    const last = this.parts[this.parts.length - 1];
    if (last?.kind === 'text' && this.framing.delimiter.length === 0 && adjoins(last.text, record)) {
      this.parts[this.parts.length - 1] = { kind: 'text', text: Buffer.from(last.text.buffer, last.text.byteOffset, last.text.length + record.length) };
    } else {
      this.parts.push({ kind: 'text', text: record });
    }
  }

  /**
   * Consumes queue records [from, to) of chunk `seq`, whose `records` kept ones are the whole of `text`
   * (joined by the record delimiter); `text` is undefined when none of them was kept.
   */
  consumeText(seq: number, from: number, to: number, appendedAtMs: number, text: BatchPart | undefined, records: number, nowMs: number): void {
    this.extendRange(seq, from, to, appendedAtMs, nowMs);
    if (text === undefined || records === 0) return;
    this.addDelimiter();
    this.bytes += bytesOf(text);
    this.records += records;
    this.parts.push(text);
  }

  private extendRange(seq: number, from: number, to: number, appendedAtMs: number, nowMs: number): void {
    const last = this.segments[this.segments.length - 1];
    if (last !== undefined && last.seq === seq && last.to === from) {
      this.segments[this.segments.length - 1] = { seq, from: last.from, to };
    } else {
      this.segments.push({ seq, from, to });
    }
    if (this.openedAtMs === undefined) {
      this.openedAtMs = nowMs;
      this.firstAppendMs = appendedAtMs;
    }
    this.lastAppendMs = appendedAtMs;
  }

  private addDelimiter(): void {
    if (this.records === 0 || this.framing.delimiter.length === 0) return;
    this.bytes += this.framing.delimiter.length;
    this.parts.push({ kind: 'text', text: this.framing.delimiter });
  }

  /** Whether the open batch must close now: full, or its interval has passed. */
  shouldClose(nowMs: number): boolean {
    if (this.isEmpty()) return false;
    if (this.records >= this.limits.maxRecords || this.bytes >= this.limits.maxBytes) return true;
    return nowMs >= (this.deadline() ?? Infinity);
  }

  /** Closes the open batch and starts a new one. */
  take(): ClosedBatch {
    const segments = this.segments;
    const framed: BatchPart[] = this.records === 0 ? [] : [{ kind: 'text', text: this.framing.prefix }, ...this.parts, { kind: 'text', text: this.framing.suffix }];
    const batch: ClosedBatch = {
      parts: framed,
      records: this.records,
      bytes: this.bytes,
      range: { rangeId: rangeIdOf(segments), segments, firstAppendMs: this.firstAppendMs, lastAppendMs: this.lastAppendMs },
    };
    this.parts = [];
    this.records = 0;
    this.bytes = 0;
    this.segments = [];
    this.openedAtMs = undefined;
    return batch;
  }
}

/**
 * The gzip object of a batch's parts: pieces compressed at ingest are used as they are; each run of text
 * between them is compressed here, at `level`, on libuv's thread pool.
 */
export async function compressBatch(parts: readonly BatchPart[], level: number): Promise<Buffer> {
  const pieces: (DeflatedText | Promise<DeflatedText>)[] = [];
  let run: Buffer[] = [];
  const endRun = () => {
    const text = run.length === 1 ? (run[0] as Buffer) : Buffer.concat(run);
    if (text.length > 0) pieces.push(deflateText(text, level));
    run = [];
  };
  for (const part of parts) {
    if (part.kind === 'text') run.push(part.text);
    else {
      endRun();
      pieces.push(part.piece);
    }
  }
  endRun();
  return gzipOfPieces(await Promise.all(pieces));
}
