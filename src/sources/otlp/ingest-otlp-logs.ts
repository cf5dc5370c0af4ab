/**
 * The OTLP source: a request's log records → decoded, mapped, routed and checked on an ingest worker by the
 * OTLP decoder (otlp-decoder.ts), prepared there with each zone's plan like any ingested event (capture,
 * jobs, live taps, retained copy) → each zone's events appended to the queue, durable before the answer.
 * Records that fail are rejected rather than refusing the request: OTLP answers per record, as
 * `partial_success`. Routed by host, a request crosses to the worker once: the worker routes each record
 * among the zones, and only then are the credentials checked for each zone that got records.
 */
import { noEnabledJobNotice } from '../../core/notice.ts';
import type { RejectedEvents } from '../../ingest/ingest-figures.ts';
import type { IngestBody, Ingestor } from '../../ingest/ingest.ts';
import type { Zone } from '../../store/store.ts';
import type { OtlpEncoding } from './otlp-answer.ts';
import { otlpDecoderName, type OtlpAccount, type OtlpDecoderOptions } from './otlp-decoder.ts';
import { mergeRejections, rejectionMessage, type OtlpRejections } from './otlp-rejections.ts';

/** Where a request's records go. */
export type OtlpTarget =
  | { readonly kind: 'zone'; readonly zone: Zone }
  | {
      readonly kind: 'byHost';
      /** Every zone as `[name, id]` (zone-directory.ts), to route each record by its host. */
      readonly zones: () => readonly (readonly [string, string])[];
      /** Whether the request's credentials may ingest for the zone. */
      readonly mayIngest: (zoneId: string) => Promise<boolean>;
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

/** Ingests the records of one request; resolves once the accepted ones are durable. */
export async function ingestOtlpLogs(body: IngestBody, encoding: OtlpEncoding, target: OtlpTarget, ingestor: Ingestor): Promise<OtlpIngestOutcome> {
  return ingestor.tracked(async () => {
    const zones = target.kind === 'byHost' ? target.zones() : [];
    const options: OtlpDecoderOptions = { encoding, route: target.kind === 'zone' ? { kind: 'zone', zoneId: target.zone.id } : { kind: 'byHost', zones } };
    const zoneNames = new Map(zones.map(([name, id]) => [id, name]));
    const prepared = await ingestor.prepareFromSource(
      { decoder: otlpDecoderName, options, bytes: body.bytes, encoding: body.encoding, limitBytes: body.limitBytes, dedupe: true },
      target.kind === 'zone' ? { kind: 'zone', zoneId: target.zone.id } : { kind: 'routed' },
      'otlp',
    );
    const account = prepared.account as OtlpAccount;
    ingestor.countDropped('', 'unknown_host', account.unknownHosts, 'otlp');
    // Records rejected before they had a zone count for no zone; routed to a zone, for the zone.
    ingestor.figures.rejected(target.kind === 'zone' ? target.zone.id : '', 'otlp', rejectedEventsOf(account.rejections));
    const lists: OtlpRejections[] = [account.rejections];
    const notices: string[] = [];
    let accepted = 0;
    for (const zone of prepared.zones) {
      if (target.kind === 'byHost' && !(await target.mayIngest(zone.zoneId))) {
        // Another user's zone gets the answer of no zone at all: the answer tells nobody which hosts others have.
        const first = (account.routed[zone.zoneId] ?? []).map(({ record, host }) => ({ record, code: 'unknown_host' as const, reason: `no zone serves the host ${JSON.stringify(host)}` }));
        const refused: OtlpRejections = { count: zone.events, byCode: { unknown_host: zone.events }, first };
        ingestor.figures.rejected('', 'otlp', rejectedEventsOf(refused));
        lists.push(refused);
        continue;
      }
      const { droppedNoJob } = await ingestor.appendPrepared(zone, prepared.dedupeKey, target.kind === 'byHost', 'otlp');
      accepted += zone.events;
      if (droppedNoJob > 0) notices.push(noEnabledJobNotice(droppedNoJob, 'log records', target.kind === 'byHost' ? zoneNames.get(zone.zoneId) : undefined).message);
    }
    const rejections = mergeRejections(...lists);
    const errorMessage = [rejectionMessage(rejections, account.total), ...notices].filter((part) => part !== '').join('; ');
    return { accepted, rejected: rejections.count, errorMessage };
  });
}
