/**
 * Zstandard frames: the codec of a retained copy (retained-text.ts). DuckDB reads a file of frames laid end
 * to end (`….ndjson.zst`) directly, so the retention writer appends each chunk's frame to a hot segment as
 * it is (docs/retention.md). The native library is `zstd-napi` (docs/decisions.md says why); its low-level
 * binding compresses into memory kept from one frame to the next, where its `Compressor` allocates room for
 * the worst case (a little more than the text: ~2 MiB a chunk) and then copies the frame out of it, which
 * kept the garbage collector busy with memory outside its heap.
 */
import binding from 'zstd-napi/binding.js';
import { decompress } from 'zstd-napi';

/**
 * The level a retained copy is compressed at: one of zstd's fast levels. Measured on the benchmark's 1.3 KB
 * events in 1 MB batches: level -3 takes ~0.8–1.1 µs per event for a ratio of 8.7–9.9, level 1 ~1.0–1.9 µs
 * for 13–14, and the faster levels gain little more (-10: ~0.7 µs for 6.3); deflate level 1 ~5 µs for 9.9.
 * Ingest is what retention must not slow down, and the hot tier only holds events until the compaction
 * rewrites them as Parquet, so the faster level wins.
 */
export const retainedZstdLevel = -3;

/** One compression context per thread and level (making one costs more than compressing a small text), and the room frames are written into. */
const contexts = new Map<number, binding.CCtx>();
let room = Buffer.allocUnsafeSlow(0);

/**
 * The text as one zstd frame (with its content size, so a reader can size its buffer), as a view of this
 * thread's room for frames: valid until the next frame is made on the thread, so copy it at once.
 */
export function zstdFrameView(text: Uint8Array, level: number = retainedZstdLevel): Buffer {
  let context = contexts.get(level);
  if (context === undefined) {
    context = new binding.CCtx();
    context.setParameter(binding.CParameter.compressionLevel, level);
    contexts.set(level, context);
  }
  const bound = binding.compressBound(text.length);
  if (room.length < bound) room = Buffer.allocUnsafeSlow(Math.max(bound, 2 * room.length));
  return room.subarray(0, context.compress2(room, text));
}

/** The text as one zstd frame, in memory of its own. */
export function zstdFrame(text: Uint8Array, level: number = retainedZstdLevel): Buffer {
  return Buffer.from(zstdFrameView(text, level));
}

/** The text of one or more zstd frames laid end to end. */
export function unzstd(frames: Uint8Array): Buffer {
  return decompress(frames);
}
