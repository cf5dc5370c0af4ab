import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeInflight, encodeInflight } from '../../../src/queue/embedded/inflight-json.ts';

const plain = { noNullPrototype: true } as const;
const segment = fc.record({ seq: fc.nat(), from: fc.nat({ max: 10_000 }), to: fc.nat({ max: 10_000 }) }, plain);
const batch = fc.record({
  rangeId: fc.string(),
  segments: fc.array(segment, { maxLength: 50 }),
  firstAppendMs: fc.nat(),
  lastAppendMs: fc.nat(),
}, plain);

describe('the stored form of an in-flight batch', () => {
  it('reads back exactly the batch that was written', () => {
    fc.assert(fc.property(batch, (b) => assert.deepEqual(decodeInflight(encodeInflight(b)), b)));
  });

  const damaged: readonly (readonly [string, string])[] = [
    ['text that is not JSON', '{'],
    ['a value that is not an object', '[1,2]'],
    ['a missing rangeId', '{"firstAppendMs":1,"lastAppendMs":2,"segments":[]}'],
    ['append times that are not integers', '{"rangeId":"r","firstAppendMs":1.5,"lastAppendMs":2,"segments":[]}'],
    ['segments that are not a list', '{"rangeId":"r","firstAppendMs":1,"lastAppendMs":2,"segments":{}}'],
    ['a segment of two numbers', '{"rangeId":"r","firstAppendMs":1,"lastAppendMs":2,"segments":[[1,2]]}'],
    ['a segment holding text', '{"rangeId":"r","firstAppendMs":1,"lastAppendMs":2,"segments":[[1,"0",2]]}'],
  ];
  for (const [what, text] of damaged) {
    it(`refuses ${what}`, () => {
      assert.throws(() => decodeInflight(text));
    });
  }
});
