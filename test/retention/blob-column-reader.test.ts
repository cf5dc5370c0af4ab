/** A BLOB column of DuckDB's chunks read a run of rows at a time gives each row's bytes, as the node API reads them one by one. */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBBlobVector } from '@duckdb/node-api';
import { BlobColumnReader } from '../../src/retention/blob-column-reader.ts';

describe('the BLOB column reader', () => {
  const instance = DuckDBInstance.create(':memory:', { threads: '2' });
  after(async () => (await instance).closeSync());

  // NULLs, values held inline (at most 12 bytes) and longer ones, over several chunks.
  const sql = `SELECT CASE WHEN i % 7 = 3 THEN NULL WHEN i % 5 = 0 THEN encode('s' || i) ELSE encode(repeat('x', (i * 37) % 3000) || i || chr(10)) END AS b, i FROM range(10000) t(i)`;

  it('gives the bytes of every run of rows as the rows hold them, and copies long runs at once', async () => {
    const connection = await (await instance).connect();
    const result = await connection.stream(sql);
    const reader = await BlobColumnReader.of(0);
    let rows = 0;
    let pieces = 0;
    for (;;) {
      const chunk = await result.fetchChunk();
      if (chunk === null || chunk.rowCount === 0) break;
      reader.read(chunk);
      const vector = chunk.getColumnVector(0) as DuckDBBlobVector;
      const expected: Buffer[] = [];
      const got: Uint8Array[] = [];
      for (let r = 0; r < chunk.rowCount; ) {
        const bytes = vector.getItemBytes(r);
        assert.equal(reader.isNull(r), bytes === null, `row ${rows + r}`);
        if (bytes === null) {
          r++;
          continue;
        }
        let end = r;
        while (end < chunk.rowCount && !reader.isNull(end)) expected.push(Buffer.from(vector.getItemBytes(end++) as Uint8Array));
        const run = reader.pieces(r, end);
        pieces += run.length;
        got.push(...run);
        r = end;
      }
      assert.deepEqual(Buffer.concat(got), Buffer.concat(expected));
      rows += chunk.rowCount;
    }
    connection.closeSync();
    assert.equal(rows, 10_000);
    assert.ok(pieces < rows / 2, `${pieces} pieces for ${rows} rows`);
  });

  it('reads the bytes of a run of one row and of a run cut short', async () => {
    const connection = await (await instance).connect();
    const result = await connection.stream(`SELECT encode(repeat('y', 20 + i) || chr(10)) FROM range(100) t(i)`);
    const chunk = await result.fetchChunk();
    assert.ok(chunk !== null);
    const reader = await BlobColumnReader.of(0);
    reader.read(chunk);
    assert.equal(Buffer.concat(reader.pieces(5, 6)).toString(), `${'y'.repeat(25)}\n`);
    assert.equal(Buffer.concat(reader.pieces(0, 3)).toString(), ['y'.repeat(20), 'y'.repeat(21), 'y'.repeat(22), ''].join('\n'));
    connection.closeSync();
  });
});
