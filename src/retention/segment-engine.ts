/**
 * DuckDB, embedded, as the one engine that writes and reads segments: NDJSON of canonical events →
 * zstd-compressed Parquet sorted by receive time, and streaming SELECTs over a window's segments. DuckDB
 * works on its own threads, so building a segment does not hold up the event loop (ingest, delivery).
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import { readJsonColumns, receivedColumn, sqlIdentifier, sqlString } from './segment-schema.ts';

/** An NDJSON file of events all received at `receivedMs`. */
export interface ReceivedNdjson {
  readonly path: string;
  readonly receivedMs: number;
}

/** The name of the NDJSON file of events received at `receivedMs`; the segment reads the time back from it. */
export function receivedFileName(receivedMs: number): string {
  return `received-${receivedMs}.ndjson`;
}

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
    // DuckDB's native library (~40 MB resident) is loaded when a segment is first written or read, so a node
    // whose zones retain nothing never pays for it.
    this.instance ??= import('@duckdb/node-api').then(({ DuckDBInstance: Instance }) => Instance.create(':memory:', { threads: String(this.threads) }));
    return (await this.instance).connect();
  }

  /**
   * Converts NDJSON files of canonical events into one Parquet segment; every event of a file was received
   * at the time its name carries (`receivedFileName`), which becomes the `_received_ms` column.
   */
  async writeSegment(connection: DuckDBConnection, inputs: readonly ReceivedNdjson[], parquetPath: string, dataset: Dataset): Promise<void> {
    // DuckDB keeps the order of the files and of their lines (its insertion order is preserved), so files
    // listed by receive time give rows sorted by it without an ORDER BY, which cost up to a third of the work.
    const files = [...inputs]
      .sort((a, b) => a.receivedMs - b.receivedMs)
      .map((i) => sqlString(i.path))
      .join(', ');
    const source = `read_json([${files}], format='newline_delimited', columns=${readJsonColumns(dataset)}, filename='_file')`;
    const received = `CAST(regexp_extract(_file, 'received-(\\d+)\\.ndjson$', 1) AS BIGINT) AS ${sqlIdentifier(receivedColumn)}`;
    await connection.run(
      `COPY (SELECT ${received}, * EXCLUDE (_file) FROM ${source}) TO ${sqlString(parquetPath)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupSize})`,
    );
  }

  close(): void {
    void this.instance?.then((instance) => instance.closeSync());
    this.instance = undefined;
  }
}
