import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';

/**
 * Log Explorer datasets (issue 27): per zone, at most one of each dataset type, saying which events
 * (`filter`) and fields (`fields`, JSON array of names; null for all) the zone keeps for SQL while enabled.
 */
export function explorerDatasets(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('explorer_datasets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('zone_id', 'text', (c) => c.notNull().references('zones.id').onDelete('cascade'))
        .addColumn('dataset', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('fields', 'text')
        .addColumn('filter', 'text')
        .addColumn('deletion_protection', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('explorer_datasets_zone_dataset', ['zone_id', 'dataset'])
        .execute();
      await db.schema.createIndex('explorer_datasets_by_enabled').on('explorer_datasets').columns(['enabled', 'dataset']).execute();
    },
  };
}
