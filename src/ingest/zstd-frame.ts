/**
 * Zstandard frames: the codec of a retained copy (retained-text.ts). Level 1 compresses a batch of events
 * about 13-fold at ~2 µs per 1.3 KB event, twice as fast as deflate level 1, and DuckDB reads a file of
 * frames laid end to end (`….ndjson.zst`) directly, so the retention writer appends each chunk's frame to a
 * hot segment as it is (docs/retention.md). The native library is `zstd-napi` (docs/decisions.md says why).
 */
import { Compressor, decompress } from 'zstd-napi';

/** The level a retained copy is compressed at: the fastest of zstd's regular levels. */
export const retainedZstdLevel = 1;

/** One compression context per thread and level: making one costs more than compressing a small text. */
const compressors = new Map<number, Compressor>();

/** The text as one zstd frame (with its content size, so a reader can size its buffer). */
export function zstdFrame(text: Uint8Array, level: number = retainedZstdLevel): Buffer {
  let compressor = compressors.get(level);
  if (compressor === undefined) {
    compressor = new Compressor();
    compressor.setParameters({ compressionLevel: level });
    compressors.set(level, compressor);
  }
  return compressor.compress(text);
}

/** The text of one or more zstd frames laid end to end. */
export function unzstd(frames: Uint8Array): Buffer {
  return decompress(frames);
}
