/** Requests made while a run waits share it; a request made while a run is under way gets one more run. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CoalescedRuns } from '../../src/core/coalesced-runs.ts';

describe('coalesced runs', () => {
  it('runs a burst of requests once, and once more for requests made during the run', async () => {
    let runs = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const coalesced = new CoalescedRuns(async () => {
      runs += 1;
      if (runs === 1) await gate;
    });
    const burst = [coalesced.request(), coalesced.request(), coalesced.request()];
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(runs, 1);
    // The first run is under way: these share one more run.
    const later = [coalesced.request(), coalesced.request()];
    release();
    await Promise.all([...burst, ...later]);
    assert.equal(runs, 2);
    await coalesced.idle();
    assert.equal(runs, 2);
  });
});
