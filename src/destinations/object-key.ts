/**
 * Names of delivered objects. A batch's name depends only on the job, the batch's exact queue range and
 * that range's append times, so a batch re-sent after a crash lands on the same name and overwrites
 * itself instead of appearing twice.
 */
import { createHash } from 'node:crypto';

/** What an object name is made of. */
export interface ObjectKeyInput {
  /** The destination path, possibly holding `{DATE}`; `""` for the root. */
  readonly pathTemplate: string;
  readonly jobId: number;
  /** A string the queue gives for the batch's exact range (same range, same string, on every node). */
  readonly rangeId: string;
  /** Queue append time of the batch's first record, Unix milliseconds. */
  readonly firstAppendMs: number;
  /** Queue append time of the batch's last record, Unix milliseconds. */
  readonly lastAppendMs: number;
}

/** `<path with {DATE} → YYYYMMDD>/<start>_<end>_<8 hex>.log.gz`, times in UTC. */
export function objectKey(input: ObjectKeyInput): string {
  const name = `${compactTimestamp(input.firstAppendMs)}_${compactTimestamp(input.lastAppendMs)}_${batchSuffix(input.jobId, input.rangeId)}.log.gz`;
  return joinKey(expandDate(input.pathTemplate, input.firstAppendMs), name);
}

/**
 * The name of part `part` (from 0) of a replay of [startMs, endMs): derived from the job and the window
 * only, so replaying the same window again overwrites the same objects instead of adding copies.
 * `<path with {DATE} → day of the start>/replay_<start>_<end>_<8 hex>_<part, 5 digits>.log.gz`.
 */
export function replayObjectKey(pathTemplate: string, jobId: number, startMs: number, endMs: number, part: number): string {
  const name = `replay_${compactTimestamp(startMs)}_${compactTimestamp(endMs)}_${batchSuffix(jobId, `replay:${startMs}-${endMs}`)}_${String(part).padStart(5, '0')}.log.gz`;
  return joinKey(expandDate(pathTemplate, startMs), name);
}

/**
 * Where a file that belongs to the destination rather than to a day goes (the ownership challenge, the
 * validation probe): the path up to, not including, its first segment holding `{DATE}`.
 */
export function staticKey(pathTemplate: string, fileName: string): string {
  const segments = pathTemplate === '' ? [] : pathTemplate.split('/');
  const firstDated = segments.findIndex((segment) => segment.includes('{DATE}'));
  const fixed = firstDated === -1 ? segments : segments.slice(0, firstDated);
  return joinKey(fixed.join('/'), fileName);
}

/** Replaces every `{DATE}` with the UTC day of `ms` as `YYYYMMDD`. */
export function expandDate(pathTemplate: string, ms: number): string {
  return pathTemplate.replaceAll('{DATE}', compactTimestamp(ms).slice(0, 8));
}

/** `YYYYMMDDTHHMMSSZ` in UTC. */
export function compactTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

/** 8 hex characters that only the job id and the queue range decide. */
function batchSuffix(jobId: number, rangeId: string): string {
  return createHash('sha256').update(`${jobId}\u0000${rangeId}`, 'utf8').digest('hex').slice(0, 8);
}

function joinKey(directory: string, name: string): string {
  return directory === '' ? name : `${directory}/${name}`;
}
