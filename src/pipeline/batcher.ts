/**
 * Collects formatted records (bytes prepared at ingest) into a batch and remembers exactly which queue
 * records the batch consumed (kept or not), so the batch can be recorded before sending, re-sent exactly
 * after a crash, and committed. A batch closes on the first of: its byte limit (uncompressed), its record limit, or its
 * interval since the first record arrived.
 */
import type { BatchSegment, InflightBatch } from '../queue/queue.ts';
import { rangeIdOf } from '../queue/range-id.ts';
import type { BatchLimits } from './job-plan.ts';
import type { RecordFormatter } from './stages/format.ts';

/** A closed batch: its bytes (prefix, records, suffix), what it holds, and the queue range it consumed. */
export interface ClosedBatch {
  readonly body: Buffer;
  readonly records: number;
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

/** Joins formatted records into a batch body with the framing's prefix, delimiters and suffix. */
export function batchBody(framing: BatchFraming, records: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [framing.prefix];
  records.forEach((record, i) => {
    if (i > 0 && framing.delimiter.length > 0) parts.push(framing.delimiter);
    parts.push(record);
  });
  parts.push(framing.suffix);
  return Buffer.concat(parts);
}

/** Whether `next` starts in memory exactly where `previous` ends. */
function adjoins(previous: Buffer, next: Buffer): boolean {
  return previous.buffer === next.buffer && previous.byteOffset + previous.length === next.byteOffset;
}

export class Batcher {
  private readonly limits: BatchLimits;
  private readonly framing: BatchFraming;
  /**
   * The kept records, joined where they can be: with no delimiter, a record that directly follows the
   * previous one in the same chunk extends its part. A batch then holds a few large views instead of one
   * object per record, which would otherwise live until the batch closes and burden the garbage collector.
   */
  private parts: Buffer[] = [];
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

  /** True when nothing was consumed since the last take. */
  isEmpty(): boolean {
    return this.segments.length === 0;
  }

  /** When the interval limit closes the open batch (ms since the epoch); undefined when nothing is open. */
  deadline(): number | undefined {
    return this.openedAtMs === undefined ? undefined : this.openedAtMs + this.limits.maxIntervalMs;
  }

  /** Whether adding a record of this size must close the open batch first. */
  wouldOverflow(record: Buffer | undefined): boolean {
    if (record === undefined || this.records === 0) return false;
    return this.bytes + this.framing.delimiter.length + record.length > this.limits.maxBytes;
  }

  /**
   * Consumes queue record `index` of chunk `seq`; `record` is its formatted bytes, or undefined when the
   * record was filtered or sampled out (it is still part of the range the batch commits).
   */
  consume(seq: number, index: number, appendedAtMs: number, record: Buffer | undefined, nowMs: number): void {
    const last = this.segments[this.segments.length - 1];
    if (last !== undefined && last.seq === seq && last.to === index) {
      this.segments[this.segments.length - 1] = { seq, from: last.from, to: index + 1 };
    } else {
      this.segments.push({ seq, from: index, to: index + 1 });
    }
    if (this.openedAtMs === undefined) {
      this.openedAtMs = nowMs;
      this.firstAppendMs = appendedAtMs;
    }
    this.lastAppendMs = appendedAtMs;
    if (record !== undefined) {
      this.bytes += record.length + (this.records > 0 ? this.framing.delimiter.length : 0);
      this.records += 1;
      const last = this.parts[this.parts.length - 1];
      if (last !== undefined && this.framing.delimiter.length === 0 && adjoins(last, record)) {
        this.parts[this.parts.length - 1] = Buffer.from(last.buffer, last.byteOffset, last.length + record.length);
      } else {
        this.parts.push(record);
      }
    }
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
    const batch: ClosedBatch = {
      body: this.records === 0 ? Buffer.alloc(0) : batchBody(this.framing, this.parts),
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
