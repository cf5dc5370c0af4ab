/** Zones: a name owned by one user, and nobody else's above or beneath it. */
import { sql } from 'kysely';
import type { Database, Engine } from '../database.ts';
import type { Zone, ZoneCreation } from '../store.ts';
import { UniqueViolation } from '../store.ts';
import { uniquely, type Db } from './query-db.ts';

function toZone(row: Database['zones']): Zone {
  return {
    id: row.id,
    name: row.name,
    userId: row.user_id,
    createdAt: row.created_at,
    status: row.status === 'pending' ? 'pending' : 'active',
    verificationToken: row.verification_token,
  };
}

/** The domains a name lies under, longest first: `a.b.example.com` → `b.example.com`, `example.com`, `com`. */
function parentsOf(name: string): string[] {
  const parents: string[] = [];
  for (let at = name.indexOf('.'); at >= 0; at = name.indexOf('.', at + 1)) parents.push(name.slice(at + 1));
  return parents;
}

// Any fixed number serves: zone creations take it one at a time on PostgreSQL for the name check below.
const zoneNamesLock = 7_023_011;

export async function createZone(db: Db, engine: Engine, zone: Zone, maxZonesPerUser: number | undefined): Promise<ZoneCreation> {
  // Two creates must not both pass the checks (one `b.test`, the other `www.b.test`, or both the limit-th zone):
  // PostgreSQL serialises them on a transaction lock; SQLite runs one write transaction at a time anyway.
  if (engine === 'postgres') await sql`SELECT pg_advisory_xact_lock(${zoneNamesLock})`.execute(db);
  // Names are label-checked domain names (no `%` or `_`), so LIKE matches exactly the zones beneath this one.
  const clash = await db
    .selectFrom('zones')
    .select(['user_id', 'name'])
    .where((eb) => eb.or([eb('name', 'in', [zone.name, ...parentsOf(zone.name)]), eb('name', 'like', `%.${zone.name}`)]))
    .execute();
  if (clash.some((row) => row.name === zone.name || row.user_id !== zone.userId)) return 'taken';
  if (maxZonesPerUser !== undefined) {
    const { count } = await db
      .selectFrom('zones')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', '=', zone.userId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= maxZonesPerUser) return 'limitReached';
  }
  try {
    await uniquely(`a zone named ${zone.name} exists`, () =>
      db
        .insertInto('zones')
        .values({ id: zone.id, name: zone.name, user_id: zone.userId, created_at: zone.createdAt, status: zone.status, verification_token: zone.verificationToken })
        .execute(),
    );
  } catch (error) {
    if (error instanceof UniqueViolation) return 'taken';
    throw error;
  }
  return 'created';
}

export async function activateZone(db: Db, zoneId: string): Promise<boolean> {
  const result = await db.updateTable('zones').set({ status: 'active' }).where('id', '=', zoneId).where('status', '=', 'pending').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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
