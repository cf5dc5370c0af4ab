/**
 * DuckDB, embedded, as the one engine that writes and reads segments: NDJSON of canonical events →
 * zstd-compressed Parquet sorted by receive time, and streaming SELECTs over a window's segments. DuckDB
 * works on its own threads, so building a segment does not hold up the event loop (ingest, delivery).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import { readJsonColumns, receivedColumn, sqlIdentifier, sqlString } from './segment-schema.ts';

/** Rows of a Parquet row group: DuckDB's default, which keeps a window's reads selective. */
const rowGroupSize = 122_880;

export class SegmentEngine {
  private instance: Promise<DuckDBInstance> | undefined;
  private readonly threads: number;

  /** `threads` caps DuckDB's own worker threads (it shares the machine with ingest). */
  constructor(threads = 2) {
    this.threads = threads;
  }

  /** A new connection; one per writer or reader, since a connection runs one statement at a time. */
  async connect(): Promise<DuckDBConnection> {
    this.instance ??= DuckDBInstance.create(':memory:', { threads: String(this.threads) });
    return (await this.instance).connect();
  }

  /** Converts an NDJSON file of canonical events (each with `_received_ms`) into a Parquet segment. */
  async writeSegment(connection: DuckDBConnection, ndjsonPath: string, parquetPath: string, dataset: Dataset): Promise<void> {
    const source = `read_json(${sqlString(ndjsonPath)}, format='newline_delimited', columns=${readJsonColumns(dataset)})`;
    await connection.run(
      `COPY (SELECT * FROM ${source} ORDER BY ${sqlIdentifier(receivedColumn)}) TO ${sqlString(parquetPath)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupSize})`,
    );
  }

  close(): void {
    void this.instance?.then((instance) => instance.closeSync());
    this.instance = undefined;
  }
}
