import { Migrator, type Kysely } from 'kysely';
import type { Database, Engine } from './database.ts';
import { migrations } from './migrations/index.ts';

/**
 * Applies every pending migration. On PostgreSQL, Kysely's migrator takes an advisory lock,
 * so when several nodes start together one migrates and the others wait, then find nothing to do.
 */
export async function migrateToLatest(db: Kysely<Database>, engine: Engine): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(engine) },
    migrationTableName: 'logexport_migrations',
    migrationLockTableName: 'logexport_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error');
    const what = failed ? `migration ${failed.migrationName} failed` : 'migrations failed';
    throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
