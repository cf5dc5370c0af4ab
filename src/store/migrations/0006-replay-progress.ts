import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';

/**
 * Replay progress, one row per job (its latest replay): kept in the store so that any node answers
 * `GET …/replay`, another node's `DELETE …/replay` reaches it, and a node that restarts resumes what it ran.
 */
export function replayProgress(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('job_replays')
        .addColumn('job_id', 'integer', (c) => c.primaryKey().references('jobs.id').onDelete('cascade'))
        .addColumn('zone_id', 'text', (c) => c.notNull())
        // The window in Unix nanoseconds, as decimal digits.
        .addColumn('start_ns', 'text', (c) => c.notNull())
        .addColumn('end_ns', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('events_read', 'bigint', (c) => c.notNull())
        .addColumn('exported', 'bigint', (c) => c.notNull())
        .addColumn('objects_written', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('message', 'text')
        // The node that runs it (and resumes it after a restart).
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('job_replays_by_status').on('job_replays').columns(['status', 'node_id']).execute();
    },
  };
}
