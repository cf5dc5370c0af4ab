/** The per-zone retention flag (Logpull): one row per zone that ever set it; no row means off. */
import { recordChange } from './config-change-queries.ts';
import type { Db } from './query-db.ts';

export async function getRetentionFlag(db: Db, zoneId: string): Promise<boolean> {
  const row = await db.selectFrom('zone_retention').select('flag').where('zone_id', '=', zoneId).executeTakeFirst();
  return row !== undefined && Number(row.flag) === 1;
}

/** Sets the flag and records the configuration change in the same transaction. */
export async function setRetentionFlag(db: Db, zoneId: string, flag: boolean, now: string): Promise<void> {
  await db
    .insertInto('zone_retention')
    .values({ zone_id: zoneId, flag: flag ? 1 : 0, updated_at: now })
    .onConflict((oc) => oc.column('zone_id').doUpdateSet({ flag: flag ? 1 : 0, updated_at: now }))
    .execute();
  await recordChange(db, zoneId);
}

export async function listRetentionZones(db: Db): Promise<readonly string[]> {
  const rows = await db.selectFrom('zone_retention').select('zone_id').where('flag', '=', 1).orderBy('zone_id').execute();
  return rows.map((r) => r.zone_id);
}
