/**
 * The gzip framing around pieces compressed at ingest (ingest/deflated-text.ts): a header, the pieces end to
 * end, an empty final block, and a trailer whose CRC-32 is combined from the pieces' CRCs. The result is an
 * ordinary single-member gzip file.
 */
import type { DeflatedText } from '../ingest/deflated-text.ts';
import { crc32Combine } from './crc32-combine.ts';

// ID1 ID2, CM = deflate, no flags, no modification time, no extra flags, OS = Unix (as zlib writes it).
const gzipHeader = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]);
// A final fixed-Huffman block holding only its end code: BFINAL=1, BTYPE=01, then seven zero bits.
const finalEmptyBlock = Buffer.from([0x03, 0x00]);

/** One gzip object holding the pieces' texts one after the other. */
export function gzipOfPieces(pieces: readonly DeflatedText[]): Buffer {
  let crc = 0;
  let length = 0;
  const parts: Uint8Array[] = [gzipHeader];
  for (const piece of pieces) {
    parts.push(piece.deflated);
    crc = crc32Combine(crc, piece.crc, piece.length);
    length += piece.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  // ISIZE is the length modulo 2^32.
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  parts.push(finalEmptyBlock, trailer);
  return Buffer.concat(parts);
}
