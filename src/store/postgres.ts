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
  // An idle connection the server ends (a restart, a failover, an operator's pg_terminate_backend) is an
  // 'error' of the pool; unheard, it would end the process. The pool drops that connection and the next
  // query opens a new one, so there is nothing else to do.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
