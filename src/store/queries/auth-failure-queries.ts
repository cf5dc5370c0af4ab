/**
 * Failed credential checks per key (an account or a client address) in fixed windows. One upsert counts a
 * failure and restarts an expired window atomically, so nodes sharing a PostgreSQL store share the count.
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

export async function authFailures(db: Db, keys: readonly string[], nowMs: number, windowMs: number): Promise<readonly AuthFailureCount[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .selectFrom('auth_failures')
    .select(['failures', 'window_start'])
    .where('key', 'in', [...keys])
    .where('window_start', '>', iso(nowMs - windowMs))
    .execute();
  return rows.map((r) => ({ failures: Number(r.failures), windowStartMs: Date.parse(r.window_start) }));
}

export async function clearAuthFailures(db: Db, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.deleteFrom('auth_failures').where('key', 'in', [...keys]).execute();
}

export async function pruneAuthFailures(db: Db, beforeMs: number): Promise<void> {
  await db.deleteFrom('auth_failures').where('window_start', '<', iso(beforeMs)).execute();
}
