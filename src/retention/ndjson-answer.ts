/**
 * The NDJSON answer of a Logpull call as it is gathered: `sample` decides by the RayID hash jobs use
 * (deterministic), `count` caps the lines kept after sampling, and the bytes go out in pieces of at least
 * `logpullPieceBytes` (fewer, larger writes to the response). Whoever makes the lines — DuckDB, the job
 * formatter, the projection of hot lines — asks it whether to keep each one, in order.
 */
import { fnv1a32 } from '../ingest/stages/sample.ts';
import { logpullPieceBytes } from './logpull-output.ts';
import type { LogpullOutput } from './logpull-query.ts';

/** One Logpull answer being gathered: what to keep, and the bytes kept so far. */
export class NdjsonAnswer {
  /** Lines that may still be kept (`count`; infinite without one). */
  left: number;
  /** Whether `count` caps the answer: without it, kept lines need not be counted. */
  readonly counts: boolean;
  /** Whether `keeps` needs the RayID (sampling): without it every line is kept. */
  readonly samples: boolean;
  private readonly threshold: number;
  private parts: Uint8Array[] = [];
  private bytes = 0;

  constructor(output: LogpullOutput) {
    this.left = output.count ?? Number.POSITIVE_INFINITY;
    this.counts = output.count !== undefined;
    this.samples = output.sample < 1;
    this.threshold = output.sample * 0x1_0000_0000;
  }

  /** Whether the answer is complete (`count` lines kept). */
  get done(): boolean {
    return this.left <= 0;
  }

  /** Whether the line of a record with this RayID is kept (counted when it is). */
  keeps(rayId: string): boolean {
    if (this.left <= 0 || (this.samples && fnv1a32(rayId) >= this.threshold)) return false;
    this.left -= 1;
    return true;
  }

  /** How many of `lines` lines, sampled already, are kept (and counted): all of them, or what `count` leaves. */
  keepsLines(lines: number): number {
    const kept = Math.min(lines, this.left);
    this.left -= kept;
    return kept;
  }

  /** Adds kept bytes (whole lines); they must not change until taken. */
  add(part: Uint8Array): void {
    if (part.byteLength === 0) return;
    this.parts.push(part);
    this.bytes += part.byteLength;
  }

  /**
   * What was gathered, once it is at least `atLeast` bytes (and not empty), in pieces: a part of
   * `ownPieceBytes` or more is a piece as it is, and the parts between such are joined (fewer, larger writes
   * without copying what is large already). Empty otherwise.
   */
  take(atLeast: number = logpullPieceBytes): Buffer[] {
    if (this.bytes === 0 || this.bytes < atLeast) return [];
    const pieces: Buffer[] = [];
    let small: Uint8Array[] = [];
    let smallBytes = 0;
    const joinSmall = (): void => {
      if (small.length === 0) return;
      pieces.push(small.length === 1 ? bufferOf(small[0] as Uint8Array) : Buffer.concat(small, smallBytes));
      small = [];
      smallBytes = 0;
    };
    for (const part of this.parts) {
      if (part.byteLength >= ownPieceBytes) {
        joinSmall();
        pieces.push(bufferOf(part));
      } else {
        small.push(part);
        smallBytes += part.byteLength;
      }
    }
    joinSmall();
    this.parts = [];
    this.bytes = 0;
    return pieces;
  }
}

/** Parts at least this large go to the response as they are. */
const ownPieceBytes = 64 * 1024;

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
