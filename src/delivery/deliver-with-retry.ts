/**
 * The retry loop around one destination send. The destination classifies every failure (retry, with an
 * optional delay it asked for, or permanent); this loop only reads the outcome. Nothing is ever dropped
 * here: a batch is retried until it is delivered or the runner stops (a job that has not delivered for
 * too long is disabled by its runner, and its batch stays queued).
 */
import type { FailedOutcome, SendOutcome } from '../destinations/destination.ts';

/** Backoff settings: exponential from `baseDelayMs`, capped, with ±`jitter` of randomness. */
export interface RetryPolicy {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Permanent failures are retried too (the configuration may be fixed), but no faster than this. */
  readonly permanentDelayMs: number;
  readonly jitter: number;
  readonly random: () => number;
}

export const defaultRetryPolicy: RetryPolicy = {
  baseDelayMs: 1000,
  maxDelayMs: 300_000,
  permanentDelayMs: 60_000,
  jitter: 0.2,
  random: Math.random,
};

/** How long to wait before attempt `attempt + 1` after this failure (attempt counts from 1). */
export function retryDelayMs(attempt: number, outcome: FailedOutcome, policy: RetryPolicy): number {
  if (outcome.kind === 'retry' && outcome.afterMs !== undefined) return outcome.afterMs;
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt - 1, 30));
  const spread = 1 + policy.jitter * (2 * policy.random() - 1);
  const jittered = Math.round(Math.min(policy.maxDelayMs, exponential * spread));
  // The floor applies after the jitter: a configuration error is never retried faster than it.
  return outcome.kind === 'permanent' ? Math.max(jittered, policy.permanentDelayMs) : jittered;
}

/** Waits `ms`, or until the signal aborts; true when the wait ran out, false when aborted. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Sends until delivered, waiting between attempts; `onFailure` hears every failed attempt (to count it
 * and record the job's status). `send` gets the signal, so an attempt under way ends when it aborts.
 * Resolves 'delivered', or 'aborted' when the signal stops it.
 */
export async function deliverWithRetry(
  send: (signal: AbortSignal) => Promise<SendOutcome>,
  options: { readonly policy: RetryPolicy; readonly signal: AbortSignal; readonly onFailure: (outcome: FailedOutcome, attempt: number) => Promise<void> },
): Promise<'delivered' | 'aborted'> {
  for (let attempt = 1; ; attempt++) {
    if (options.signal.aborted) return 'aborted';
    const outcome = await send(options.signal);
    if (outcome.kind === 'delivered') return 'delivered';
    // An attempt cut short by the abort says nothing about the destination: it is not a failure.
    if (options.signal.aborted) return 'aborted';
    await options.onFailure(outcome, attempt);
    if (!(await sleep(retryDelayMs(attempt, outcome, options.policy), options.signal))) return 'aborted';
  }
}
