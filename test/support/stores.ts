import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { serverAvailable } from './services.ts';

export const postgresUrl = process.env.LOGEXPORT_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A way to get a fresh, empty store on one engine. */
export interface StoreEngine {
  readonly name: 'sqlite' | 'postgres';
  /** Opens an empty store; `dispose` removes everything it made. */
  open(): Promise<{ store: Store; dispose: () => Promise<void> }>;
}

export const sqliteEngine: StoreEngine = {
  name: 'sqlite',
  async open() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-store-'));
    const store = await openStore({ kind: 'sqlite', path: path.join(dir, 'logexport.db') });
    return {
      store,
      dispose: async () => {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/** A fresh database on the test server for whole nodes (which take a URL, not a schema), dropped on `drop`. */
export async function createPostgresDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const database = `logexport_${label}_${randomBytes(4).toString('hex')}`;
  const admin = async (query: string) => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      await client.query(query);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${database}`);
  return { url: postgresUrl.replace(/\/[^/]*$/, `/${database}`), drop: () => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`) };
}

/** A fresh schema in the test database, dropped on dispose. */
export async function createPostgresSchema(): Promise<{ schema: string; drop: () => Promise<void> }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  return {
    schema,
    drop: async () => {
      const c = new pg.Client({ connectionString: postgresUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

export const postgresEngine: StoreEngine = {
  name: 'postgres',
  async open() {
    const { schema, drop } = await createPostgresSchema();
    const store = await openStore({ kind: 'postgres', url: postgresUrl }, { schema });
    return {
      store,
      dispose: async () => {
        await store.close();
        await drop();
      },
    };
  },
};

/** The engines to run a contract suite over: SQLite always; PostgreSQL when it answers (required under CI). */
export async function availableStoreEngines(): Promise<readonly StoreEngine[]> {
  const engines: StoreEngine[] = [sqliteEngine];
  if (await serverAvailable('PostgreSQL', '127.0.0.1', 5432)) engines.push(postgresEngine);
  return engines;
}
