/**
 * The log of configuration changes: every write that changes a zone's rulesets or jobs, or an API token, adds
 * a row in its own transaction, so every node's config watcher learns of it.
 */
import type { ConfigChange } from '../store.ts';
import type { Db } from './query-db.ts';

/** Notes that a zone's configuration changed, inside the transaction that changed it. */
export async function recordChange(db: Db, zoneId: string): Promise<void> {
  await db.insertInto('config_changes').values({ zone_id: zoneId, changed_at: new Date().toISOString() }).execute();
}

/** Notes that an API token changed or went away, inside the transaction that changed it. */
export async function recordTokenChange(db: Db, tokenId: string): Promise<void> {
  await db.insertInto('config_changes').values({ zone_id: '', token_id: tokenId, changed_at: new Date().toISOString() }).execute();
}

export async function configChangesSince(db: Db, seq: number): Promise<readonly ConfigChange[]> {
  const rows = await db.selectFrom('config_changes').select(['seq', 'zone_id', 'token_id']).where('seq', '>', seq).orderBy('seq').execute();
  return rows.map((r): ConfigChange => (r.token_id === null ? { seq: Number(r.seq), kind: 'zone', zoneId: r.zone_id } : { seq: Number(r.seq), kind: 'token', tokenId: r.token_id }));
}

export async function latestConfigChange(db: Db): Promise<number> {
  const row = await db
    .selectFrom('config_changes')
    .select((eb) => eb.fn.max<number | null>('seq').as('seq'))
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

export async function pruneConfigChanges(db: Db, before: string): Promise<void> {
  // The newest change is always kept: a node starting later reads its number as its starting point.
  const latest = await latestConfigChange(db);
  await db.deleteFrom('config_changes').where('changed_at', '<', before).where('seq', '<', latest).execute();
}
