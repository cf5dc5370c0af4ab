/**
 * One Log Explorer query's DuckDB: a fresh in-memory instance that can read exactly the query's segment
 * files and nothing else. Built in an order DuckDB enforces: the allowed paths are set while external
 * access is still on, then external access goes off (no other file, URL, extension or database can be
 * reached), the zone's `http_requests` view is created, and the configuration is locked (no statement can
 * loosen it). Extensions are neither installed nor loaded on demand, and nothing spills to disk. The
 * instance is closed after the query, so nothing outlives it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DuckDBModule } from './duckdb-module.ts';
import { sqlString } from '../retention/segment-schema.ts';

/** The bounds of one sandbox. */
export interface SandboxLimits {
  /** DuckDB's memory_limit, in bytes. */
  readonly memoryBytes: number;
  /** DuckDB's own worker threads. */
  readonly threads: number;
}

/** An opened sandbox; `close` when the query is done. */
export interface SqlSandbox {
  readonly connection: DuckDBConnection;
  close(): void;
}

/** Opens a sandbox that reads `files` only, with `viewSql` (explorer-view.ts) creating the query's table. */
export async function openSqlSandbox(duck: DuckDBModule, files: readonly string[], viewSql: string, limits: SandboxLimits): Promise<SqlSandbox> {
  const instance = await duck.DuckDBInstance.create(':memory:', {
    threads: String(limits.threads),
    memory_limit: `${Math.max(1, Math.floor(limits.memoryBytes / 1024))}KiB`,
    autoload_known_extensions: 'false',
    autoinstall_known_extensions: 'false',
    allow_community_extensions: 'false',
    // No spilling: the memory limit is the query's bound, not a disk.
    temp_directory: '',
  });
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    await connection.run(`SET allowed_paths = [${files.map(sqlString).join(', ')}]`);
    await connection.run('SET enable_external_access = false');
    await connection.run(`SET TimeZone = 'UTC'`);
    await connection.run(viewSql);
    await connection.run('SET lock_configuration = true');
  } catch (error) {
    connection?.closeSync();
    instance.closeSync();
    throw error;
  }
  const opened = connection;
  return {
    connection: opened,
    close: () => {
      opened.closeSync();
      instance.closeSync();
    },
  };
}
