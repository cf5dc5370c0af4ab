/** The fast UTF-8 encoders give exactly what Buffer.from(text, 'utf8') gives, for ASCII and for any text. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { joinUtf8, utf8Bytes } from '../../src/core/utf8-bytes.ts';

// Any code points (lone surrogates included, which UTF-8 writes as U+FFFD), and plain ASCII.
const anyText = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-ascii' }), fc.string({ unit: 'binary-ascii' }));

describe('UTF-8 bytes of strings', () => {
  it('encodes a string as Buffer.from does', () => {
    fc.assert(fc.property(anyText, (text) => assert.deepEqual(utf8Bytes(text), Buffer.from(text, 'utf8'))));
  });

  it('joins texts by a delimiter as join and Buffer.from do, with each text’s byte length', () => {
    fc.assert(
      fc.property(fc.array(anyText, { maxLength: 12 }), fc.constantFrom('', '\n', ',', '\r\n', '␞'), (texts, delimiter) => {
        const joined = joinUtf8(texts, delimiter);
        assert.deepEqual(joined.bytes, Buffer.from(texts.join(delimiter), 'utf8'));
        assert.deepEqual(joined.lengths, texts.map((t) => Buffer.byteLength(t, 'utf8')));
      }),
    );
  });

  it('writes a Latin-1 character that is not ASCII as two bytes', () => {
    assert.deepEqual([...joinUtf8(['é', 'a'], '\n').bytes], [0xc3, 0xa9, 0x0a, 0x61]);
    assert.deepEqual([...utf8Bytes('ÿ')], [0xc3, 0xbf]);
  });
});
