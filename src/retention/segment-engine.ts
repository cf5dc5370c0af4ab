/**
 * DuckDB, embedded, as the one engine that reads segments and compacts them: hot segments (NDJSON in zstd
 * frames) → zstd-compressed Parquet, and streaming SELECTs over a window's segments of both tiers. DuckDB
 * works on its own threads, so neither holds up the event loop (ingest, delivery).
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import { hotTableSql, sqlString } from './segment-schema.ts';

/** Rows of a Parquet row group: DuckDB's default, which keeps a window's reads selective. */
const rowGroupSize = 122_880;

export class SegmentEngine {
  private instance: Promise<DuckDBInstance> | undefined;
  private readonly options: Record<string, string>;

  /** `threads` caps DuckDB's own worker threads (it shares the machine with ingest); `memoryLimit` its memory (DuckDB's form, e.g. `1GB`). */
  constructor(threads = 2, memoryLimit?: string) {
    this.options = { threads: String(threads), ...(memoryLimit === undefined ? {} : { memory_limit: memoryLimit }) };
  }

  /** A new connection; one per writer or reader, since a connection runs one statement at a time. */
  async connect(): Promise<DuckDBConnection> {
    // DuckDB's native library (~40 MB resident) is loaded when a segment is first compacted or read, so a
    // node whose zones retain nothing never pays for it.
    this.instance ??= import('@duckdb/node-api').then(({ DuckDBInstance: Instance }) => Instance.create(':memory:', this.options));
    return (await this.instance).connect();
  }

  /**
   * Compacts hot segments (local files, oldest first) into one Parquet file. DuckDB keeps the order of the
   * files and of their lines (insertion order is preserved), so the rows stay in receive order without an
   * ORDER BY, which cost up to a third of the work.
   */
  async compact(connection: DuckDBConnection, hotPaths: readonly string[], parquetPath: string, dataset: Dataset): Promise<void> {
    await connection.run(`COPY (SELECT * FROM ${hotTableSql(hotPaths, dataset)}) TO ${sqlString(parquetPath)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupSize})`);
  }

  close(): void {
    void this.instance?.then((instance) => instance.closeSync());
    this.instance = undefined;
  }
}
