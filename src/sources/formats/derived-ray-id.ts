/**
 * A `RayID` for a source event that carries none: derived from where the line was read (the file's identity
 * and the line's byte offset), so reading the same line again after a crash or a restart gives the same id,
 * and sampling (a hash of `RayID`) keeps or drops it the same way.
 */
import { createHash } from 'node:crypto';
import type { LineOrigin } from './source-format.ts';

/** 16 lower-case hex characters, the shape of the product's Ray IDs. */
export function derivedRayId(origin: LineOrigin): string {
  return createHash('sha256').update(`${origin.fileId}@${origin.offset}`).digest('hex').slice(0, 16);
}
