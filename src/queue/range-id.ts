/**
 * The name of a batch's exact queue range. Object names are derived from it (with the job id), so it must
 * depend on the segments alone: the same records give the same string on every node and after a restart.
 */
import { createHash } from 'node:crypto';
import type { BatchSegment } from './queue.ts';

/**
 * `<first seq>.<from>-<last seq>.<to>`, plus a digest of every segment when the batch holds more than the
 * two ends say (several chunks, or gaps a shared JetStream consumer can leave), so two different ranges
 * never share a name.
 */
export function rangeIdOf(segments: readonly BatchSegment[]): string {
  const first = segments[0];
  const last = segments.at(-1);
  if (first === undefined || last === undefined) throw new Error('a batch range needs at least one segment');
  const ends = `${first.seq}.${first.from}-${last.seq}.${last.to}`;
  if (segments.length === 1) return ends;
  const digest = createHash('sha256');
  for (const s of segments) digest.update(`${s.seq}.${s.from}.${s.to};`);
  return `${ends}~${digest.digest('hex').slice(0, 12)}`;
}
