/**
 * The retry loop: how long it waits after each failure (exponential, capped, jittered within bounds, a
 * destination's Retry-After taken exactly, permanent failures never faster than their floor), and that
 * `deliverWithRetry` sends until delivered and stops when its signal aborts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { delivered, permanent, retry, type FailedOutcome, type SendOutcome } from '../../src/destinations/destination.ts';
import { deliverWithRetry, retryDelayMs, sleep, type RetryPolicy } from '../../src/delivery/deliver-with-retry.ts';

/** A policy whose randomness is fixed: 0.5 is the middle of the jitter range (no jitter). */
function policy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return { baseDelayMs: 1000, maxDelayMs: 300_000, permanentDelayMs: 60_000, jitter: 0.2, random: () => 0.5, ...overrides };
}

const transient = retry('the HTTP destination answered 503');

describe('retryDelayMs', () => {
  it('doubles from the base delay with each attempt', () => {
    const p = policy();
    assert.deepEqual([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, transient, p)), [1000, 2000, 4000, 8000, 16000]);
  });

  it('never waits longer than the cap, however many attempts failed', () => {
    const p = policy({ maxDelayMs: 10_000 });
    assert.equal(retryDelayMs(5, transient, p), 10_000);
    assert.equal(retryDelayMs(1000, transient, p), 10_000);
    assert.equal(retryDelayMs(1000, transient, policy({ maxDelayMs: 10_000, random: () => 0.999 })), 10_000, 'jitter does not lift it past the cap');
  });

  it('spreads each delay within ±jitter of its exponential value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const p = policy({ random: () => r });
        const exact = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** (attempt - 1));
        const delay = retryDelayMs(attempt, transient, p);
        assert.ok(delay >= Math.floor(exact * 0.8) && delay <= Math.min(p.maxDelayMs, Math.ceil(exact * 1.2)), `${delay} for ${exact}`);
      }),
    );
    const lowest = retryDelayMs(1, transient, policy({ random: () => 0 }));
    const highest = retryDelayMs(1, transient, policy({ random: () => 0.999999 }));
    assert.deepEqual([lowest, highest], [800, 1200]);
  });

  it("waits exactly the delay a destination asked for with Retry-After, without jitter or cap", () => {
    const p = policy({ maxDelayMs: 10_000, random: () => 0 });
    assert.equal(retryDelayMs(1, retry('429', 7000), p), 7000);
    assert.equal(retryDelayMs(9, retry('429', 7000), p), 7000, 'whatever the attempt');
    assert.equal(retryDelayMs(1, retry('429', 30_000), p), 30_000, 'the destination capped it already (Retry-After is read with a cap)');
    assert.equal(retryDelayMs(1, retry('429', 0), p), 0);
  });

  it('retries permanent failures no faster than permanentDelayMs, whatever the jitter', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const p = policy({ random: () => r });
        const delay = retryDelayMs(attempt, permanent('403'), p);
        assert.ok(delay >= p.permanentDelayMs, `${delay} after attempt ${attempt}`);
        assert.ok(delay <= p.maxDelayMs);
      }),
    );
  });

  it('lets permanent failures back off exponentially above their floor', () => {
    const p = policy({ baseDelayMs: 1000, permanentDelayMs: 5000, maxDelayMs: 100_000 });
    assert.deepEqual([1, 3, 4, 5, 8].map((attempt) => retryDelayMs(attempt, permanent('403'), p)), [5000, 5000, 8000, 16000, 100_000]);
  });
});

describe('sleep', () => {
  it('ends early, answering false, when the signal aborts', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const waiting = sleep(10_000, controller.signal);
    setTimeout(() => controller.abort(), 20);
    assert.equal(await waiting, false);
    assert.ok(performance.now() - started < 1000);
    assert.equal(await sleep(10_000, controller.signal), false, 'an aborted signal does not wait at all');
    assert.equal(await sleep(5, new AbortController().signal), true);
  });
});

describe('deliverWithRetry', () => {
  const fast = policy({ baseDelayMs: 1, maxDelayMs: 5, permanentDelayMs: 5, jitter: 0 });

  /** A send that answers the given outcomes in turn, then delivered. */
  function scripted(outcomes: readonly FailedOutcome[]): { send: () => Promise<SendOutcome>; calls: () => number } {
    let calls = 0;
    return {
      send: async () => outcomes[calls++] ?? delivered,
      calls: () => calls,
    };
  }

  it('sends until delivered, telling onFailure of every failed attempt with its number', async () => {
    const script = scripted([transient, permanent('403'), retry('429', 1)]);
    const heard: [string, number][] = [];
    const result = await deliverWithRetry(script.send, {
      policy: fast,
      signal: new AbortController().signal,
      onFailure: async (outcome, attempt) => {
        heard.push([outcome.kind, attempt]);
      },
    });
    assert.equal(result, 'delivered');
    assert.equal(script.calls(), 4);
    assert.deepEqual(heard, [['retry', 1], ['permanent', 2], ['retry', 3]]);
  });

  it('stops, answering aborted, when the signal aborts while it waits to retry', async () => {
    const controller = new AbortController();
    const script = scripted(Array.from({ length: 1000 }, () => retry('down', 60_000)));
    const started = performance.now();
    const result = deliverWithRetry(script.send, {
      policy: fast,
      signal: controller.signal,
      onFailure: async () => {
        setTimeout(() => controller.abort(), 10);
      },
    });
    assert.equal(await result, 'aborted');
    assert.equal(script.calls(), 1, 'no second attempt after the abort');
    assert.ok(performance.now() - started < 5000);
  });

  it('hands the signal to the attempt under way, and does not count an attempt the abort cut short as a failure', async () => {
    const controller = new AbortController();
    const failures: string[] = [];
    const send = (signal: AbortSignal): Promise<SendOutcome> =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve(retry('stopped')), { once: true }));
    setTimeout(() => controller.abort(), 10);
    const result = await deliverWithRetry(send, {
      policy: fast,
      signal: controller.signal,
      onFailure: async (outcome) => {
        failures.push(outcome.reason);
      },
    });
    assert.equal(result, 'aborted');
    assert.deepEqual(failures, []);
  });

  it('does not send at all once the signal has aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const script = scripted([]);
    assert.equal(await deliverWithRetry(script.send, { policy: fast, signal: controller.signal, onFailure: async () => undefined }), 'aborted');
    assert.equal(script.calls(), 0);
  });

  it('waits the Retry-After delay between attempts', async () => {
    const times: number[] = [];
    let calls = 0;
    const send = async (): Promise<SendOutcome> => {
      times.push(performance.now());
      return calls++ === 0 ? retry('429', 150) : delivered;
    };
    await deliverWithRetry(send, { policy: fast, signal: new AbortController().signal, onFailure: async () => undefined });
    const gap = (times[1] ?? 0) - (times[0] ?? 0);
    assert.ok(gap >= 145 && gap < 1000, `waited ${gap} ms`);
  });
});
