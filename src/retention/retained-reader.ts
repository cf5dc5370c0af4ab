/**
 * Reads a zone's retained events received in a window, `start` inclusive and `end` exclusive (Unix
 * nanoseconds), streaming, from both tiers as one table (retained-files.ts): DuckDB hands the rows over one
 * vector at a time, so memory stays flat however many match. A hot segment DuckDB refuses (a line with a key
 * twice) is normalised (hot-repair.ts) and the query starts again, as long as nothing was handed out yet.
 */
import { JSDuckDBValueConverter, type DuckDBDataChunk } from '@duckdb/node-api';
import type { Dataset, DatasetField } from '../domain/datasets/http-requests.ts';
import type { EventRecord } from '../domain/datasets/event-record.ts';
import { repairHotSegment } from './hot-repair.ts';
import { openRetained, type MsWindow } from './retained-files.ts';
import type { SegmentEngine } from './segment-engine.ts';
import { receivedColumn, selectExpression, sqlIdentifier, sqlString } from './segment-schema.ts';
import type { SegmentStore } from './segment-store.ts';

/** A window of receive times in Unix nanoseconds: `startNs` inclusive, `endNs` exclusive. */
export interface ReceiveWindow {
  readonly startNs: bigint;
  readonly endNs: bigint;
}

/** Where readers find segments. */
export interface RetainedSource {
  readonly segments: SegmentStore;
  readonly engine: SegmentEngine;
  /** Where a repaired hot segment is written before it replaces the old one. */
  readonly workDir: string;
  /** Hot bytes of a Logpull call from which its hot segments are projected on a thread (hot-projection.ts's default when unset). */
  readonly projectionThreadFromBytes?: number;
}

/** The smallest whole millisecond at or after `ns`. */
function ceilMs(ns: bigint): number {
  const ms = ns / 1_000_000n;
  return Number(ns % 1_000_000n > 0n ? ms + 1n : ms);
}

/** The window in whole milliseconds (receive times are whole milliseconds). */
export function msWindowOf(window: ReceiveWindow): MsWindow {
  return { startMs: ceilMs(window.startNs), endMs: ceilMs(window.endNs) };
}

/** The SQL condition selecting the window's rows (and only one RayID's, when given). */
export function windowCondition(window: ReceiveWindow, only?: { readonly rayId: string }): string {
  const received = sqlIdentifier(receivedColumn);
  const { startMs, endMs } = msWindowOf(window);
  const rayId = only === undefined ? '' : ` AND "RayID" = ${sqlString(only.rayId)}`;
  return `${received} >= ${startMs} AND ${received} < ${endMs}${rayId}`;
}

/** Attempts of a query that failed before it handed anything out. */
const maxAttempts = 3;

/** The local hot file a DuckDB error names, when the error is about what the file holds. */
export function refusedFile(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (!/Invalid Input Error|Conversion Error|duplicate key|Malformed JSON/i.test(message)) return undefined;
  return /in file "([^"]+)"/.exec(message)?.[1];
}

/**
 * The chunks of `query(table)` over the window's retained table (nothing when no segment may hold an event
 * of it). Stops early when the consumer stops iterating.
 */
export async function* streamRetained(source: RetainedSource, zoneId: string, window: ReceiveWindow, dataset: Dataset, query: (table: string) => string): AsyncGenerator<DuckDBDataChunk> {
  for (let attempt = 1; ; attempt++) {
    const opened = await openRetained(source.segments, zoneId, msWindowOf(window), dataset);
    const table = opened.table;
    if (table === undefined) {
      await opened.release();
      return;
    }
    let handedOut = false;
    const connection = await source.engine.connect();
    try {
      const result = await connection.stream(query(table));
      for (;;) {
        const chunk = await result.fetchChunk();
        if (chunk === null || chunk.rowCount === 0) return;
        handedOut = true;
        yield chunk;
      }
    } catch (error) {
      // Nothing was handed out yet, so the query can start again: after the repair of the hot segment DuckDB
      // refused, or with the files listed afresh (a compaction replaced some meanwhile).
      if (handedOut || attempt >= maxAttempts) throw error;
      const file = refusedFile(error);
      const key = file === undefined ? undefined : opened.hotKeys.get(file);
      if (key !== undefined) await repairHotSegment(source.segments, key, source.workDir);
    } finally {
      connection.closeSync();
      await opened.release();
    }
  }
}

/**
 * The window's events with the given fields (every other field left out), in batches of up to a DuckDB
 * vector (2,048 rows). Stops early when the consumer stops iterating.
 */
export async function* readRetained(
  source: RetainedSource,
  zoneId: string,
  window: ReceiveWindow,
  dataset: Dataset,
  fields: readonly DatasetField[],
  only?: { readonly rayId: string },
): AsyncGenerator<EventRecord[]> {
  const columns = fields.length === 0 ? sqlIdentifier(receivedColumn) : fields.map((f) => selectExpression(f.name, f.type)).join(', ');
  const names = fields.map((f) => f.name);
  const objects = fields.map((f) => f.type === 'object');
  for await (const chunk of streamRetained(source, zoneId, window, dataset, (table) => `SELECT ${columns} FROM ${table} WHERE ${windowCondition(window, only)}`)) {
    const rows = chunk.convertRows(JSDuckDBValueConverter);
    const records: EventRecord[] = new Array<EventRecord>(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r] as readonly unknown[];
      const record: Record<string, unknown> = {};
      for (let c = 0; c < names.length; c++) {
        const value = row[c];
        if (value === null || value === undefined) continue;
        record[names[c] as string] = objects[c] === true && typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
      }
      records[r] = record;
    }
    yield records;
  }
}
