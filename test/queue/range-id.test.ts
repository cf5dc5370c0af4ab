import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { rangeIdOf } from '../../src/queue/range-id.ts';

const segment = fc.record({ seq: fc.nat({ max: 1000 }), from: fc.nat({ max: 20 }), to: fc.nat({ max: 20 }) });
const segments = fc.array(segment, { minLength: 1, maxLength: 8 });

describe('the range id of a batch', () => {
  it('names a one-segment batch by its ends', () => {
    assert.equal(rangeIdOf([{ seq: 17, from: 3, to: 64 }]), '17.3-17.64');
  });

  it('starts with the first and last ends of a batch of several segments', () => {
    const id = rangeIdOf([{ seq: 5, from: 2, to: 10 }, { seq: 9, from: 0, to: 4 }]);
    assert.match(id, /^5\.2-9\.4~[0-9a-f]{12}$/);
  });

  it('is the same for the same segments and differs for different ones', () => {
    fc.assert(
      fc.property(segments, segments, (a, b) => {
        assert.equal(rangeIdOf(a), rangeIdOf(a.map((s) => ({ ...s }))));
        if (JSON.stringify(a) !== JSON.stringify(b)) assert.notEqual(rangeIdOf(a), rangeIdOf(b));
      }),
    );
  });

  it('refuses a batch without segments', () => {
    assert.throws(() => rangeIdOf([]), /at least one segment/);
  });
});
