/**
 * A request body as sent → its bytes, decompressed when it is gzip, never past the body limit (a small body
 * that would inflate to gigabytes is refused without the node ever holding more than the limit).
 */
import zlib from 'node:zlib';
import type { ErrorDetail, ErrorKind } from '../core/app-error.ts';
import { err, ok, type Result } from '../core/result.ts';

/** Why a body could not be taken: the error to answer with and its details. */
export interface BodyRefusal {
  readonly kind: ErrorKind;
  readonly details: readonly ErrorDetail[];
}

export function inflateBody(bytes: Uint8Array, encoding: 'identity' | 'gzip', limitBytes: number): Result<Uint8Array, BodyRefusal> {
  if (encoding === 'identity') return ok(bytes);
  try {
    return ok(zlib.gunzipSync(bytes, { maxOutputLength: limitBytes }));
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      return err({ kind: 'payloadTooLarge', details: [{ message: `The decompressed body is over the ${limitBytes}-byte limit` }] });
    }
    return err({ kind: 'ingestInvalid', details: [{ message: 'The body is not valid gzip' }] });
  }
}
