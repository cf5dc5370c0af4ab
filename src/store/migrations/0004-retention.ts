import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';

/** The per-zone retention flag of the Logpull API (a zone without a row has retention off). */
export function retention(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('zone_retention')
        .addColumn('zone_id', 'text', (c) => c.primaryKey().references('zones.id').onDelete('cascade'))
        .addColumn('flag', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
