/**
 * Reads a zone's retained events received in a window, `start` inclusive and `end` exclusive (Unix
 * nanoseconds), as canonical records (domain/datasets/event-record.ts), in batches, streaming: only the
 * hour partitions the window touches are listed, segments whose receive times lie outside it are skipped
 * by name, and DuckDB hands the rows over one vector at a time, so memory stays flat however many match.
 */
import type { DatasetField } from '../domain/datasets/http-requests.ts';
import type { EventRecord } from '../domain/datasets/event-record.ts';
import type { SegmentEngine } from './segment-engine.ts';
import { receivedColumn, selectExpression, sqlIdentifier, sqlString } from './segment-schema.ts';
import { hourPartitionOf, type OpenedSegment, type SegmentStore } from './segment-store.ts';
import { segmentTimesOf } from './retention-writer.ts';

/** A window of receive times in Unix nanoseconds: `startNs` inclusive, `endNs` exclusive. */
export interface ReceiveWindow {
  readonly startNs: bigint;
  readonly endNs: bigint;
}

/** Where the reader finds segments. */
export interface RetainedSource {
  readonly segments: SegmentStore;
  readonly engine: SegmentEngine;
}

const hourMs = 3_600_000;

/** The smallest whole millisecond at or after `ns`. */
function ceilMs(ns: bigint): number {
  const ms = ns / 1_000_000n;
  return Number(ns % 1_000_000n > 0n ? ms + 1n : ms);
}

/** The SQL condition selecting the window's rows (and only one RayID's, when given). */
export function windowCondition(window: ReceiveWindow, only?: { readonly rayId: string }): string {
  const received = sqlIdentifier(receivedColumn);
  const rayId = only === undefined ? '' : ` AND "RayID" = ${sqlString(only.rayId)}`;
  return `${received} >= ${ceilMs(window.startNs)} AND ${received} < ${ceilMs(window.endNs)}${rayId}`;
}

/** The keys of the segments that may hold events of the window. */
export async function segmentsOfWindow(segments: SegmentStore, zoneId: string, window: ReceiveWindow): Promise<readonly string[]> {
  const startMs = ceilMs(window.startNs);
  const endMs = ceilMs(window.endNs);
  if (endMs <= startMs) return [];
  const keys: string[] = [];
  for (let hour = Math.floor(startMs / hourMs); hour <= Math.floor((endMs - 1) / hourMs); hour++) {
    for (const key of await segments.list(`${zoneId}/${hourPartitionOf(hour * hourMs)}/`)) {
      const times = segmentTimesOf(key);
      if (times === undefined || (times.lastMs >= startMs && times.firstMs < endMs)) keys.push(key);
    }
  }
  return keys;
}

/**
 * The window's events with the given fields (every other field left out), in batches of up to a DuckDB
 * vector (2,048 rows). Stops early when the consumer stops iterating.
 */
export async function* readRetained(
  source: RetainedSource,
  zoneId: string,
  window: ReceiveWindow,
  fields: readonly DatasetField[],
  only?: { readonly rayId: string },
): AsyncGenerator<EventRecord[]> {
  const keys = await segmentsOfWindow(source.segments, zoneId, window);
  if (keys.length === 0) return;
  const opened: OpenedSegment[] = [];
  const connection = await source.engine.connect();
  try {
    for (const key of keys) opened.push(await source.segments.open(key));
    const columns = fields.length === 0 ? sqlIdentifier(receivedColumn) : fields.map((f) => selectExpression(f.name, f.type)).join(', ');
    const files = opened.map((o) => sqlString(o.path)).join(', ');
    const result = await connection.stream(`SELECT ${columns} FROM read_parquet([${files}]) WHERE ${windowCondition(window, only)}`);
    const names = fields.map((f) => f.name);
    const objects = fields.map((f) => f.type === 'object');
    for await (const rows of result.yieldRowsJs()) {
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
  } finally {
    connection.closeSync();
    for (const segment of opened) await segment.release();
  }
}
