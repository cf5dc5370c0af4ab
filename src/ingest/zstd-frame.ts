/**
 * Zstandard frames: the codec of a retained copy (retained-text.ts). DuckDB reads a file of frames laid end
 * to end (`….ndjson.zst`) directly, so the retention writer appends each chunk's frame to a hot segment as
 * it is (docs/retention.md). The native library is `zstd-napi` (docs/decisions.md says why).
 */
import { Compressor, decompress } from 'zstd-napi';

/**
 * The level a retained copy is compressed at: one of zstd's fast levels. Measured on the benchmark's 1.3 KB
 * events in 1 MB batches: level -3 takes ~1.1 µs per event for a ratio of 8.7, level 1 ~1.9 µs for 13
 * (deflate level 1: ~5 µs for 9.9). Ingest is what retention must not slow down, and the hot tier only holds
 * events until the compaction rewrites them as Parquet, so the faster level wins.
 */
export const retainedZstdLevel = -3;

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
