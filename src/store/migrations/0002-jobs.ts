import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';

/** Log export jobs with their delivery status, and the log of configuration changes nodes follow. */
export function jobs(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('jobs')
        .addColumn('id', engine === 'postgres' ? 'serial' : 'integer', (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('zone_id', 'text', (c) => c.notNull().references('zones.id').onDelete('cascade'))
        .addColumn('dataset', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('destination_conf', 'text', (c) => c.notNull())
        .addColumn('filter', 'text')
        .addColumn('output_options', 'text')
        .addColumn('logpull_options', 'text')
        .addColumn('frequency', 'text')
        .addColumn('max_upload_bytes', 'integer')
        .addColumn('max_upload_records', 'integer')
        .addColumn('max_upload_interval_seconds', 'integer')
        .addColumn('last_complete', 'text')
        .addColumn('last_error', 'text')
        .addColumn('error_message', 'text')
        .addColumn('failing_since', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('jobs_zone_id').on('jobs').column('zone_id').execute();
      await db.schema
        .createTable('config_changes')
        .addColumn('seq', engine === 'postgres' ? 'bigserial' : 'integer', (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('zone_id', 'text', (c) => c.notNull())
        .addColumn('changed_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('job_counters')
        .addColumn('job_id', 'integer', (c) => c.notNull())
        .addColumn('node', 'text', (c) => c.notNull())
        .addColumn('counters', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('job_counters_pk', ['job_id', 'node'])
        .execute();
    },
  };
}
