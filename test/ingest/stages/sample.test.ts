/**
 * The sampler: a record is kept or not by a hash of its RayID alone, so every node and every re-send of a
 * batch decides the same way, and the share kept matches the rate.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { compileSampler, fnv1a32 } from '../../../src/ingest/stages/sample.ts';

/** `n` random RayIDs shaped like the product's: 16 lowercase hex characters. */
function randomRayIds(n: number): string[] {
  const bytes = randomBytes(8 * n).toString('hex');
  return Array.from({ length: n }, (_, i) => bytes.slice(16 * i, 16 * i + 16));
}

describe('the sampler', () => {
  it('decides by RayID alone: the same RayID gets the same answer, whatever else the record holds', () => {
    const sample = compileSampler(0.5);
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.integer(), (rayId, host, status) => {
        const first = sample({ RayID: rayId });
        assert.equal(compileSampler(0.5)({ RayID: rayId, ClientRequestHost: host, EdgeResponseStatus: status }), first);
        assert.equal(sample({ RayID: rayId }), first);
      }),
    );
  });

  it('keeps about 10% of 100,000 random RayIDs at rate 0.1', () => {
    const sample = compileSampler(0.1);
    const kept = randomRayIds(100_000).filter((RayID) => sample({ RayID })).length;
    // The standard deviation of the count is about 95; 600 is more than six of them.
    assert.ok(Math.abs(kept - 10_000) < 600, `kept ${kept}`);
  });

  it('keeps what a lower rate keeps at every higher rate', () => {
    const ids = randomRayIds(5000);
    const low = compileSampler(0.2);
    const high = compileSampler(0.6);
    for (const RayID of ids) if (low({ RayID })) assert.equal(high({ RayID }), true, RayID);
  });

  it('keeps every record at rate 1, even one without a RayID', () => {
    const sample = compileSampler(1);
    for (const RayID of randomRayIds(1000)) assert.equal(sample({ RayID }), true);
    assert.equal(sample({}), true);
  });

  it('hashes with FNV-1a (32 bit), so other tools can predict which records are kept', () => {
    // Reference values of FNV-1a 32: the empty string is the offset basis; "a" is 0xe40c292c.
    assert.equal(fnv1a32(''), 0x811c9dc5);
    assert.equal(fnv1a32('a'), 0xe40c292c);
    assert.equal(fnv1a32('foobar'), 0xbf9cf968);
  });
});
