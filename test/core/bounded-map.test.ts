/** boundedMap: the answers of Promise.all, in order, with never more than `limit` calls under way. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { boundedMap } from '../../src/core/bounded-map.ts';

describe('boundedMap', () => {
  it('answers in the list order with at most `limit` calls at once, whatever order they finish in', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(5), { maxLength: 40 }), fc.integer({ min: 1, max: 10 }), async (delays, limit) => {
        let running = 0;
        let most = 0;
        const answers = await boundedMap(delays, limit, async (delay) => {
          running += 1;
          most = Math.max(most, running);
          // Finishing after `delay` turns of the microtask queue: the calls end out of order.
          for (let i = 0; i < delay; i++) await Promise.resolve();
          running -= 1;
          return delay * 2;
        });
        assert.deepEqual(answers, delays.map((d) => d * 2));
        assert.ok(most <= limit, `${most} at once with a limit of ${limit}`);
        // Calls that wait at all overlap up to the limit.
        if (delays.length >= limit && delays.every((d) => d > 0)) assert.equal(most, limit);
      }),
    );
  });

  it('passes on the first failure', async () => {
    await assert.rejects(boundedMap([1, 2, 3], 2, async (n) => {
      if (n === 2) throw new Error('two');
      return n;
    }), /two/);
  });
});
