/**
 * Text compressed in pieces that join into one gzip stream. Ingest compresses each job's kept records of a
 * chunk on a worker thread; a runner then builds a batch's gzip object by laying those pieces end to end
 * between a header and a trailer (delivery/gzip-of-pieces.ts), without compressing anything again (the way
 * pigz compresses in parallel).
 *
 * A piece is raw deflate that ends with a sync flush: its blocks are not final and it ends on a byte
 * boundary, so another piece can follow it, and its back-references reach only into its own text.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

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
