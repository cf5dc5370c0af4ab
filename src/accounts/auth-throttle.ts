/**
 * Throttling of failed credential checks: dashboard sign-ins, global API keys and API tokens. Failures are
 * counted per account (the e-mail address) and per client address in fixed one-minute windows, in the
 * store (so nodes sharing a PostgreSQL store share the counts). Past the limit the answer is 429 with
 * Retry-After until the window ends.
 *
 * Passwords and keys/tokens are counted apart, and a success clears only its own kind: a password's failures
 * end with a sign-in with that password, never with a use of the account's key, which its owner's scripts make
 * all day (else anyone could guess 9 passwords, wait for the owner's next request, and guess 9 more).
 *
 * A sign-in is counted *before* its password is checked (`attempt`), not after it failed: counted after,
 * a burst of guesses sent at once would all pass a check made before any of them was counted.
 */
import { AppError } from '../core/app-error.ts';
import type { Clock } from '../core/clock.ts';
import type { AuthFailureCount, Store } from '../store/store.ts';

export const authFailureWindowMs = 60_000;

/** What was tried: a dashboard password, or a global API key or API token. */
export type SecretKind = 'password' | 'credential';

/**
 * The keys failures are counted under: the account (when one was named) and the client address, each in the
 * secret's own kind. The account's key comes first.
 */
export function throttleKeys(kind: SecretKind, email: string | undefined, ip: string): readonly string[] {
  return email === undefined ? [`${kind}:ip:${ip}`] : [`${kind}:account:${email}`, `${kind}:ip:${ip}`];
}

function isAccountKey(key: string): boolean {
  return key.includes(':account:');
}

export class AuthThrottle {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly limit: number;
  /** Keys this node counted a failure for lately, so a success clears them without a write on every request. */
  private readonly failedHere = new Map<string, number>();

  constructor(store: Store, clock: Clock, limit: number) {
    this.store = store;
    this.clock = clock;
    this.limit = limit;
  }

  private refusal(counts: readonly AuthFailureCount[]): AppError | undefined {
    const over = counts.filter((c) => c.failures >= this.limit);
    if (over.length === 0) return undefined;
    const endsMs = Math.max(...over.map((c) => c.windowStartMs + authFailureWindowMs));
    const seconds = Math.max(1, Math.ceil((endsMs - this.clock.now()) / 1000));
    return new AppError('tooManyAuthFailures', `too many failed sign-ins or credential checks; retry in ${seconds} seconds`, seconds);
  }

  /**
   * Counts a sign-in attempt under every key before its password is checked, and throws 429 when a key had
   * already used up its failures in this window. A failed attempt stays counted; one that succeeds is
   * settled with `attemptSucceeded`.
   */
  async attempt(keys: readonly string[]): Promise<void> {
    const refusal = await this.failed(keys);
    if (refusal !== undefined) throw refusal;
  }

  /**
   * A counted sign-in attempt succeeded: the account's password failures are forgotten, and the attempt no
   * longer counts against the client address (whose earlier failures stay: else one account of an attacker's
   * own would reset the address between guesses at others).
   */
  async attemptSucceeded(keys: readonly string[]): Promise<void> {
    const now = this.clock.now();
    for (const key of keys) {
      if (isAccountKey(key)) await this.succeeded(key);
      else await this.store.releaseAuthFailure(key, now, authFailureWindowMs);
    }
  }

  /**
   * Counts a failure under every key; answers the 429 to throw instead of the failure's own error when this
   * failure went over the limit (the limit-th failure still gets its own answer; the next one is refused).
   */
  async failed(keys: readonly string[]): Promise<AppError | undefined> {
    const now = this.clock.now();
    const counts: AuthFailureCount[] = [];
    for (const key of keys) {
      counts.push(await this.store.recordAuthFailure(key, now, authFailureWindowMs));
      this.failedHere.set(key, now);
    }
    if (this.failedHere.size > 10_000) {
      for (const [key, at] of this.failedHere) if (at <= now - authFailureWindowMs) this.failedHere.delete(key);
    }
    return this.refusal(counts.map((c) => ({ ...c, failures: c.failures - 1 })));
  }

  /**
   * A success: forgets the account's failures of the same kind as `accountKey` (a key's success: only key and
   * token failures; the address's expire with their window).
   */
  async succeeded(accountKey: string): Promise<void> {
    if (!this.failedHere.has(accountKey)) return;
    this.failedHere.delete(accountKey);
    await this.store.clearAuthFailures([accountKey]);
  }
}
