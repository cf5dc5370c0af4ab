/**
 * Pieces compressed on their own join into one ordinary gzip object: gunzip (node's, and the gzip command)
 * reads back exactly the pieces' texts in order, at every level, for any texts; a piece decompresses back
 * to its text; the async and sync compressors agree.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { gzipOfPieces } from '../../src/delivery/gzip-of-pieces.ts';
import { deflateText, deflateTextSync, inflateText } from '../../src/ingest/deflated-text.ts';

const records = (from: number, count: number) => Array.from({ length: count }, (_, i) => `{"RayID":"r${from + i}","ClientCountry":"us"}\n`).join('');

describe('deflated text', () => {
  it('stitches pieces into one gzip object that reads back as their texts in order', () => {
    const texts = [records(0, 500), records(500, 1), '', records(501, 2000)];
    for (const level of [1, 3, 6, 9]) {
      const gzip = gzipOfPieces(texts.map((t) => deflateTextSync(Buffer.from(t), level)));
      assert.equal(zlib.gunzipSync(gzip).toString(), texts.join(''), `level ${level}`);
    }
  });

  it('writes a single-member gzip file that the gzip command accepts', (t) => {
    const gzip = gzipOfPieces([records(0, 100), records(100, 100)].map((text) => deflateTextSync(Buffer.from(text), 3)));
    const check = spawnSync('gzip', ['-t'], { input: gzip });
    if (check.error !== undefined) return t.skip('no gzip command here');
    assert.equal(check.status, 0, check.stderr.toString());
    assert.equal(spawnSync('gzip', ['-dc'], { input: gzip }).stdout.toString(), records(0, 200));
  });

  it('writes an empty gzip object for no pieces', () => {
    assert.equal(zlib.gunzipSync(gzipOfPieces([])).length, 0);
  });

  it('decompresses a piece back to its text', async () => {
    const text = Buffer.from(records(0, 300));
    assert.deepEqual(await inflateText(deflateTextSync(text, 3)), text);
  });

  it('compresses the same on the thread pool as on the calling thread', async () => {
    const text = Buffer.from(records(0, 300));
    assert.deepEqual(await deflateText(text, 3), deflateTextSync(text, 3));
  });

  it('reads back any texts at any level', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 400 }), { maxLength: 8 }), fc.integer({ min: 1, max: 9 }), (texts, level) => {
        const gzip = gzipOfPieces(texts.map((t) => deflateTextSync(Buffer.from(t), level)));
        assert.equal(zlib.gunzipSync(gzip).toString(), texts.join(''));
      }),
      { numRuns: 200 },
    );
  });
});
