/**
 * The bytes of a BLOB column of DuckDB's data chunks, copied out a run of rows at a time. The node API's
 * `getItemBytes` makes one native call and one ArrayBuffer per row — ~3 µs for a 3 KB Logpull line, more
 * than DuckDB takes to write it — while DuckDB writes a chunk's long values one after the other into its
 * string heap: rows whose bytes lie end to end (a couple of hundred at a time) are copied with one call. Each
 * row's `duckdb_string_t` (16 bytes: the length, then the bytes themselves when at most 12, else a prefix
 * and a pointer; duckdb.h) says where its bytes are, so a run is copied only over memory its rows name.
 * Little-endian hosts (x64, arm64), as DuckDB's own Node packages assume.
 */
import type { DuckDBDataChunk } from '@duckdb/node-api';
import type duckdb from '@duckdb/node-bindings';

type Bindings = typeof duckdb;

/** Bytes of one `duckdb_string_t`; values up to `maxInlined` bytes are held in it. */
const stringBytes = 16;
const maxInlined = 12;
const pointerOffset = 8;
const twoTo32 = 0x1_0000_0000;

let bindings: Promise<Bindings> | undefined;

/** Reads one BLOB column of each chunk it is given. */
export class BlobColumnReader {
  private readonly native: Bindings;
  private readonly column: number;
  private data: DataView = new DataView(new ArrayBuffer(0));
  /** A bit per row, set when the row is not NULL (null when none is). */
  private validity: Uint8Array | null = null;

  private constructor(native: Bindings, column: number) {
    this.native = native;
    this.column = column;
  }

  /** A reader of column `column` (DuckDB's bindings are loaded already: a connection gave the chunks). */
  static async of(column: number): Promise<BlobColumnReader> {
    bindings ??= import('@duckdb/node-bindings').then((module) => module.default);
    return new BlobColumnReader(await bindings, column);
  }

  /** Reads the column of `chunk`: what it answers next holds until the next chunk is fetched. */
  read(chunk: DuckDBDataChunk): void {
    const rows = chunk.rowCount;
    const vector = this.native.data_chunk_get_vector(chunk.chunk, this.column);
    const data = this.native.vector_get_data(vector, rows * stringBytes);
    this.data = new DataView(data.buffer, data.byteOffset, data.byteLength);
    // The bindings answer null for a vector without NULLs (their types say otherwise).
    this.validity = (this.native.vector_get_validity(vector, Math.ceil(rows / 64) * 8) as Uint8Array | null) ?? null;
  }

  isNull(row: number): boolean {
    const validity = this.validity;
    return validity !== null && (((validity[row >> 3] as number) >> (row & 7)) & 1) === 0;
  }

  /**
   * The bytes of rows [from, to), none of them NULL, in order: one copy per run of rows whose bytes lie end
   * to end in DuckDB's memory (they stay valid after the next chunk).
   */
  pieces(from: number, to: number): Uint8Array[] {
    const data = this.data;
    const pieces: Uint8Array[] = [];
    for (let row = from; row < to; ) {
      const at = row * stringBytes;
      let length = data.getUint32(at, true);
      row++;
      if (length <= maxInlined) {
        pieces.push(new Uint8Array(data.buffer.slice(data.byteOffset + at + 4, data.byteOffset + at + 4 + length)));
        continue;
      }
      // Pointers are below 2^53 (48-bit addresses): exact as numbers.
      const start = pointerAt(data, at);
      for (; row < to; row++) {
        const next = row * stringBytes;
        const more = data.getUint32(next, true);
        if (more <= maxInlined || pointerAt(data, next) !== start + length) break;
        length += more;
      }
      pieces.push(this.native.get_data_from_pointer(data.buffer as ArrayBuffer, data.byteOffset + at + pointerOffset, length));
    }
    return pieces;
  }
}

function pointerAt(data: DataView, at: number): number {
  return data.getUint32(at + pointerOffset + 4, true) * twoTo32 + data.getUint32(at + pointerOffset, true);
}
