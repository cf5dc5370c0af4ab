/**
 * A zone's Log Explorer DuckDB: an in-memory instance that can read the files under the zone's segment
 * directory and nothing else. Built in an order DuckDB enforces: the allowed directory is set while external
 * access is still on, then external access goes off (no other file, URL, extension or database can be
 * reached; a path climbing out with `..` is refused as well), and the configuration is locked (no statement
 * can loosen it). Extensions are neither installed nor loaded on demand, and nothing spills to disk.
 *
 * One query is one connection of it, with the query's `http_requests` view made as a temporary view of
 * that connection only (sandbox-pool.ts): concurrent queries of the zone do not see each other's view, and
 * closing the connection removes it. The instance itself is kept warm between queries (sandbox-pool.ts).
 * So every setting is made GLOBAL, for the instance: a plain `SET` of a setting with a session scope (the
 * time zone, Parquet's metadata cache) holds only for the connection that ran it, closed here before any
 * query runs.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBModule } from './duckdb-module.ts';
import { sqlString } from '../retention/segment-schema.ts';

/** The bounds of one sandbox. */
export interface SandboxLimits {
  /** DuckDB's memory_limit, in bytes: shared by the zone's queries that run at the same time. */
  readonly memoryBytes: number;
  /** DuckDB's own worker threads. */
  readonly threads: number;
}

/** Creates a locked instance that may read files under `directory` (which ends in a separator) only. */
export async function createSandbox(duck: DuckDBModule, directory: string, limits: SandboxLimits): Promise<DuckDBInstance> {
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
    await connection.run(`SET GLOBAL allowed_directories = [${sqlString(directory)}]`);
    await connection.run('SET GLOBAL enable_external_access = false');
    // Dates and hours of TIMESTAMPTZ fields (date_trunc, hour, casts to text) in UTC, whatever the machine's zone.
    await connection.run(`SET GLOBAL TimeZone = 'UTC'`);
    // A query reads each file's footer from memory after the first (~1 ms a query over a few files).
    await connection.run('SET GLOBAL parquet_metadata_cache = true');
    await connection.run('SET GLOBAL lock_configuration = true');
    return instance;
  } catch (error) {
    instance.closeSync();
    throw error;
  } finally {
    connection?.closeSync();
  }
}
