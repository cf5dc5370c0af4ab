/**
 * The OTLP source: a request's log records → decoded and mapped to ingest lines (otlp-lines.ts, on an
 * ingest worker) → to the zone of the path, or each record to its zone by host → each zone's lines through
 * the same ingest as HTTP ingest (checks, capture, jobs, queue, durable before the answer), with bad lines
 * skipped rather than refusing the request: OTLP answers per record, as `partial_success`.
 */
import { httpRequests } from '../../domain/datasets/http-requests.ts';
import { noEnabledJobNotice } from '../../core/notice.ts';
import type { RejectedEvents } from '../../ingest/ingest-figures.ts';
import type { IngestBody, Ingestor } from '../../ingest/ingest.ts';
import type { Zone } from '../../store/store.ts';
import type { OtlpEncoding } from './otlp-answer.ts';
import {
  joinGroups,
  mergeRejections,
  noRejections,
  rejectionMessage,
  rejectionsOf,
  skippedRejections,
  type OtlpHostGroup,
  type OtlpRejectCode,
  type OtlpRejection,
  type OtlpRejections,
} from './otlp-lines.ts';

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

/**
 * What happened to a request's records: how many were accepted and rejected, and why in one sentence —
 * which also says when accepted records were dropped because no enabled job exports their zone's events
 * (OTLP's way to warn a client of a request it fully accepted: `partial_success` with 0 rejected).
 */
export interface OtlpIngestOutcome {
  readonly accepted: number;
  readonly rejected: number;
  readonly errorMessage: string;
}

/** Rejections as the ingest figures count them (per reason) and warn about them (the first few, with why). */
function rejectedEventsOf(rejections: OtlpRejections): RejectedEvents {
  return {
    count: rejections.count,
    byReason: rejections.byCode,
    first: rejections.first.map((r) => ({ reason: r.code, text: `log record ${r.record + 1}: ${r.reason}` })),
  };
}

/** The answer's sentence: the rejections, then the zones whose records were dropped for want of an enabled job. */
function outcomeMessage(rejections: OtlpRejections, total: number, noJob: readonly { readonly zone: Zone; readonly records: number }[], named: boolean): string {
  const notices = noJob.map(({ zone, records }) => noEnabledJobNotice(records, 'log records', named ? zone.name : undefined).message);
  return [rejectionMessage(rejections, total), ...notices].filter((part) => part !== '').join('; ');
}

/** Ingests the records of one request; resolves once the accepted ones are durable. */
export async function ingestOtlpLogs(body: IngestBody, encoding: OtlpEncoding, target: OtlpTarget, ingestor: Ingestor): Promise<OtlpIngestOutcome> {
  if (target.kind === 'byHost') return ingestor.tracked(() => ingestByHost(body, encoding, target, ingestor));
  const result = await ingestor.ingest(target.zone.id, httpRequests, { ...body, format: { kind: 'otlp', encoding, splitByHost: false }, wayIn: 'otlp' });
  const rejections = result.otlp?.rejections ?? noRejections;
  ingestor.figures.rejected(target.zone.id, 'otlp', rejectedEventsOf(rejections));
  const noJob = result.droppedNoJob === undefined ? [] : [{ zone: target.zone, records: result.droppedNoJob }];
  return { accepted: result.accepted, rejected: rejections.count, errorMessage: outcomeMessage(rejections, result.otlp?.total ?? 0, noJob, false) };
}

/** Splits the records by host, routes each host's to its zone, and ingests each zone's lines. */
async function ingestByHost(body: IngestBody, encoding: OtlpEncoding, target: OtlpTarget & { readonly kind: 'byHost' }, ingestor: Ingestor): Promise<OtlpIngestOutcome> {
  const split = await ingestor.splitOtlp(httpRequests, { ...body, format: { kind: 'otlp', encoding, splitByHost: true } });
  const routed = new Map<string, { readonly zone: Zone; readonly groups: OtlpHostGroup[] }>();
  const allowed = new Map<string, boolean>();
  const refused: OtlpRejection[] = [];
  const refusedByCode: Partial<Record<OtlpRejectCode, number>> = {};
  let refusedCount = 0;
  let unknownHosts = 0;
  const refuse = (group: OtlpHostGroup, code: OtlpRejectCode, reason: string) => {
    refusedCount += group.records.length;
    refusedByCode[code] = (refusedByCode[code] ?? 0) + group.records.length;
    for (const record of group.records.slice(0, 5)) refused.push({ record, code, reason });
  };
  for (const group of split.groups ?? []) {
    const zone = group.host === undefined ? undefined : target.zoneForHost(group.host);
    if (zone === undefined) {
      unknownHosts += group.records.length;
      if (group.host === undefined) refuse(group, 'no_host', 'it names no host to route it by (server.address, url.full or a Host header)');
      else refuse(group, 'unknown_host', `no zone serves the host ${JSON.stringify(group.host)}`);
      continue;
    }
    let may = allowed.get(zone.id);
    if (may === undefined) {
      may = await target.mayIngest(zone);
      allowed.set(zone.id, may);
    }
    if (!may) {
      // Another user's zone gets the answer of no zone at all: the answer tells nobody which hosts others have.
      refuse(group, 'unknown_host', `no zone serves the host ${JSON.stringify(group.host)}`);
      continue;
    }
    const entry = routed.get(zone.id) ?? { zone, groups: [] };
    entry.groups.push(group);
    routed.set(zone.id, entry);
  }
  ingestor.countDropped('', 'unknown_host', unknownHosts, 'otlp');
  // Records rejected before they had a zone (or for a zone the credentials may not send to) count for no zone.
  const unrouted = mergeRejections(split.rejections, { count: refusedCount, byCode: refusedByCode, first: rejectionsOf(refused).first });
  ingestor.figures.rejected('', 'otlp', rejectedEventsOf(unrouted));

  let accepted = 0;
  const lists: OtlpRejections[] = [unrouted];
  const noJob: { zone: Zone; records: number }[] = [];
  for (const { zone, groups } of routed.values()) {
    const joined = joinGroups(groups);
    const text = Buffer.from(joined.text, 'utf8');
    const result = await ingestor.ingest(zone.id, httpRequests, { bytes: text, encoding: 'identity', limitBytes: text.length, badLines: 'skip', wayIn: 'otlp' });
    accepted += result.accepted;
    if (result.droppedNoJob !== undefined) noJob.push({ zone, records: result.droppedNoJob });
    if (result.skipped !== undefined) {
      const skipped = skippedRejections(result.skipped, joined.records);
      ingestor.figures.rejected(zone.id, 'otlp', rejectedEventsOf(skipped));
      lists.push(skipped);
    }
  }
  const rejections = mergeRejections(...lists);
  return { accepted, rejected: rejections.count, errorMessage: outcomeMessage(rejections, split.total, noJob, true) };
}
