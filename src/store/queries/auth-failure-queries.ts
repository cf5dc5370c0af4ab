/**
 * Failed credential checks per key (an account or a client address) in fixed windows. One upsert counts a
 * failure and restarts an expired window atomically, and answers the count, so nodes sharing a PostgreSQL
 * store share it and parallel attempts each see their own place in it.
 */
import { sql } from 'kysely';
import type { AuthFailureCount } from '../store.ts';
import type { Db } from './query-db.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export async function recordAuthFailure(db: Db, key: string, nowMs: number, windowMs: number): Promise<AuthFailureCount> {
  const now = iso(nowMs);
  const expired = iso(nowMs - windowMs);
  const row = await db
    .insertInto('auth_failures')
    .values({ key, window_start: now, failures: 1 })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        failures: sql<number>`CASE WHEN auth_failures.window_start <= ${expired} THEN 1 ELSE auth_failures.failures + 1 END`,
        window_start: sql<string>`CASE WHEN auth_failures.window_start <= ${expired} THEN ${now} ELSE auth_failures.window_start END`,
      }),
    )
    .returning(['failures', 'window_start'])
    .executeTakeFirstOrThrow();
  return { failures: Number(row.failures), windowStartMs: Date.parse(row.window_start) };
}

export async function clearAuthFailures(db: Db, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.deleteFrom('auth_failures').where('key', 'in', [...keys]).execute();
}

export async function releaseAuthFailure(db: Db, key: string, nowMs: number, windowMs: number): Promise<void> {
  await db
    .updateTable('auth_failures')
    .set({ failures: sql<number>`failures - 1` })
    .where('key', '=', key)
    .where('window_start', '>', iso(nowMs - windowMs))
    .where('failures', '>', 0)
    .execute();
}

export async function pruneAuthFailures(db: Db, beforeMs: number): Promise<void> {
  await db.deleteFrom('auth_failures').where('window_start', '<', iso(beforeMs)).execute();
}
