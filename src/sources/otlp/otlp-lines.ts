/**
 * An OTLP logs request body → ingest lines, grouped by the host each record names: decoded in the request's
 * encoding and mapped record by record (map-log-record.ts). Pure and plain data in and out, so it runs in
 * an ingest worker (ingest-task.ts) beside the rest of a request's CPU work. Also the bookkeeping of the
 * records rejected along the way, which the answer counts and names.
 */
import { isUtf8 } from 'node:buffer';
import { err, ok, type Result } from '../../core/result.ts';
import { decodeOtlpJson } from './decode-otlp-json.ts';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf.ts';
import { mapLogRecord } from './map-log-record.ts';
import type { OtlpEncoding } from './otlp-answer.ts';
import type { OtlpLogRecord } from './otlp-logs.ts';

/** Why records are rejected, in a word: the `reason` label of /metrics' rejected events. */
export type OtlpRejectCode =
  | 'not_http_request'
  | 'no_timestamp'
  | 'bad_status_code'
  | 'invalid_event'
  | 'no_host'
  | 'unknown_host'
  | 'not_permitted';

/** A record left out, by its 0-based position in the request, and why (in a word, and in a sentence). */
export interface OtlpRejection {
  readonly record: number;
  readonly code: OtlpRejectCode;
  readonly reason: string;
}

/** Rejected records: how many, how many for each reason, and the first few (lowest positions) with their reasons. */
export interface OtlpRejections {
  readonly count: number;
  readonly byCode: Readonly<Partial<Record<OtlpRejectCode, number>>>;
  readonly first: readonly OtlpRejection[];
}

/** The lines of the records that name one host (or none), in request order. */
export interface OtlpHostGroup {
  readonly host: string | undefined;
  readonly lines: readonly string[];
  /** The position in the request of each line's record. */
  readonly records: readonly number[];
}

/** A request's records as ingest lines. */
export interface OtlpLines {
  readonly total: number;
  readonly groups: readonly OtlpHostGroup[];
  readonly rejections: OtlpRejections;
}

/** How many rejections an answer names before it only counts them. */
export const namedRejections = 5;

export const noRejections: OtlpRejections = { count: 0, byCode: {}, first: [] };

/** Joins rejection lists, keeping the first few by position. */
export function mergeRejections(...lists: readonly OtlpRejections[]): OtlpRejections {
  const first = lists.flatMap((list) => list.first).sort((a, b) => a.record - b.record).slice(0, namedRejections);
  const byCode: Partial<Record<OtlpRejectCode, number>> = {};
  for (const list of lists) for (const [code, n] of Object.entries(list.byCode) as [OtlpRejectCode, number][]) byCode[code] = (byCode[code] ?? 0) + n;
  return { count: lists.reduce((n, list) => n + list.count, 0), byCode, first };
}

/** Rejections from a list already in position order (or any order: only the lowest few are kept). */
export function rejectionsOf(list: readonly OtlpRejection[]): OtlpRejections {
  if (list.length === 0) return noRejections;
  const byCode: Partial<Record<OtlpRejectCode, number>> = {};
  for (const rejection of list) byCode[rejection.code] = (byCode[rejection.code] ?? 0) + 1;
  return mergeRejections({ count: list.length, byCode, first: list });
}

/** The `error_message` of a partial success: how many of how many, and the first reasons. */
export function rejectionMessage(rejections: OtlpRejections, total: number): string {
  if (rejections.count === 0) return '';
  const named = rejections.first.map((r) => `log record ${r.record + 1}: ${r.reason}`);
  const more = rejections.count > named.length ? `; and ${rejections.count - named.length} more` : '';
  return `${rejections.count} of ${total} log records rejected — ${named.join('; ')}${more}`;
}

/** Decodes a body (already decompressed) and maps its records; the error is why the body does not decode. */
export function otlpLinesOf(encoding: OtlpEncoding, bytes: Uint8Array): Result<OtlpLines, string> {
  let decoded: Result<readonly OtlpLogRecord[], string>;
  switch (encoding) {
    case 'protobuf':
      decoded = decodeOtlpProtobuf(bytes);
      break;
    case 'json': {
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (!isUtf8(buffer)) return err('The body is not valid UTF-8');
      decoded = decodeOtlpJson(buffer.toString('utf8'));
      break;
    }
  }
  if (!decoded.ok) return decoded;
  const records = decoded.value;
  const groups = new Map<string | undefined, { host: string | undefined; lines: string[]; records: number[] }>();
  const rejected: OtlpRejection[] = [];
  for (let i = 0; i < records.length; i++) {
    const mapped = mapLogRecord(records[i] as OtlpLogRecord);
    if (mapped.kind === 'rejected') {
      rejected.push({ record: i, code: mapped.code, reason: mapped.reason });
      continue;
    }
    let group = groups.get(mapped.host);
    if (group === undefined) {
      group = { host: mapped.host, lines: [], records: [] };
      groups.set(mapped.host, group);
    }
    group.lines.push(mapped.line);
    group.records.push(i);
  }
  return ok({ total: records.length, groups: [...groups.values()], rejections: rejectionsOf(rejected) });
}

/** The lines of every group as one NDJSON text in request order, and the record of each line (line n ↔ records[n - 1]). */
export function joinGroups(groups: readonly OtlpHostGroup[]): { readonly text: string; readonly records: readonly number[] } {
  if (groups.length === 1) {
    const only = groups[0] as OtlpHostGroup;
    return { text: only.lines.join('\n'), records: only.records };
  }
  const pairs: [number, string][] = [];
  for (const group of groups) for (let i = 0; i < group.lines.length; i++) pairs.push([group.records[i] as number, group.lines[i] as string]);
  pairs.sort((a, b) => a[0] - b[0]);
  return { text: pairs.map((pair) => pair[1]).join('\n'), records: pairs.map((pair) => pair[0]) };
}

/** Rejections for the lines ingest skipped (1-based line numbers, with "line N: why" problems in the same order). */
export function skippedRejections(skipped: { readonly lines: readonly number[]; readonly problems: readonly { readonly message: string }[] }, records: readonly number[]): OtlpRejections {
  const first: OtlpRejection[] = [];
  for (let k = 0; k < skipped.lines.length && k < namedRejections; k++) {
    const line = skipped.lines[k] as number;
    first.push({ record: records[line - 1] as number, code: 'invalid_event', reason: (skipped.problems[k]?.message ?? 'it failed the event checks').replace(/^line \d+: /, '') });
  }
  return { count: skipped.lines.length, byCode: skipped.lines.length === 0 ? {} : { invalid_event: skipped.lines.length }, first };
}
