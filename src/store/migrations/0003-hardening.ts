import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';

/**
 * Hardening: the audit log (every change, who made it, before and after), and the failed credential
 * checks that throttling counts (a table, so every node sharing a PostgreSQL store shares the counts).
 */
export function hardening(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('audit_log')
        .addColumn('seq', engine === 'postgres' ? 'bigserial' : 'integer', (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('action_type', 'text', (c) => c.notNull())
        .addColumn('action_result', 'integer', (c) => c.notNull())
        .addColumn('actor_type', 'text', (c) => c.notNull())
        .addColumn('actor_id', 'text')
        .addColumn('actor_email', 'text')
        .addColumn('actor_ip', 'text')
        // The user whose account the entry belongs to (the zone's owner, or the user who signed in).
        .addColumn('owner_id', 'text')
        .addColumn('resource_type', 'text', (c) => c.notNull())
        .addColumn('resource_id', 'text')
        .addColumn('zone_id', 'text')
        .addColumn('zone_name', 'text')
        .addColumn('old_value', 'text')
        .addColumn('new_value', 'text')
        .addColumn('metadata', 'text')
        .execute();
      await db.schema.createIndex('audit_log_owner_at').on('audit_log').columns(['owner_id', 'at']).execute();
      await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
      await db.schema
        .createTable('auth_failures')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('window_start', 'text', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .execute();
    },
  };
}
