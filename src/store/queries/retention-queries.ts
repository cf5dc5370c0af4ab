/**
 * The per-zone retention flag (Logpull): one row per zone that ever set it; no row means off. Its time is
 * when the flag last changed (setting it to what it is keeps it), so while it is on, since when the zone
 * keeps its events. And each job's latest replay (retention/replay-runner.ts).
 */
import { sql, type Selectable } from 'kysely';
import type { Database } from '../database.ts';
import type { ReplayStatus } from '../../domain/jobs/replay-progress.ts';
import type { StoredReplay } from '../store.ts';
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
    .onConflict((oc) => oc.column('zone_id').doUpdateSet({ flag: flag ? 1 : 0, updated_at: sql<string>`CASE WHEN zone_retention.flag = ${flag ? 1 : 0} THEN zone_retention.updated_at ELSE ${now} END` }))
    .execute();
  await recordChange(db, zoneId);
}

/** Zones whose flag is on, and zones keeping events for an enabled `http_requests` Log Explorer dataset. */
export async function listRetentionZones(db: Db): Promise<readonly string[]> {
  const flagged = await db.selectFrom('zone_retention').select('zone_id').where('flag', '=', 1).execute();
  const explored = await db.selectFrom('explorer_datasets').select('zone_id').where('enabled', '=', 1).where('dataset', '=', 'http_requests').execute();
  return [...new Set([...flagged, ...explored].map((r) => r.zone_id))].sort();
}

export async function getRetentionSince(db: Db, zoneId: string): Promise<string | undefined> {
  const row = await db.selectFrom('zone_retention').select(['flag', 'updated_at']).where('zone_id', '=', zoneId).executeTakeFirst();
  return row !== undefined && Number(row.flag) === 1 ? row.updated_at : undefined;
}

export async function saveReplay(db: Db, replay: StoredReplay): Promise<void> {
  const p = replay.progress;
  const values = {
    zone_id: replay.zoneId,
    start_ns: replay.startNs,
    end_ns: replay.endNs,
    status: p.status,
    events_read: p.events_read,
    exported: p.exported,
    objects_written: p.objects_written,
    error: p.error,
    message: p.message,
    node_id: replay.nodeId,
    started_at: p.started_at,
    finished_at: p.finished_at,
    updated_at: replay.updatedAt,
  };
  await db
    .insertInto('job_replays')
    .values({ job_id: p.job_id, ...values })
    .onConflict((oc) => oc.column('job_id').doUpdateSet(values))
    .execute();
}

type ReplayRow = Selectable<Database['job_replays']>;

function replayOf(row: ReplayRow): StoredReplay {
  const ms = (ns: string): string => new Date(Number(BigInt(ns) / 1_000_000n)).toISOString();
  return {
    progress: {
      job_id: Number(row.job_id),
      start: ms(row.start_ns),
      end: ms(row.end_ns),
      status: row.status as ReplayStatus,
      events_read: Number(row.events_read),
      exported: Number(row.exported),
      objects_written: Number(row.objects_written),
      error: row.error,
      message: row.message,
      started_at: row.started_at,
      finished_at: row.finished_at,
    },
    zoneId: row.zone_id,
    startNs: row.start_ns,
    endNs: row.end_ns,
    nodeId: row.node_id,
    updatedAt: row.updated_at,
  };
}

export async function getReplay(db: Db, jobId: number): Promise<StoredReplay | undefined> {
  const row = await db.selectFrom('job_replays').selectAll().where('job_id', '=', jobId).executeTakeFirst();
  return row === undefined ? undefined : replayOf(row);
}

export async function listReplays(db: Db, nodeId: string, statuses: readonly ReplayStatus[]): Promise<readonly StoredReplay[]> {
  if (statuses.length === 0) return [];
  const rows = await db.selectFrom('job_replays').selectAll().where('node_id', '=', nodeId).where('status', 'in', [...statuses]).orderBy('started_at').orderBy('job_id').execute();
  return rows.map(replayOf);
}
