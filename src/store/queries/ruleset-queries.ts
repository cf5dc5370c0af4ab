/** Rulesets: the current version of each, and every version kept; a change is logged for the zone. */
import type { StoredRule } from '../../domain/rulesets/stored-rule.ts';
import type { Database } from '../database.ts';
import type { RulesetMeta, RulesetSnapshot } from '../store.ts';
import { recordChange } from './config-change-queries.ts';
import { uniquely, type Db } from './query-db.ts';

type RulesetRow = Database['rulesets'];
type VersionRow = Database['ruleset_versions'];

function toMeta(row: Omit<RulesetRow, 'rules'>): RulesetMeta {
  return {
    id: row.id,
    zoneId: row.zone_id,
    kind: row.kind,
    phase: row.phase,
    name: row.name,
    description: row.description,
    version: Number(row.version),
    lastUpdated: row.last_updated,
  };
}

function toSnapshot(row: RulesetRow): RulesetSnapshot {
  return { ...toMeta(row), rules: JSON.parse(row.rules) as StoredRule[] };
}

function versionRow(snapshot: RulesetSnapshot, rules: string): VersionRow {
  return {
    ruleset_id: snapshot.id,
    zone_id: snapshot.zoneId,
    version: snapshot.version,
    name: snapshot.name,
    description: snapshot.description,
    last_updated: snapshot.lastUpdated,
    rules,
  };
}

export async function listRulesets(db: Db, zoneId: string): Promise<readonly RulesetMeta[]> {
  const rows = await db
    .selectFrom('rulesets')
    .select(['id', 'zone_id', 'kind', 'phase', 'name', 'description', 'version', 'last_updated'])
    .where('zone_id', '=', zoneId)
    .orderBy('id')
    .execute();
  return rows.map(toMeta);
}

export async function getRuleset(db: Db, zoneId: string, rulesetId: string): Promise<RulesetSnapshot | undefined> {
  const row = await db
    .selectFrom('rulesets')
    .selectAll()
    .where('zone_id', '=', zoneId)
    .where('id', '=', rulesetId)
    .executeTakeFirst();
  return row && toSnapshot(row);
}

export async function findRulesetByPhase(db: Db, zoneId: string, phase: string): Promise<RulesetSnapshot | undefined> {
  const row = await db
    .selectFrom('rulesets')
    .selectAll()
    .where('zone_id', '=', zoneId)
    .where('phase', '=', phase)
    .executeTakeFirst();
  return row && toSnapshot(row);
}

export async function insertRuleset(db: Db, snapshot: RulesetSnapshot): Promise<void> {
  const rules = JSON.stringify(snapshot.rules);
  await uniquely(`the zone already has a ruleset for phase ${snapshot.phase}`, () =>
    db
      .insertInto('rulesets')
      .values({
        id: snapshot.id,
        zone_id: snapshot.zoneId,
        kind: snapshot.kind,
        phase: snapshot.phase,
        name: snapshot.name,
        description: snapshot.description,
        version: snapshot.version,
        last_updated: snapshot.lastUpdated,
        rules,
      })
      .execute(),
  );
  await db.insertInto('ruleset_versions').values(versionRow(snapshot, rules)).execute();
  await recordChange(db, snapshot.zoneId);
}

export async function updateRuleset(db: Db, snapshot: RulesetSnapshot, expectedVersion: number): Promise<boolean> {
  const rules = JSON.stringify(snapshot.rules);
  const result = await db
    .updateTable('rulesets')
    .set({
      name: snapshot.name,
      description: snapshot.description,
      version: snapshot.version,
      last_updated: snapshot.lastUpdated,
      rules,
    })
    .where('zone_id', '=', snapshot.zoneId)
    .where('id', '=', snapshot.id)
    .where('version', '=', expectedVersion)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await db.insertInto('ruleset_versions').values(versionRow(snapshot, rules)).execute();
  await recordChange(db, snapshot.zoneId);
  return true;
}

export async function deleteRuleset(db: Db, zoneId: string, rulesetId: string): Promise<boolean> {
  await db
    .deleteFrom('ruleset_versions')
    .where('zone_id', '=', zoneId)
    .where('ruleset_id', '=', rulesetId)
    .execute();
  const result = await db
    .deleteFrom('rulesets')
    .where('zone_id', '=', zoneId)
    .where('id', '=', rulesetId)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1) return false;
  await recordChange(db, zoneId);
  return true;
}

export async function listRulesetVersions(db: Db, zoneId: string, rulesetId: string): Promise<readonly RulesetMeta[]> {
  const rows = await db
    .selectFrom('ruleset_versions as v')
    .innerJoin('rulesets as r', 'r.id', 'v.ruleset_id')
    .select(['r.id', 'r.zone_id', 'r.kind', 'r.phase', 'v.name', 'v.description', 'v.version', 'v.last_updated'])
    .where('v.zone_id', '=', zoneId)
    .where('v.ruleset_id', '=', rulesetId)
    .orderBy('v.version', 'desc')
    .execute();
  return rows.map(toMeta);
}

export async function getRulesetVersion(db: Db, zoneId: string, rulesetId: string, version: number): Promise<RulesetSnapshot | undefined> {
  const row = await db
    .selectFrom('ruleset_versions as v')
    .innerJoin('rulesets as r', 'r.id', 'v.ruleset_id')
    .select(['r.id', 'r.zone_id', 'r.kind', 'r.phase', 'v.name', 'v.description', 'v.version', 'v.last_updated', 'v.rules'])
    .where('v.zone_id', '=', zoneId)
    .where('v.ruleset_id', '=', rulesetId)
    .where('v.version', '=', version)
    .executeTakeFirst();
  return row && toSnapshot(row);
}

export async function deleteRulesetVersion(db: Db, zoneId: string, rulesetId: string, version: number): Promise<boolean> {
  const result = await db
    .deleteFrom('ruleset_versions')
    .where('zone_id', '=', zoneId)
    .where('ruleset_id', '=', rulesetId)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
