/**
 * The OTLP source: decoded log records → mapped to ingest lines (map-log-record.ts) → grouped by zone (the
 * zone of the path, or each record's zone by host) → each zone's lines through the same ingest as HTTP
 * ingest (checks, capture, jobs, queue, durable before the answer), with bad lines skipped rather than
 * refusing the request: OTLP answers per record, as `partial_success`.
 */
import { httpRequests } from '../../domain/datasets/http-requests.ts';
import type { Ingestor } from '../../ingest/ingest.ts';
import type { Zone } from '../../store/store.ts';
import { mapLogRecord } from './map-log-record.ts';
import type { OtlpLogRecord } from './otlp-logs.ts';

/** Where a request's records go. */
export type OtlpTarget =
  | { readonly kind: 'zone'; readonly zone: Zone }
  | {
      readonly kind: 'byHost';
      /** The zone a host belongs to (zone-directory.ts). */
      readonly zoneForHost: (host: string) => Zone | undefined;
      /** Whether the request's credentials may ingest for the zone. */
      readonly mayIngest: (zone: Zone) => Promise<boolean>;
    };

/** What happened to a request's records: counts, and the reasons of the first rejections in one sentence. */
export interface OtlpIngestOutcome {
  readonly accepted: number;
  readonly rejected: number;
  readonly errorMessage: string;
}

/** How many rejection reasons the answer names before it only counts. */
const namedRejections = 5;

interface ZoneGroup {
  readonly zone: Zone;
  readonly lines: string[];
  /** Index in the request of each line's record. */
  readonly records: number[];
}

/** Maps, routes and ingests the records of one request; resolves once the accepted ones are durable. */
export async function ingestOtlpLogs(records: readonly OtlpLogRecord[], target: OtlpTarget, ingestor: Ingestor): Promise<OtlpIngestOutcome> {
  const rejections: { readonly record: number; readonly reason: string }[] = [];
  const groups = new Map<string, ZoneGroup>();
  const allowed = new Map<string, boolean>();
  let unknownHosts = 0;
  for (let i = 0; i < records.length; i++) {
    const mapped = mapLogRecord(records[i] as OtlpLogRecord);
    if (mapped.kind === 'rejected') {
      rejections.push({ record: i, reason: mapped.reason });
      continue;
    }
    let zone: Zone;
    if (target.kind === 'zone') zone = target.zone;
    else {
      const found = mapped.host === undefined ? undefined : target.zoneForHost(mapped.host);
      if (found === undefined) {
        unknownHosts += 1;
        rejections.push({ record: i, reason: mapped.host === undefined ? 'it names no host to route it by (server.address, url.full or a Host header)' : `no zone serves the host ${JSON.stringify(mapped.host)}` });
        continue;
      }
      let may = allowed.get(found.id);
      if (may === undefined) {
        may = await target.mayIngest(found);
        allowed.set(found.id, may);
      }
      if (!may) {
        rejections.push({ record: i, reason: `the credentials may not ingest for the zone of the host ${JSON.stringify(mapped.host)}` });
        continue;
      }
      zone = found;
    }
    let group = groups.get(zone.id);
    if (group === undefined) {
      group = { zone, lines: [], records: [] };
      groups.set(zone.id, group);
    }
    group.lines.push(mapped.line);
    group.records.push(i);
  }
  ingestor.countDropped('', 'unknown_host', unknownHosts);

  let accepted = 0;
  for (const group of groups.values()) {
    const text = Buffer.from(group.lines.join('\n'), 'utf8');
    const result = await ingestor.ingest(group.zone.id, httpRequests, { bytes: text, encoding: 'identity', limitBytes: text.length, badLines: 'skip' });
    accepted += result.accepted;
    const skipped = result.skipped;
    if (skipped === undefined) continue;
    for (let k = 0; k < skipped.lines.length; k++) {
      const line = skipped.lines[k] as number;
      // Problems read "line N: why"; the record's own number replaces the line's.
      const reason = (skipped.problems[k]?.message ?? 'it failed the event checks').replace(/^line \d+: /, '');
      rejections.push({ record: group.records[line - 1] as number, reason });
    }
  }
  return { accepted, rejected: rejections.length, errorMessage: messageOf(rejections, records.length) };
}

function messageOf(rejections: readonly { readonly record: number; readonly reason: string }[], total: number): string {
  if (rejections.length === 0) return '';
  const sorted = [...rejections].sort((a, b) => a.record - b.record);
  const named = sorted.slice(0, namedRejections).map((r) => `log record ${r.record + 1}: ${r.reason}`);
  const more = sorted.length > namedRejections ? `; and ${sorted.length - namedRejections} more` : '';
  return `${rejections.length} of ${total} log records rejected — ${named.join('; ')}${more}`;
}
