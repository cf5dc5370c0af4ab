import type { DatabaseConfig } from '../config/config.ts';
import { KyselyStore } from './kysely-store.ts';
import { migrateToLatest } from './migrate.ts';
import { openPostgres } from './postgres.ts';
import { openSqlite } from './sqlite.ts';
import type { Store } from './store.ts';

/** Opens the configured store and brings its schema up to date. */
export async function openStore(config: DatabaseConfig, options: { schema?: string } = {}): Promise<Store> {
  switch (config.kind) {
    case 'sqlite': {
      const db = openSqlite(config.path);
      await migrateToLatest(db, 'sqlite');
      return new KyselyStore(db, 'sqlite', db);
    }
    case 'postgres': {
      const db = openPostgres({ url: config.url, ...options });
      try {
        await migrateToLatest(db, 'postgres');
      } catch (error) {
        await db.destroy();
        throw error;
      }
      return new KyselyStore(db, 'postgres', db);
    }
  }
}
