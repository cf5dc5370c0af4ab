/**
 * Logpull's fast path: DuckDB writes each record's NDJSON line itself, in C++ on its own threads, exactly as
 * the job formatter (ingest/stages/format.ts) would — `{"Field":value,…}` with absent fields as `null`,
 * timestamps as Unix nanoseconds — so JavaScript only samples, counts and joins lines. Where DuckDB's JSON
 * text could differ from JSON.stringify's (a string with a control character, which DuckDB escapes with
 * upper-case hex; a float outside the range both print alike; a timestamp that is not canonical digits),
 * the row comes back as a whole record instead and the job formatter writes it, so the answer is the same
 * byte for byte as the formatter's. Used for `timestamps=unixnano` (the default); other formats go through
 * the formatter for every record (logpull-output.ts).
 */
import type { DuckDBBlobVector } from '@duckdb/node-api';
import { utf8Bytes } from '../core/utf8-bytes.ts';
import type { Dataset, DatasetField } from '../domain/datasets/http-requests.ts';
import { resolveOutputPlan } from '../domain/jobs/output-options.ts';
import { compileFormatter } from '../ingest/stages/format.ts';
import { fnv1a32 } from '../ingest/stages/sample.ts';
import { logpullPieceBytes } from './logpull-output.ts';
import type { LogpullOutput } from './logpull-query.ts';
import { type ReceiveWindow, type RetainedSource, streamRetained, windowCondition } from './retained-reader.ts';
import { sqlIdentifier, sqlString } from './segment-schema.ts';

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

/** The window's records as NDJSON bytes, in pieces, honouring `sample` and `count` (timestamps: unixnano). */
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
  const threshold = output.sample >= 1 ? Number.POSITIVE_INFINITY : output.sample * 0x1_0000_0000;
  let left = output.count ?? Number.POSITIVE_INFINITY;
  const pieces = new PieceWriter();
  for await (const chunk of streamRetained(source, zoneId, window, dataset, (table) => ndjsonQuery(output.fields, output.redact, table, windowCondition(window, only)))) {
    // The line's UTF-8 bytes as DuckDB wrote them (a BLOB): no decoding into a string and encoding back.
    const lines = chunk.getColumnVector(0) as DuckDBBlobVector;
    const records = chunk.getColumnVector(1);
    const rays = chunk.getColumnVector(2);
    for (let r = 0; r < chunk.rowCount && left > 0; r++) {
      if (threshold !== Number.POSITIVE_INFINITY) {
        const ray = rays.getItem(r);
        if (fnv1a32(typeof ray === 'string' ? ray : '') >= threshold) continue;
      }
      const line = lines.getItemBytes(r);
      if (line !== null) pieces.add(line);
      else pieces.add(utf8Bytes(formatter.format(JSON.parse(String(records.getItem(r))) as Record<string, unknown>)));
      left -= 1;
    }
    const piece = pieces.take(logpullPieceBytes);
    if (piece !== undefined) yield piece;
    if (left <= 0) break;
  }
  const rest = pieces.take(0);
  if (rest !== undefined) yield rest;
}

/** Bytes gathered until there are enough to hand to the response at once. */
class PieceWriter {
  private parts: Uint8Array[] = [];
  private bytes = 0;

  add(part: Uint8Array): void {
    this.parts.push(part);
    this.bytes += part.byteLength;
  }

  /** What was gathered, once it is at least `atLeast` bytes (and not empty); undefined otherwise. */
  take(atLeast: number): Buffer | undefined {
    if (this.bytes === 0 || this.bytes < atLeast) return undefined;
    const piece = Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    return piece;
  }
}
