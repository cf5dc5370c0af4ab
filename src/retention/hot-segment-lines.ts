/**
 * The lines of a hot segment (zstd frames of NDJSON laid end to end), decompressed as they are read: a
 * segment holds up to tens of megabytes compressed and ten times that as text, so only a window of it is in
 * memory at a time.
 */
// The low-level binding: zstd-napi's stream classes allocate a buffer for every 128 KB they give.
import zstd from 'zstd-napi/binding.js';

/** Compressed bytes read at a time, and the least room left for decompressed text at each step. */
const readBytes = 1024 * 1024;
const textBytes = 1024 * 1024;

const newline = 0x0a;

/** A segment file open for reading from where it was last read (a FileHandle is one; so is a descriptor, wrapped). */
export interface SegmentFile {
  read(buffer: Buffer, offset: number, length: number, position: null): Promise<{ readonly bytesRead: number }>;
}

/**
 * Whole lines of the segment open as `file`, each ending in a newline, in pieces of many lines. A piece is
 * valid until the next is asked for (its memory is reused): a reader copies what it keeps. A last line
 * without a newline gets one; a segment that ends inside a frame is an error.
 */
export async function* hotSegmentLines(file: SegmentFile): AsyncGenerator<Buffer> {
  const decompressor = new zstd.DCtx();
  const input = Buffer.allocUnsafe(readBytes);
  let text = Buffer.allocUnsafe(2 * textBytes);
  /** Bytes of text held: the start of a line whose end has not been decompressed yet. */
  let held = 0;
  let inFrame = false;
  for (;;) {
    const { bytesRead } = await file.read(input, 0, readBytes, null);
    if (bytesRead === 0) break;
    let source = input.subarray(0, bytesRead);
    for (;;) {
      if (text.length - held < textBytes) {
        // A line longer than the room: a larger buffer for it.
        const larger = Buffer.allocUnsafe(2 * text.length);
        text.copy(larger, 0, 0, held);
        text = larger;
      }
      const room = text.length - held;
      const [left, produced, consumed] = decompressor.decompressStream(text.subarray(held), source);
      source = source.subarray(consumed);
      inFrame = left !== 0;
      const filled = held + produced;
      // The held bytes hold no newline: the last one, if any, ends the new text's whole lines.
      const last = produced === 0 ? -1 : text.lastIndexOf(newline, filled - 1);
      if (last >= 0) {
        yield text.subarray(0, last + 1);
        held = filled - last - 1;
        text.copyWithin(0, last + 1, filled);
      } else held = filled;
      // The source is used up and the decompressor has nothing more to give for it.
      if (source.length === 0 && produced < room) break;
    }
  }
  if (inFrame) throw new Error('the hot segment ends inside a zstd frame');
  if (held > 0) {
    if (text.length === held) {
      const larger = Buffer.allocUnsafe(held + 1);
      text.copy(larger, 0, 0, held);
      text = larger;
    }
    text[held] = newline;
    yield text.subarray(0, held + 1);
  }
}
