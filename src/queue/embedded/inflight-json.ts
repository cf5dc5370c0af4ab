/**
 * How an in-flight batch is written down, so a runner that restarts re-sends exactly the same records.
 * Segments are stored as `[seq, from, to]` triples: a batch of many small chunks stays compact.
 */
import type { BatchSegment, InflightBatch } from '../queue.ts';

/** The stored text of an in-flight batch. */
export function encodeInflight(batch: InflightBatch): string {
  return JSON.stringify({
    rangeId: batch.rangeId,
    firstAppendMs: batch.firstAppendMs,
    lastAppendMs: batch.lastAppendMs,
    segments: batch.segments.map((s) => [s.seq, s.from, s.to]),
  });
}

/** Reads text written by `encodeInflight`; throws when it is not such text (the stored state is damaged). */
export function decodeInflight(text: string): InflightBatch {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) throw damaged('not an object');
  const record = value as Record<string, unknown>;
  const { rangeId, firstAppendMs, lastAppendMs, segments } = record;
  if (typeof rangeId !== 'string') throw damaged('rangeId is not a string');
  if (!isInteger(firstAppendMs) || !isInteger(lastAppendMs)) throw damaged('append times are not integers');
  if (!Array.isArray(segments)) throw damaged('segments is not an array');
  const parsed: BatchSegment[] = segments.map((segment: unknown) => {
    if (!Array.isArray(segment) || segment.length !== 3 || !segment.every(isInteger)) throw damaged('a segment is not [seq, from, to]');
    const [seq, from, to] = segment as [number, number, number];
    return { seq, from, to };
  });
  return { rangeId, firstAppendMs, lastAppendMs, segments: parsed };
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

function damaged(why: string): Error {
  return new Error(`the stored in-flight batch is damaged: ${why}`);
}
