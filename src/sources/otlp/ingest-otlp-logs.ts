/**
 * The OTLP source: a request's log records → decoded and mapped to ingest lines (otlp-lines.ts, on an
 * ingest worker) → to the zone of the path, or each record to its zone by host → each zone's lines through
 * the same ingest as HTTP ingest (checks, capture, jobs, queue, durable before the answer), with bad lines
 * skipped rather than refusing the request: OTLP answers per record, as `partial_success`.
 */
import { httpRequests } from '../../domain/datasets/http-requests.ts';
import type { IngestBody, Ingestor } from '../../ingest/ingest.ts';
import type { Zone } from '../../store/store.ts';
import type { OtlpEncoding } from './otlp-answer.ts';
import { joinGroups, mergeRejections, noRejections, rejectionMessage, rejectionsOf, skippedRejections, type OtlpHostGroup, type OtlpRejection, type OtlpRejections } from './otlp-lines.ts';

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

/** What happened to a request's records: how many were accepted and rejected, and why in one sentence. */
export interface OtlpIngestOutcome {
  readonly accepted: number;
  readonly rejected: number;
  readonly errorMessage: string;
}

/** Ingests the records of one request; resolves once the accepted ones are durable. */
export async function ingestOtlpLogs(body: IngestBody, encoding: OtlpEncoding, target: OtlpTarget, ingestor: Ingestor): Promise<OtlpIngestOutcome> {
  if (target.kind === 'byHost') return ingestor.tracked(() => ingestByHost(body, encoding, target, ingestor));
  const result = await ingestor.ingest(target.zone.id, httpRequests, { ...body, format: { kind: 'otlp', encoding, splitByHost: false } });
  const rejections = result.otlp?.rejections ?? noRejections;
  return { accepted: result.accepted, rejected: rejections.count, errorMessage: rejectionMessage(rejections, result.otlp?.total ?? 0) };
}

/** Splits the records by host, routes each host's to its zone, and ingests each zone's lines. */
async function ingestByHost(body: IngestBody, encoding: OtlpEncoding, target: OtlpTarget & { readonly kind: 'byHost' }, ingestor: Ingestor): Promise<OtlpIngestOutcome> {
  const split = await ingestor.splitOtlp(httpRequests, { ...body, format: { kind: 'otlp', encoding, splitByHost: true } });
  const routed = new Map<string, { readonly zone: Zone; readonly groups: OtlpHostGroup[] }>();
  const allowed = new Map<string, boolean>();
  const refused: OtlpRejection[] = [];
  let refusedCount = 0;
  let unknownHosts = 0;
  const refuse = (group: OtlpHostGroup, reason: string) => {
    refusedCount += group.records.length;
    for (const record of group.records.slice(0, 5)) refused.push({ record, reason });
  };
  for (const group of split.groups ?? []) {
    const zone = group.host === undefined ? undefined : target.zoneForHost(group.host);
    if (zone === undefined) {
      unknownHosts += group.records.length;
      refuse(group, group.host === undefined ? 'it names no host to route it by (server.address, url.full or a Host header)' : `no zone serves the host ${JSON.stringify(group.host)}`);
      continue;
    }
    let may = allowed.get(zone.id);
    if (may === undefined) {
      may = await target.mayIngest(zone);
      allowed.set(zone.id, may);
    }
    if (!may) {
      // Another user's zone gets the answer of no zone at all: the answer tells nobody which hosts others have.
      refuse(group, `no zone serves the host ${JSON.stringify(group.host)}`);
      continue;
    }
    const entry = routed.get(zone.id) ?? { zone, groups: [] };
    entry.groups.push(group);
    routed.set(zone.id, entry);
  }
  ingestor.countDropped('', 'unknown_host', unknownHosts);

  let accepted = 0;
  const lists: OtlpRejections[] = [split.rejections, { count: refusedCount, first: rejectionsOf(refused).first }];
  for (const { zone, groups } of routed.values()) {
    const joined = joinGroups(groups);
    const text = Buffer.from(joined.text, 'utf8');
    const result = await ingestor.ingest(zone.id, httpRequests, { bytes: text, encoding: 'identity', limitBytes: text.length, badLines: 'skip' });
    accepted += result.accepted;
    if (result.skipped !== undefined) lists.push(skippedRejections(result.skipped, joined.records));
  }
  const rejections = mergeRejections(...lists);
  return { accepted, rejected: rejections.count, errorMessage: rejectionMessage(rejections, split.total) };
}
