import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';

/** Users, credentials, sessions, zones and rulesets with their version history. */
export function foundation(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text')
        .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('api_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('zone_ids', 'text', (c) => c.notNull())
        .addColumn('permissions', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('zones')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('zones_user_id').on('zones').column('user_id').execute();
      await db.schema
        .createTable('rulesets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('zone_id', 'text', (c) => c.notNull().references('zones.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('phase', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('last_updated', 'text', (c) => c.notNull())
        .addColumn('rules', 'text', (c) => c.notNull())
        .addUniqueConstraint('rulesets_zone_phase', ['zone_id', 'phase'])
        .execute();
      await db.schema
        .createTable('ruleset_versions')
        .addColumn('ruleset_id', 'text', (c) => c.notNull().references('rulesets.id').onDelete('cascade'))
        .addColumn('zone_id', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('last_updated', 'text', (c) => c.notNull())
        .addColumn('rules', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('ruleset_versions_pk', ['ruleset_id', 'version'])
        .execute();
    },
  };
}
