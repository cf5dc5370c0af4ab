/** Jobs (their settings and delivery status) and their per-node counters; a change is logged for the zone. */
import type { Insertable, Updateable } from 'kysely';
import type { JobSettings } from '../../domain/jobs/job-settings.ts';
import type { Database, Engine } from '../database.ts';
import type { Job, JobCounterRow, JobStatus } from '../store.ts';
import { recordChange } from './config-change-queries.ts';
import type { Db } from './query-db.ts';

/** The columns for the settings given (all of them when `settings` is complete). */
function jobColumns(settings: Partial<JobSettings>): Updateable<Database['jobs']> {
  const columns: Updateable<Database['jobs']> = {};
  if (settings.dataset !== undefined) columns.dataset = settings.dataset;
  if (settings.kind !== undefined) columns.kind = settings.kind;
  if (settings.enabled !== undefined) columns.enabled = settings.enabled ? 1 : 0;
  if (settings.name !== undefined) columns.name = settings.name;
  if (settings.destinationConf !== undefined) columns.destination_conf = settings.destinationConf;
  if (settings.filter !== undefined) columns.filter = settings.filter;
  if (settings.outputOptions !== undefined) columns.output_options = settings.outputOptions;
  if (settings.logpullOptions !== undefined) columns.logpull_options = settings.logpullOptions;
  if (settings.frequency !== undefined) columns.frequency = settings.frequency;
  if (settings.maxUploadBytes !== undefined) columns.max_upload_bytes = settings.maxUploadBytes;
  if (settings.maxUploadRecords !== undefined) columns.max_upload_records = settings.maxUploadRecords;
  if (settings.maxUploadIntervalSeconds !== undefined) columns.max_upload_interval_seconds = settings.maxUploadIntervalSeconds;
  return columns;
}

type JobRow = { id: number } & Omit<Database['jobs'], 'id'>;

function toJob(row: JobRow): Job {
  const int = (v: number | null): number | null => (v === null ? null : Number(v));
  return {
    id: Number(row.id),
    zoneId: row.zone_id,
    dataset: row.dataset,
    kind: row.kind,
    enabled: Number(row.enabled) === 1,
    name: row.name,
    destinationConf: row.destination_conf,
    filter: row.filter,
    outputOptions: row.output_options,
    logpullOptions: row.logpull_options,
    frequency: row.frequency,
    maxUploadBytes: int(row.max_upload_bytes),
    maxUploadRecords: int(row.max_upload_records),
    maxUploadIntervalSeconds: int(row.max_upload_interval_seconds),
    lastComplete: row.last_complete,
    lastError: row.last_error,
    errorMessage: row.error_message,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function listJobs(db: Db, zoneId: string): Promise<readonly Job[]> {
  const rows = await db.selectFrom('jobs').selectAll().where('zone_id', '=', zoneId).orderBy('id').execute();
  return rows.map(toJob);
}

export async function getJob(db: Db, zoneId: string, jobId: number): Promise<Job | undefined> {
  const row = await db.selectFrom('jobs').selectAll().where('zone_id', '=', zoneId).where('id', '=', jobId).executeTakeFirst();
  return row && toJob(row);
}

export async function listAllJobs(db: Db): Promise<readonly Job[]> {
  const rows = await db.selectFrom('jobs').selectAll().orderBy('id').execute();
  return rows.map(toJob);
}

export async function setJobDestinationConf(db: Db, jobId: number, destinationConf: string): Promise<void> {
  await db.updateTable('jobs').set({ destination_conf: destinationConf }).where('id', '=', jobId).execute();
}

export async function listEnabledJobs(db: Db): Promise<readonly Job[]> {
  const rows = await db.selectFrom('jobs').selectAll().where('enabled', '=', 1).orderBy('id').execute();
  return rows.map(toJob);
}

export async function createJob(db: Db, engine: Engine, zoneId: string, settings: JobSettings, now: string, maxJobs: number): Promise<Job | undefined> {
  // Two concurrent creates must not both slip under the limit: on PostgreSQL the zone row is locked
  // for the count; SQLite runs one write transaction at a time anyway.
  if (engine === 'postgres') {
    await db.selectFrom('zones').select('id').where('id', '=', zoneId).forUpdate().execute();
  }
  const { count } = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('zone_id', '=', zoneId)
    .executeTakeFirstOrThrow();
  if (Number(count) >= maxJobs) return undefined;
  const row = await db
    .insertInto('jobs')
    .values({ zone_id: zoneId, ...jobColumns(settings), created_at: now, updated_at: now } as Insertable<Database['jobs']>)
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordChange(db, zoneId);
  return toJob(row);
}

export async function updateJob(db: Db, zoneId: string, jobId: number, changes: Partial<JobSettings>, now: string): Promise<Job | undefined> {
  const row = await db
    .updateTable('jobs')
    .set({ ...jobColumns(changes), updated_at: now })
    .where('zone_id', '=', zoneId)
    .where('id', '=', jobId)
    .returningAll()
    .executeTakeFirst();
  if (row === undefined) return undefined;
  await recordChange(db, zoneId);
  return toJob(row);
}

export async function deleteJob(db: Db, zoneId: string, jobId: number): Promise<boolean> {
  const result = await db.deleteFrom('jobs').where('zone_id', '=', zoneId).where('id', '=', jobId).executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1) return false;
  await db.deleteFrom('job_counters').where('job_id', '=', jobId).execute();
  await recordChange(db, zoneId);
  return true;
}

export async function setJobStatus(db: Db, jobId: number, status: JobStatus): Promise<void> {
  const values: Updateable<Database['jobs']> = {};
  if (status.lastComplete !== undefined) values.last_complete = status.lastComplete;
  if (status.lastError !== undefined) values.last_error = status.lastError;
  if (status.errorMessage !== undefined) values.error_message = status.errorMessage;
  if (status.failingSince !== undefined) values.failing_since = status.failingSince;
  if (status.enabled !== undefined) values.enabled = status.enabled ? 1 : 0;
  if (Object.keys(values).length === 0) return;
  const row = await db.updateTable('jobs').set(values).where('id', '=', jobId).returning('zone_id').executeTakeFirst();
  if (row !== undefined && status.enabled !== undefined) await recordChange(db, row.zone_id);
}

export async function putJobCounters(db: Db, row: JobCounterRow): Promise<void> {
  await db
    .insertInto('job_counters')
    .values({ job_id: row.jobId, node: row.node, counters: row.counters, updated_at: row.updatedAt })
    .onConflict((oc) => oc.columns(['job_id', 'node']).doUpdateSet({ counters: row.counters, updated_at: row.updatedAt }))
    .execute();
}

export async function listJobCounters(db: Db, jobId: number): Promise<readonly JobCounterRow[]> {
  const rows = await db.selectFrom('job_counters').selectAll().where('job_id', '=', jobId).orderBy('node').execute();
  return rows.map((r) => ({ jobId: Number(r.job_id), node: r.node, counters: r.counters, updatedAt: r.updated_at }));
}
