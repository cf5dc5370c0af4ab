/** Zones: a name owned by one user. */
import type { Database } from '../database.ts';
import type { Zone } from '../store.ts';
import { uniquely, type Db } from './query-db.ts';

function toZone(row: Database['zones']): Zone {
  return { id: row.id, name: row.name, userId: row.user_id, createdAt: row.created_at };
}

export async function createZone(db: Db, zone: Zone): Promise<void> {
  await uniquely(`a zone named ${zone.name} exists`, () =>
    db
      .insertInto('zones')
      .values({ id: zone.id, name: zone.name, user_id: zone.userId, created_at: zone.createdAt })
      .execute(),
  );
}

export async function findZone(db: Db, id: string): Promise<Zone | undefined> {
  const row = await db.selectFrom('zones').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toZone(row);
}

export async function findZoneByName(db: Db, name: string): Promise<Zone | undefined> {
  const row = await db.selectFrom('zones').selectAll().where('name', '=', name).executeTakeFirst();
  return row && toZone(row);
}

export async function listZones(db: Db, userId: string): Promise<readonly Zone[]> {
  const rows = await db.selectFrom('zones').selectAll().where('user_id', '=', userId).orderBy('name').execute();
  return rows.map(toZone);
}

export async function listAllZones(db: Db): Promise<readonly Zone[]> {
  const rows = await db.selectFrom('zones').selectAll().orderBy('name').execute();
  return rows.map(toZone);
}
