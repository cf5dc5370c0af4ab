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
import type { Dataset, DatasetField } from '../domain/datasets/http-requests.ts';
import { resolveOutputPlan } from '../domain/jobs/output-options.ts';
import { compileFormatter } from '../ingest/stages/format.ts';
import { fnv1a32 } from '../ingest/stages/sample.ts';
import type { LogpullOutput } from './logpull-query.ts';
import { type ReceiveWindow, type RetainedSource, segmentsOfWindow, windowCondition } from './retained-reader.ts';
import { sqlIdentifier, sqlString } from './segment-schema.ts';
import type { OpenedSegment } from './segment-store.ts';

/** Text handed to the response at a time, at least. */
const writeBytes = 256 * 1024;

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
    // Integral doubles as integers (JavaScript writes 2, DuckDB 2.0); the rest are checked by safeSql.
    case 'float':
      return `CASE WHEN ${column} = round(${column}) THEN CAST(CAST(${column} AS BIGINT) AS VARCHAR) ELSE to_json(${column})::VARCHAR END`;
    // Canonical nanosecond digits, written bare; the JSON text the pipeline captured, as it is.
    case 'timestamp':
    case 'object':
      return `${column}::VARCHAR`;
  }
}

/** Whether DuckDB's text for the field is certainly JSON.stringify's. */
function safeSql(field: DatasetField): string | undefined {
  const column = sqlIdentifier(field.name);
  switch (field.type) {
    case 'string':
    case 'string[]':
      // Control characters are escaped as \u00XX with upper-case hex by DuckDB, lower-case by JavaScript.
      return `NOT contains(to_json(${column})::VARCHAR, '\\u00')`;
    case 'float':
      return `abs(${column}) < 1e15 AND (${column} = round(${column}) OR abs(${column}) >= 1e-6)`;
    case 'timestamp':
      return `regexp_full_match(${column}, '0|[1-9][0-9]*')`;
    case 'int':
    case 'bool':
    case 'int[]':
    case 'object':
      return undefined;
  }
}

/** The SELECT of the fast path: the line when safe, otherwise the whole record as JSON; and the RayID. */
export function ndjsonSelect(fields: readonly DatasetField[], redact: boolean): string {
  const parts: string[] = [];
  fields.forEach((field, i) => parts.push(sqlString(`${i === 0 ? '{' : ','}${JSON.stringify(field.name)}:`), `coalesce(${valueSql(field)}, 'null')`));
  let line = fields.length === 0 ? `'{}\n'` : `concat(${parts.join(', ')}, '}\n')`;
  if (redact) line = `replace(${line}, '\${', 'x{')`;
  const checks = fields.flatMap((field) => {
    const check = safeSql(field);
    return check === undefined ? [] : [`(${sqlIdentifier(field.name)} IS NULL OR ${check})`];
  });
  const safe = checks.length === 0 ? 'true' : checks.join(' AND ');
  const record = fields.length === 0 ? `'{}'` : `to_json(struct_pack(${fields.map((f) => `${sqlIdentifier(f.name)} := ${sqlIdentifier(f.name)}`).join(', ')}))::VARCHAR`;
  return `CASE WHEN ${safe} THEN ${line} END AS line, CASE WHEN NOT (${safe}) THEN ${record} END AS record, "RayID" AS ray`;
}

/** The window's records as NDJSON text, in pieces, honouring `sample` and `count` (timestamps: unixnano). */
export async function* readRetainedNdjson(
  source: RetainedSource,
  zoneId: string,
  window: ReceiveWindow,
  output: LogpullOutput,
  dataset: Dataset,
  only?: { readonly rayId: string },
): AsyncGenerator<string> {
  const keys = await segmentsOfWindow(source.segments, zoneId, window);
  if (keys.length === 0) return;
  const plan = resolveOutputPlan({ fieldNames: output.fields.map((f) => f.name), timestampFormat: 'unixnano', redactCve202144228: output.redact }, null);
  const formatter = compileFormatter(plan, dataset);
  const threshold = output.sample >= 1 ? Number.POSITIVE_INFINITY : output.sample * 0x1_0000_0000;
  let left = output.count ?? Number.POSITIVE_INFINITY;
  const opened: OpenedSegment[] = [];
  const connection = await source.engine.connect();
  try {
    for (const key of keys) opened.push(await source.segments.open(key));
    const result = await connection.stream(
      `SELECT ${ndjsonSelect(output.fields, output.redact)} FROM read_parquet([${opened.map((o) => sqlString(o.path)).join(', ')}]) WHERE ${windowCondition(window, only)}`,
    );
    let text = '';
    for (;;) {
      const chunk = await result.fetchChunk();
      if (chunk === null || chunk.rowCount === 0) break;
      const lines = chunk.getColumnValues(0);
      // The usual case, every row written and every line DuckDB's: joined at once.
      if (threshold === Number.POSITIVE_INFINITY && lines.length <= left && lines.every((l) => typeof l === 'string')) {
        text += (lines as string[]).join('');
        left -= lines.length;
        if (text.length >= writeBytes) {
          yield text;
          text = '';
        }
        continue;
      }
      const records = chunk.getColumnValues(1);
      const rays = chunk.getColumnValues(2);
      for (let r = 0; r < lines.length && left > 0; r++) {
        if (threshold !== Number.POSITIVE_INFINITY) {
          const ray = rays[r];
          if (fnv1a32(typeof ray === 'string' ? ray : '') >= threshold) continue;
        }
        const line = lines[r];
        if (typeof line === 'string') text += line;
        else text += formatter.format(JSON.parse(String(records[r])) as Record<string, unknown>);
        left -= 1;
      }
      if (text.length >= writeBytes || left <= 0) {
        yield text;
        text = '';
      }
      if (left <= 0) return;
    }
    if (text !== '') yield text;
  } finally {
    connection.closeSync();
    for (const segment of opened) await segment.release();
  }
}
