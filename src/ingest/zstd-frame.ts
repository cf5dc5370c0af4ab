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
 * The parameters a retained copy is compressed with: one of zstd's fast levels, with a smaller hash table
 * (2^12 entries instead of 2^13 at these levels: it stays in the core's nearest caches) and matches of 7
 * bytes at least (the default 6 finds more short matches than are worth their sequences). Measured on the
 * benchmark's 1.3 KB events in frames of ~1.5 MB, one core: level -3 as it is ~1.27 µs per event for a
 * ratio of 9.85; these ~1.18 µs for 10.8 (-3 with the same table and matches 1.18 µs for 9.8; level -1
 * ~1.3 µs for 11.4). Earlier, on another machine: level -3 ~0.8–1.1 µs for 8.7–9.9, level 1 ~1.0–1.9 µs for
 * 13–14, -10 ~0.7 µs for 6.3, deflate level 1 ~5 µs for 9.9. Ingest is what retention must not slow down,
 * and the hot tier only holds events until the compaction rewrites them as Parquet, so a fast level wins;
 * every byte less is also a byte less for the queue and the writer to carry. These parameters shape only
 * how the compressor searches: any zstd reader (DuckDB, `zstdcat`) reads the frames as before.
 */
export const retainedZstdParameters = { compressionLevel: -2, hashLog: 12, minMatch: 7 } as const;

/** The compression context of this thread (making one costs more than compressing a small text), and the room frames are written into. */
let context: binding.CCtx | undefined;
let room = Buffer.allocUnsafeSlow(0);

/**
 * The text as one zstd frame (with its content size, so a reader can size its buffer), as a view of this
 * thread's room for frames: valid until the next frame is made on the thread, so copy it at once.
 */
export function zstdFrameView(text: Uint8Array): Buffer {
  if (context === undefined) {
    context = new binding.CCtx();
    context.setParameter(binding.CParameter.compressionLevel, retainedZstdParameters.compressionLevel);
    context.setParameter(binding.CParameter.hashLog, retainedZstdParameters.hashLog);
    context.setParameter(binding.CParameter.minMatch, retainedZstdParameters.minMatch);
  }
  const bound = binding.compressBound(text.length);
  if (room.length < bound) room = Buffer.allocUnsafeSlow(Math.max(bound, 2 * room.length));
  return room.subarray(0, context.compress2(room, text));
}

/** The text as one zstd frame, in memory of its own. */
export function zstdFrame(text: Uint8Array): Buffer {
  return Buffer.from(zstdFrameView(text));
}

/** The text of one or more zstd frames laid end to end. */
export function unzstd(frames: Uint8Array): Buffer {
  return decompress(frames);
}
