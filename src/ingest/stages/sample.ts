import type { EventRecord } from '../../domain/datasets/event-record.ts';

/** Keeps a record or not; the same record gets the same answer on every node and every retry. */
export type Sampler = (record: EventRecord) => boolean;

/** FNV-1a over the UTF-16 code units of a string, as an unsigned 32-bit integer. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Samples by a hash of the record's RayID: a record is kept when its hash, read as a fraction of 2^32,
 * is below the rate. Deterministic, so a retried or re-read batch keeps exactly the same records.
 */
export function compileSampler(rate: number): Sampler {
  if (rate >= 1) return () => true;
  const threshold = rate * 0x1_0000_0000;
  return (record) => {
    const rayId = record.RayID;
    return fnv1a32(typeof rayId === 'string' ? rayId : '') < threshold;
  };
}
