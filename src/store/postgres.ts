import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database.ts';

/** Options for the PostgreSQL store; `schema` puts every table in that schema (tests use one each). */
export interface PostgresOptions {
  readonly url: string;
  readonly schema?: string;
  readonly maxConnections?: number;
}

/** Connects the store to a PostgreSQL server. */
export function openPostgres(options: PostgresOptions): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
