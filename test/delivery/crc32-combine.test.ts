/**
 * crc32Combine: the CRC-32 of two byte strings one after the other from their CRCs and the second one's
 * length equals zlib's CRC-32 of the joined bytes — for chosen edge cases and any bytes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { crc32Combine } from '../../src/delivery/crc32-combine.ts';

function combined(a: Uint8Array, b: Uint8Array): number {
  return crc32Combine(zlib.crc32(a), zlib.crc32(b), b.length);
}

describe('crc32Combine', () => {
  const cases: { name: string; a: Buffer; b: Buffer }[] = [
    { name: 'two empty strings', a: Buffer.alloc(0), b: Buffer.alloc(0) },
    { name: 'an empty second string', a: Buffer.from('logexport'), b: Buffer.alloc(0) },
    { name: 'an empty first string', a: Buffer.alloc(0), b: Buffer.from('logexport') },
    { name: 'one byte each', a: Buffer.from('a'), b: Buffer.from('b') },
    { name: 'a long run of zero bytes after text', a: Buffer.from('{"RayID":"1"}\n'), b: Buffer.alloc(1 << 20) },
    { name: 'multi-byte UTF-8 text', a: Buffer.from('naïve '), b: Buffer.from('日本語 → ✓\n') },
  ];
  for (const { name, a, b } of cases) {
    it(`equals the CRC of the joined bytes for ${name}`, () => {
      assert.equal(combined(a, b), zlib.crc32(Buffer.concat([a, b])));
    });
  }

  it('equals the CRC of the joined bytes for any two byte strings', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 5000 }), (a, b) => {
        assert.equal(combined(a, b), zlib.crc32(Buffer.concat([a, b])));
      }),
    );
  });

  it('folds over any number of pieces to the CRC of all of them', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 12 }), (pieces) => {
        const crc = pieces.reduce((acc, piece) => crc32Combine(acc, zlib.crc32(piece), piece.length), 0);
        assert.equal(crc, zlib.crc32(Buffer.concat(pieces)));
      }),
    );
  });
});
