import type { ManualClock } from '../../src/core/clock.ts';

/**
 * Waits for `check`, moving the node's manual clock on meanwhile: a retention writer closes its segments by
 * that clock, so retained events become readable only as it advances.
 */
export async function waitAdvancing(check: () => Promise<boolean>, what: string, clock: ManualClock, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    clock.advance(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
