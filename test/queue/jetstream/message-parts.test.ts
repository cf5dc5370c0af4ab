import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { messagePartsOf } from '../../../src/queue/jetstream/message-parts.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function chunkOfLines(lengths: readonly number[]): { payload: Uint8Array; count: number } {
  return { payload: encoder.encode(lengths.map((n, i) => `${String(i).padEnd(n, 'x')}\n`).join('')), count: lengths.length };
}

describe('the messages of a chunk', () => {
  it('are the chunk itself when it fits', () => {
    const chunk = chunkOfLines([10, 20]);
    assert.deepEqual(messagePartsOf(chunk, 100), [chunk]);
  });

  it('are whole records, in order, each within the limit, and hold every record once', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 41, max: 200 }), (lengths, limit) => {
        const chunk = chunkOfLines(lengths);
        const parts = messagePartsOf(chunk, limit);
        assert.ok(parts.every((part) => part.payload.byteLength <= limit));
        assert.equal(parts.map((part) => decoder.decode(part.payload)).join(''), decoder.decode(chunk.payload));
        for (const part of parts) assert.equal(part.count, decoder.decode(part.payload).split('\n').length - 1);
        assert.equal(parts.reduce((sum, part) => sum + part.count, 0), chunk.count);
      }),
    );
  });

  it('refuses a record larger than one message can be', () => {
    assert.throws(() => messagePartsOf(chunkOfLines([10, 500, 10]), 100), /larger than the NATS server takes/);
  });

  it('refuses a chunk whose count does not match its lines', () => {
    assert.throws(() => messagePartsOf({ ...chunkOfLines([60, 60]), count: 3 }, 100), /says it holds 3 records/);
  });
});
