import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

/**
 * Tenancy (issue 23): a zone's status (`pending` until its DNS record is checked, when the operator asks for
 * that) and the token it is checked against; API tokens users manage (name, status, expiry, not-before, the
 * policies as permission grants per zone, when they were last changed); and the change log's token changes, so
 * a revoked token leaves every node's read cache at once.
 */
export function tenancy(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Zones made before verification existed were routed to already: they stay active.
      await db.schema.alterTable('zones').addColumn('status', 'text', (c) => c.notNull().defaultTo('active')).execute();
      await db.schema.alterTable('zones').addColumn('verification_token', 'text').execute();
      await db.schema.alterTable('api_tokens').addColumn('name', 'text', (c) => c.notNull().defaultTo('')).execute();
      await db.schema.alterTable('api_tokens').addColumn('status', 'text', (c) => c.notNull().defaultTo('active')).execute();
      await db.schema.alterTable('api_tokens').addColumn('expires_on', 'text').execute();
      await db.schema.alterTable('api_tokens').addColumn('not_before', 'text').execute();
      await db.schema.alterTable('api_tokens').addColumn('policies', 'text').execute();
      await db.schema.alterTable('api_tokens').addColumn('modified_on', 'text').execute();
      await db.schema.createIndex('api_tokens_user_id').on('api_tokens').column('user_id').execute();
      await db.schema.alterTable('config_changes').addColumn('token_id', 'text').execute();
      // A token made by the command line before was one grant: its permissions on its zones.
      const rows = await sql<{ id: string; zone_ids: string; permissions: string; created_at: string }>`SELECT id, zone_ids, permissions, created_at FROM api_tokens`.execute(db);
      for (const row of rows.rows) {
        const policies = JSON.stringify([{ id: randomBytes(16).toString('hex'), zoneIds: JSON.parse(row.zone_ids) as unknown, permissions: JSON.parse(row.permissions) as unknown }]);
        await sql`UPDATE api_tokens SET policies = ${policies}, modified_on = ${row.created_at} WHERE id = ${row.id}`.execute(db);
      }
    },
  };
}
