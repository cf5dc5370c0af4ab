/**
 * Log Explorer datasets: one row per zone and dataset type. Every write records a configuration change of
 * the zone, since an enabled `http_requests` dataset decides what the zone's ingest retains.
 */
import type { Selectable } from 'kysely';
import type { ExplorerDataset } from '../../domain/explorer/explorer-dataset.ts';
import type { Database } from '../database.ts';
import { recordChange } from './config-change-queries.ts';
import { uniquely, type Db } from './query-db.ts';

type Row = Selectable<Database['explorer_datasets']>;

function datasetOf(row: Row): ExplorerDataset {
  return {
    id: row.id,
    zoneId: row.zone_id,
    dataset: row.dataset,
    enabled: Number(row.enabled) === 1,
    fields: row.fields === null ? null : (JSON.parse(row.fields) as string[]),
    filter: row.filter,
    deletionProtection: Number(row.deletion_protection) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function rowOf(dataset: ExplorerDataset): Row {
  return {
    id: dataset.id,
    zone_id: dataset.zoneId,
    dataset: dataset.dataset,
    enabled: dataset.enabled ? 1 : 0,
    fields: dataset.fields === null ? null : JSON.stringify(dataset.fields),
    filter: dataset.filter,
    deletion_protection: dataset.deletionProtection ? 1 : 0,
    created_at: dataset.createdAt,
    updated_at: dataset.updatedAt,
  };
}

export async function listExplorerDatasets(db: Db, zoneId: string): Promise<readonly ExplorerDataset[]> {
  const rows = await db.selectFrom('explorer_datasets').selectAll().where('zone_id', '=', zoneId).orderBy('created_at').orderBy('id').execute();
  return rows.map(datasetOf);
}

export async function getExplorerDataset(db: Db, zoneId: string, id: string): Promise<ExplorerDataset | undefined> {
  const row = await db.selectFrom('explorer_datasets').selectAll().where('zone_id', '=', zoneId).where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : datasetOf(row);
}

/** Inserts a dataset; UniqueViolation when the zone has one of its type already. */
export async function createExplorerDataset(db: Db, dataset: ExplorerDataset): Promise<void> {
  await uniquely(`zone ${dataset.zoneId} has a ${dataset.dataset} dataset already`, () => db.insertInto('explorer_datasets').values(rowOf(dataset)).execute());
  await recordChange(db, dataset.zoneId);
}

/** Rewrites a dataset (everything but its identity and creation time); false when there was none. */
export async function updateExplorerDataset(db: Db, dataset: ExplorerDataset): Promise<boolean> {
  const { id: _id, zone_id: _zone, dataset: _type, created_at: _created, ...changes } = rowOf(dataset);
  const result = await db.updateTable('explorer_datasets').set(changes).where('zone_id', '=', dataset.zoneId).where('id', '=', dataset.id).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await recordChange(db, dataset.zoneId);
  return true;
}

export async function deleteExplorerDataset(db: Db, zoneId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('explorer_datasets').where('zone_id', '=', zoneId).where('id', '=', id).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) return false;
  await recordChange(db, zoneId);
  return true;
}

/** Zones with an enabled dataset of this type. */
export async function listExplorerZones(db: Db, dataset: string): Promise<readonly string[]> {
  const rows = await db.selectFrom('explorer_datasets').select('zone_id').where('enabled', '=', 1).where('dataset', '=', dataset).orderBy('zone_id').execute();
  return rows.map((r) => r.zone_id);
}
