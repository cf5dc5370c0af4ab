/**
 * Text compressed in pieces that join into one gzip stream. Ingest compresses each job's kept records of a
 * chunk on a worker thread; a runner then builds a batch's gzip object by laying those pieces end to end
 * between a header and a trailer, without compressing anything again (the way pigz compresses in parallel).
 *
 * A piece is raw deflate that ends with a sync flush: its blocks are not final and it ends on a byte
 * boundary, so another piece can follow it, and its back-references reach only into its own text. The
 * stitched stream ends with an empty final block; the gzip trailer's CRC-32 is combined from the pieces'.
 * The result is an ordinary single-member gzip file.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { crc32Combine } from './crc32-combine.ts';

/** A piece of text compressed on its own: its raw deflate bytes, and the CRC-32 and length of the text. */
export interface DeflatedText {
  readonly deflated: Uint8Array;
  readonly crc: number;
  /** Bytes of the text before compression. */
  readonly length: number;
}

const deflateRaw = promisify(zlib.deflateRaw);
const inflateRaw = promisify(zlib.inflateRaw);
const pieceOptions = (level: number): zlib.ZlibOptions => ({ level, finishFlush: zlib.constants.Z_SYNC_FLUSH });

/** Compresses a piece on the calling thread (ingest does, on its worker). */
export function deflateTextSync(text: Uint8Array, level: number): DeflatedText {
  return { deflated: zlib.deflateRawSync(text, pieceOptions(level)), crc: zlib.crc32(text), length: text.byteLength };
}

/** Compresses a piece on libuv's thread pool (a runner does, for text it could not take from ingest's pieces). */
export async function deflateText(text: Uint8Array, level: number): Promise<DeflatedText> {
  return { deflated: await deflateRaw(text, pieceOptions(level)), crc: zlib.crc32(text), length: text.byteLength };
}

/** The text of a piece (a piece has no final block, so the stream is read to its flush point, not its end). */
export function inflateText(piece: DeflatedText): Promise<Buffer> {
  return inflateRaw(piece.deflated, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
}

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
