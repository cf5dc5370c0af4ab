/**
 * Collects formatted records into a batch and remembers exactly which queue records the batch consumed
 * (kept or not), so the batch can be recorded before sending, re-sent exactly after a crash, and
 * committed. A batch closes on the first of: its byte limit (uncompressed), its record limit, or its
 * interval since the first record arrived.
 */
import type { BatchSegment, InflightBatch } from '../queue/queue.ts';
import { rangeIdOf } from '../queue/range-id.ts';
import type { BatchLimits } from './job-plan.ts';
import type { RecordFormatter } from './stages/format.ts';

/** A closed batch: its text (prefix, records, suffix), what it holds, and the queue range it consumed. */
export interface ClosedBatch {
  readonly text: string;
  readonly records: number;
  readonly bytes: number;
  readonly range: InflightBatch;
}

/** Joins records into a batch body with the formatter's prefix, delimiter and suffix. */
export function batchText(formatter: RecordFormatter, records: readonly string[]): string {
  return formatter.batchPrefix + records.join(formatter.recordDelimiter) + formatter.batchSuffix;
}

export class Batcher {
  private readonly limits: BatchLimits;
  private readonly formatter: RecordFormatter;
  private records: string[] = [];
  private bytes = 0;
  private segments: BatchSegment[] = [];
  private firstAppendMs = 0;
  private lastAppendMs = 0;
  private openedAtMs: number | undefined;

  constructor(limits: BatchLimits, formatter: RecordFormatter) {
    this.limits = limits;
    this.formatter = formatter;
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
  wouldOverflow(line: string | undefined): boolean {
    if (line === undefined || this.records.length === 0) return false;
    return this.bytes + Buffer.byteLength(line) + this.formatter.recordDelimiter.length > this.limits.maxBytes;
  }

  /**
   * Consumes queue record `index` of chunk `seq`; `line` is its formatted text, or undefined when the
   * record was filtered or sampled out (it is still part of the range the batch commits).
   */
  consume(seq: number, index: number, appendedAtMs: number, line: string | undefined, nowMs: number): void {
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
    if (line !== undefined) {
      this.bytes += Buffer.byteLength(line) + (this.records.length > 0 ? this.formatter.recordDelimiter.length : 0);
      this.records.push(line);
    }
  }

  /** Whether the open batch must close now: full, or its interval has passed. */
  shouldClose(nowMs: number): boolean {
    if (this.isEmpty()) return false;
    if (this.records.length >= this.limits.maxRecords || this.bytes >= this.limits.maxBytes) return true;
    return nowMs >= (this.deadline() ?? Infinity);
  }

  /** Closes the open batch and starts a new one. */
  take(): ClosedBatch {
    const segments = this.segments;
    const batch: ClosedBatch = {
      text: this.records.length === 0 ? '' : batchText(this.formatter, this.records),
      records: this.records.length,
      bytes: this.bytes,
      range: { rangeId: rangeIdOf(segments), segments, firstAppendMs: this.firstAppendMs, lastAppendMs: this.lastAppendMs },
    };
    this.records = [];
    this.bytes = 0;
    this.segments = [];
    this.openedAtMs = undefined;
    return batch;
  }
}
