/**
 * Logpull's fast path: DuckDB writes each record's NDJSON line itself, in C++ on its own thread, exactly as
 * the job formatter (ingest/stages/format.ts) would — `{"Field":value,…}` with absent fields as `null`,
 * timestamps as Unix nanoseconds — so JavaScript only samples, counts and joins lines. Where DuckDB's JSON
 * text could differ from JSON.stringify's (a string with a control character, which DuckDB escapes with
 * upper-case hex; a float outside the range both print alike; a timestamp that is not canonical digits),
 * the row comes back as a whole record instead and the job formatter writes it, so the answer is the same
 * byte for byte as the formatter's. Used for `timestamps=unixnano` (the default); other formats go through
 * the formatter for every record (logpull-output.ts). That is how compacted segments are read; a hot segment
 * is projected line by line without DuckDB (hot-ndjson.ts), and only the lines the projection cannot vouch
 * for come back here, read as DuckDB reads a hot segment — one answer whichever tier holds a window.
 */
import { randomBytes } from 'node:crypto';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { utf8Bytes } from '../core/utf8-bytes.ts';
import type { Dataset, DatasetField } from '../domain/datasets/http-requests.ts';
import { resolveOutputPlan } from '../domain/jobs/output-options.ts';
import { compileFormatter, type RecordFormatter } from '../ingest/stages/format.ts';
import { zstdFrame } from '../ingest/zstd-frame.ts';
import { BlobColumnReader } from './blob-column-reader.ts';
import { withoutDuplicateKeys } from './hot-repair.ts';
import { readHotNdjson, type RefusedReader } from './hot-ndjson.ts';
import { projectionThreadFree, projectionThreadFromBytes, readHotNdjsonOnThread } from './hot-projection.ts';
import { LineProjection } from './line-projection.ts';
import type { LogpullOutput } from './logpull-query.ts';
import { NdjsonAnswer } from './ndjson-answer.ts';
import { openRetained } from './retained-files.ts';
import { msWindowOf, type ReceiveWindow, type RetainedSource, windowCondition } from './retained-reader.ts';
import { retainedTableSql, sqlIdentifier, sqlString } from './segment-schema.ts';

/** The SQL text of a field's JSON value as JSON.stringify writes it (NULL when absent). */
function valueSql(field: DatasetField): string {
  const column = sqlIdentifier(field.name);
  switch (field.type) {
    case 'string':
    case 'int':
    case 'bool':
    case 'string[]':
    case 'int[]':
      return `to_json(${column})::VARCHAR`;
    // Integral doubles as integers (JavaScript writes 2, DuckDB 2.0), when they fit; the rest are checked by safeSql.
    case 'float':
      return `CASE WHEN abs(${column}) < 1e15 AND ${column} = round(${column}) THEN CAST(CAST(${column} AS BIGINT) AS VARCHAR) ELSE to_json(${column})::VARCHAR END`;
    // Canonical nanosecond digits, written bare; the JSON text the pipeline captured, as it is.
    case 'timestamp':
    case 'object':
      return `${column}::VARCHAR`;
  }
}

/**
 * Whether DuckDB's text for the field is certainly JSON.stringify's, beyond what the line check covers (NULL
 * when nothing more is needed). Strings are checked on the whole line instead (`lineSafe`).
 */
function safeSql(field: DatasetField): string | undefined {
  const column = sqlIdentifier(field.name);
  switch (field.type) {
    case 'float':
      return `abs(${column}) < 1e15 AND (${column} = round(${column}) OR abs(${column}) >= 1e-6)`;
    case 'timestamp':
      return `regexp_full_match(${column}, '0|[1-9][0-9]*')`;
    case 'string':
    case 'string[]':
    case 'int':
    case 'bool':
    case 'int[]':
    case 'object':
      return undefined;
  }
}

/**
 * Control characters in strings are escaped as \u00XX with upper-case hex by DuckDB, lower-case by
 * JavaScript: a line holding `\u00` anywhere goes to the formatter. (Text that merely holds a backslash
 * before `u00` is sent there too, needlessly but correctly.) One search of the line costs far less than
 * writing every string field's JSON a second time to look at it.
 */
const lineSafe = `NOT contains(_line, '\\u00')`;

/**
 * The query of the fast path over `from` rows matching `where`: the line's UTF-8 bytes when DuckDB's text
 * is certainly the formatter's, otherwise the whole record as JSON; and the RayID.
 */
export function ndjsonQuery(fields: readonly DatasetField[], redact: boolean, from: string, where: string): string {
  const parts: string[] = [];
  fields.forEach((field, i) => parts.push(sqlString(`${i === 0 ? '{' : ','}${JSON.stringify(field.name)}:`), `coalesce(${valueSql(field)}, 'null')`));
  let line = fields.length === 0 ? `'{}\n'` : `concat(${parts.join(', ')}, '}\n')`;
  if (redact) line = `replace(${line}, '\${', 'x{')`;
  const checks = [
    lineSafe,
    ...fields.flatMap((field) => {
      const check = safeSql(field);
      return check === undefined ? [] : [`(${sqlIdentifier(field.name)} IS NULL OR ${check})`];
    }),
  ];
  const safe = checks.join(' AND ');
  const record = fields.length === 0 ? `'{}'` : `to_json(struct_pack(${fields.map((f) => `${sqlIdentifier(f.name)} := ${sqlIdentifier(f.name)}`).join(', ')}))::VARCHAR`;
  const inner = `SELECT *, ${line} AS _line FROM ${from} WHERE ${where}`;
  return `SELECT CASE WHEN ${safe} THEN encode(_line) END AS line, CASE WHEN NOT (${safe}) THEN ${record} END AS record, "RayID" AS ray FROM (${inner})`;
}

/** DuckDB's answer to an `ndjsonQuery`, into `answer`: its pieces as they fill. */
async function* duckdbNdjson(connection: DuckDBConnection, sql: string, answer: NdjsonAnswer, formatter: RecordFormatter): AsyncGenerator<Buffer> {
  const result = await connection.stream(sql);
  // The lines' UTF-8 bytes as DuckDB wrote them (a BLOB): no decoding into a string and encoding back.
  const lines = await BlobColumnReader.of(0);
  let next = result.fetchChunk();
  try {
    for (;;) {
      const chunk = await next;
      if (chunk === null || chunk.rowCount === 0) return;
      // DuckDB makes the next chunk (on its thread) while this one is copied out and written.
      next = result.fetchChunk();
      lines.read(chunk);
      const records = chunk.getColumnVector(1);
      const rays = chunk.getColumnVector(2);
      for (let r = 0; r < chunk.rowCount && !answer.done; ) {
        if (lines.isNull(r)) {
          if (answer.keeps(answer.samples ? rayOf(rays.getItem(r)) : '')) answer.add(utf8Bytes(formatter.format(JSON.parse(String(records.getItem(r))) as Record<string, unknown>)));
          r++;
        } else if (answer.samples) {
          if (answer.keeps(rayOf(rays.getItem(r)))) for (const piece of lines.pieces(r, r + 1)) answer.add(piece);
          r++;
        } else {
          // A run of DuckDB's lines, copied out together (as many as `count` leaves).
          let end = r + 1;
          while (end < chunk.rowCount && !lines.isNull(end)) end++;
          for (const piece of lines.pieces(r, r + answer.keepsLines(end - r))) answer.add(piece);
          r = end;
        }
      }
      yield* answer.take();
      if (answer.done) return;
    }
  } finally {
    // The connection is closed after this: no fetch may still be running then.
    await next.catch(() => null);
  }
}

function rayOf(ray: unknown): string {
  return typeof ray === 'string' ? ray : '';
}

/** Attempts to open a window's files when a hot one goes (compacted) between listing and opening. */
const maxOpenAttempts = 3;

/** A window's files: the compacted ones for DuckDB, the hot ones open for reading (in order). */
interface OpenedWindow {
  readonly compacted: readonly string[];
  readonly hot: readonly FileHandle[];
  release(): Promise<void>;
}

/**
 * Opens the window's files. Each hot file is opened at once: a compaction that ends meanwhile removes it, but
 * what is open stays readable, so the answer is the one of the moment it was listed.
 */
async function openWindow(source: RetainedSource, zoneId: string, window: ReceiveWindow, dataset: Dataset): Promise<OpenedWindow> {
  for (let attempt = 1; ; attempt++) {
    const opened = await openRetained(source.segments, zoneId, msWindowOf(window), dataset);
    const hot: FileHandle[] = [];
    const release = async (): Promise<void> => {
      for (const handle of hot.splice(0)) await handle.close();
      await opened.release();
    };
    try {
      for (const file of opened.hotKeys.keys()) hot.push(await fs.open(file, 'r'));
    } catch (error) {
      await release();
      if ((error as { code?: unknown }).code === 'ENOENT' && attempt < maxOpenAttempts) continue;
      throw error;
    }
    return { compacted: opened.compacted, hot, release };
  }
}

/**
 * Hot lines the projection refused, read by DuckDB as it reads a hot segment: written to a file of the work
 * directory first, each without a key written twice (as the repair of a segment DuckDB refuses would leave it).
 */
async function* duckdbRefused(lines: readonly Buffer[], source: RetainedSource, connect: () => Promise<DuckDBConnection>, query: (table: string) => string, dataset: Dataset, answer: NdjsonAnswer, formatter: RecordFormatter): AsyncGenerator<Buffer> {
  const parts = lines.map((line) => {
    const text = line.toString('utf8', 0, line.length - 1);
    const fixed = withoutDuplicateKeys(text);
    return fixed === text ? line : Buffer.from(`${fixed}\n`, 'utf8');
  });
  await fs.mkdir(source.workDir, { recursive: true });
  const file = path.join(source.workDir, `logpull-${randomBytes(6).toString('hex')}.ndjson.zst`);
  await fs.writeFile(file, zstdFrame(Buffer.concat(parts)));
  try {
    yield* duckdbNdjson(await connect(), query(retainedTableSql([], [file], dataset) ?? ''), answer, formatter);
  } finally {
    await fs.rm(file, { force: true });
  }
}

/**
 * The window's records as NDJSON bytes, in pieces, honouring `sample` and `count` (timestamps: unixnano):
 * compacted segments first, through DuckDB, then hot segments, projected line by line (hot-ndjson.ts) —
 * the order DuckDB reads the two tiers in as one table. A call with many hot bytes has them projected on a
 * thread of its own (hot-projection.ts) while this one writes the answer.
 */
export async function* readRetainedNdjson(
  source: RetainedSource,
  zoneId: string,
  window: ReceiveWindow,
  output: LogpullOutput,
  dataset: Dataset,
  only?: { readonly rayId: string },
): AsyncGenerator<Buffer> {
  const plan = resolveOutputPlan({ fieldNames: output.fields.map((f) => f.name), timestampFormat: 'unixnano', redactCve202144228: output.redact }, null);
  const formatter = compileFormatter(plan, dataset);
  const answer = new NdjsonAnswer(output);
  const query = (table: string): string => ndjsonQuery(output.fields, output.redact, table, windowCondition(window, only));
  const opened = await openWindow(source, zoneId, window, dataset);
  let connection: DuckDBConnection | undefined;
  const connect = async (): Promise<DuckDBConnection> => (connection ??= await source.engine.connect());
  try {
    const compacted = retainedTableSql(opened.compacted, [], dataset);
    if (compacted !== undefined) yield* duckdbNdjson(await connect(), query(compacted), answer, formatter);
    const readRefused: RefusedReader = (lines) => duckdbRefused(lines, source, connect, query, dataset, answer, formatter);
    const hotBytes = (await Promise.all(opened.hot.map((handle) => handle.stat()))).reduce((sum, stat) => sum + stat.size, 0);
    if (opened.hot.length > 0 && !answer.done && hotBytes >= (source.projectionThreadFromBytes ?? projectionThreadFromBytes) && projectionThreadFree()) {
      yield* readHotNdjsonOnThread(opened.hot.map((h) => h.fd), output.fields, dataset, msWindowOf(window), only?.rayId, output.sample, output.redact, answer, readRefused);
    } else {
      const projection = new LineProjection(output.fields, dataset, msWindowOf(window), only?.rayId, answer.samples);
      for (const handle of opened.hot) {
        if (answer.done) break;
        yield* readHotNdjson(handle, projection, answer, readRefused, output.redact);
      }
    }
    yield* answer.take(0);
  } finally {
    connection?.closeSync();
    await opened.release();
  }
}
