import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/app-error.ts';
import { waysIn } from '../../ingest/ingest-figures.ts';
import type { ApiDeps } from '../request-context.ts';

/** Whether an Authorization header carries the metrics token (compared in constant time). */
function carriesToken(authorization: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
  if (m === null) return false;
  const sent = Buffer.from(m[1] ?? '');
  const expected = Buffer.from(token);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/**
 * `GET /metrics`: this node's counters in the Prometheus text format — per job (what this node's runners
 * did), per zone (what this node's ingest did), and the queue's undelivered bytes. With
 * `LOGEXPORT_METRICS_TOKEN` set, only a request carrying `Authorization: Bearer <token>` gets them.
 */
export function metricsRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const token = deps.config.metricsToken;
  app.get('/metrics', async (request, reply) => {
    if (token !== undefined && !carriesToken(request.headers.authorization, token)) {
      void reply.header('www-authenticate', 'Bearer realm="logexport metrics"');
      throw new AppError('metricsUnauthorized');
    }
    const lines: string[] = [];
    const family = (name: string, help: string, type: 'counter' | 'gauge') => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    const jobs = [...deps.dataPlane.counters.live().entries()];
    const jobCounter = (name: string, help: string, pick: (v: (typeof jobs)[number][1]['values']) => number) => {
      family(name, help, 'counter');
      for (const [jobId, counters] of jobs) lines.push(`${name}{job_id="${jobId}"} ${pick(counters.values)}`);
    };
    jobCounter('logexport_job_received_records_total', 'Records a job read from its queue.', (v) => v.received);
    jobCounter('logexport_job_filtered_out_records_total', 'Records the job filter left out.', (v) => v.filtered_out);
    jobCounter('logexport_job_sampled_out_records_total', 'Records sampling left out.', (v) => v.sampled_out);
    jobCounter('logexport_job_delivered_records_total', 'Records delivered to the destination.', (v) => v.delivered_records);
    jobCounter('logexport_job_delivered_bytes_total', 'Compressed bytes delivered to the destination.', (v) => v.delivered_bytes);
    jobCounter('logexport_job_batches_total', 'Batches delivered.', (v) => v.batches);
    jobCounter('logexport_job_failures_total', 'Delivery attempts that failed.', (v) => v.failures);
    jobCounter('logexport_job_retries_total', 'Delivery attempts that were retries.', (v) => v.retries);
    family('logexport_job_dropped_records_total', 'Records a job could not deliver, by reason.', 'counter');
    for (const [jobId, counters] of jobs) {
      for (const [reason, n] of Object.entries(counters.values.dropped)) lines.push(`logexport_job_dropped_records_total{job_id="${jobId}",reason="${escapeLabel(reason)}"} ${n}`);
    }
    const zones = [...deps.dataPlane.ingestor.counters.entries()];
    family('logexport_ingest_requests_total', 'Ingest requests received.', 'counter');
    for (const [zone, c] of zones) lines.push(`logexport_ingest_requests_total{zone_id="${zone}"} ${c.requests}`);
    family('logexport_ingest_rejected_requests_total', 'Ingest requests refused for bad lines.', 'counter');
    for (const [zone, c] of zones) lines.push(`logexport_ingest_rejected_requests_total{zone_id="${zone}"} ${c.rejected_requests}`);
    family('logexport_ingest_accepted_events_total', 'Events durably queued.', 'counter');
    for (const [zone, c] of zones) lines.push(`logexport_ingest_accepted_events_total{zone_id="${zone}"} ${c.accepted_events}`);
    family(
      'logexport_ingest_dropped_events_total',
      'Events acknowledged but not queued, by reason (no_job: no enabled job for the dataset; unknown_host: a source event whose host is no zone, zone_id "").',
      'counter',
    );
    for (const [zone, c] of zones) {
      for (const [reason, n] of Object.entries(c.dropped)) lines.push(`logexport_ingest_dropped_events_total{zone_id="${zone}",reason="${escapeLabel(reason)}"} ${n}`);
    }
    for (const [reason, n] of Object.entries(deps.dataPlane.ingestor.unrouted)) lines.push(`logexport_ingest_dropped_events_total{zone_id="",reason="${escapeLabel(reason)}"} ${n}`);
    // The same per way in (http, otlp, tail), and the events refused one by one with their reasons.
    const figures = deps.dataPlane.ingestor.figures;
    const everyZone = [...figures.zones.entries(), ['', figures.unrouted] as const];
    family(
      'logexport_ingest_received_events_total',
      'Events that came in, by way in and outcome: accepted (queued), dropped (acknowledged, not queued), rejected (refused one by one while the rest of the request was taken).',
      'counter',
    );
    const sum = (counts: Readonly<Record<string, number>>) => Object.values(counts).reduce((a, b) => a + b, 0);
    for (const [zone, c] of everyZone) {
      for (const way of waysIn) {
        const w = c.way_in[way];
        const outcomes = { accepted: w.accepted_events, dropped: sum(w.dropped), rejected: sum(w.rejected_events) };
        if (outcomes.accepted + outcomes.dropped + outcomes.rejected === 0) continue;
        for (const [outcome, n] of Object.entries(outcomes)) lines.push(`logexport_ingest_received_events_total{zone_id="${zone}",way_in="${way}",outcome="${outcome}"} ${n}`);
      }
    }
    family('logexport_ingest_rejected_events_total', 'Events refused one by one (an OTLP log record that is no HTTP request log, …), by way in and reason.', 'counter');
    for (const [zone, c] of everyZone) {
      for (const way of waysIn) {
        for (const [reason, n] of Object.entries(c.way_in[way].rejected_events)) {
          lines.push(`logexport_ingest_rejected_events_total{zone_id="${zone}",way_in="${way}",reason="${escapeLabel(reason)}"} ${n}`);
        }
      }
    }
    const sources = deps.dataPlane.sources();
    const sourceLabels = (s: (typeof sources)[number]) => `source="${escapeLabel(s.source)}",file="${escapeLabel(s.path)}",format="${s.format}",identity="${escapeLabel(s.fileId)}"`;
    const sourceMetric = (name: string, help: string, type: 'counter' | 'gauge', pick: (s: (typeof sources)[number]) => number) => {
      family(name, help, type);
      for (const s of sources) lines.push(`${name}{${sourceLabels(s)}} ${pick(s)}`);
    };
    sourceMetric('logexport_source_offset_bytes', 'Bytes of the tailed file read and committed.', 'gauge', (s) => s.offset);
    sourceMetric('logexport_source_behind_bytes', 'Bytes of the tailed file not read yet.', 'gauge', (s) => s.bytesBehind ?? 0);
    sourceMetric('logexport_source_lines_read_total', 'Complete lines read from the tailed file.', 'counter', (s) => s.linesRead);
    sourceMetric('logexport_source_lines_accepted_total', 'Lines checked, routed to a zone and handed to ingest.', 'counter', (s) => s.linesAccepted);
    sourceMetric('logexport_source_lines_rejected_total', 'Lines refused (format, checks, size) and skipped.', 'counter', (s) => s.linesRejected);
    sourceMetric('logexport_source_lines_unknown_host_total', 'Lines whose host is no zone.', 'counter', (s) => s.linesUnknownHost);
    sourceMetric('logexport_source_paused', '1 while the tail waits for the queue to go under its limit.', 'gauge', (s) => (s.paused ? 1 : 0));
    family('logexport_source_last_error_timestamp_seconds', 'When the tail last met a problem (the message is in `logexport sources`).', 'gauge');
    for (const s of sources) if (s.lastErrorAt !== null) lines.push(`logexport_source_last_error_timestamp_seconds{${sourceLabels(s)}} ${Date.parse(s.lastErrorAt) / 1000}`);
    family('logexport_queue_pending_bytes', 'Queued bytes not yet delivered by every job.', 'gauge');
    lines.push(`logexport_queue_pending_bytes ${deps.dataPlane.pendingBytes()}`);
    family('logexport_retention_written_events_total', 'Retained events this node wrote into segments.', 'counter');
    for (const [zone, n] of deps.retention.written) lines.push(`logexport_retention_written_events_total{zone_id="${zone}"} ${n}`);
    // The compaction's backlog (docs/retention.md): hot segments waiting to become Parquet on this node.
    const compaction = deps.retention.compaction();
    family('logexport_retention_hot_bytes', 'Bytes of hot (not yet compacted) retained segments this node will compact.', 'gauge');
    lines.push(`logexport_retention_hot_bytes ${compaction.backlog.hotBytes}`);
    family('logexport_retention_hot_segments', 'Hot retained segments this node will compact.', 'gauge');
    lines.push(`logexport_retention_hot_segments ${compaction.backlog.hotSegments}`);
    family('logexport_retention_oldest_hot_segment_age_seconds', 'How long ago the oldest event still in a hot segment was received (0 when none).', 'gauge');
    const oldest = compaction.backlog.oldestReceivedMs;
    lines.push(`logexport_retention_oldest_hot_segment_age_seconds ${oldest === undefined ? 0 : Math.max(0, (deps.clock.now() - oldest) / 1000)}`);
    family('logexport_retention_compacted_segments_total', 'Hot retained segments this node compacted into Parquet.', 'counter');
    lines.push(`logexport_retention_compacted_segments_total ${compaction.compactedHotSegments}`);
    family('logexport_retention_compaction_paused', '1 while ingest is saturated and the compaction waits.', 'gauge');
    lines.push(`logexport_retention_compaction_paused ${compaction.paused ? 1 : 0}`);
    family('logexport_retention_quarantined_segments', 'A retained segment this node quarantined (it cannot be read; kept under <zone>/quarantine/).', 'gauge');
    for (const q of compaction.quarantined) lines.push(`logexport_retention_quarantined_segments{zone_id="${q.zoneId}",segment="${q.key}"} 1`);
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(lines.join('\n') + '\n');
  });
}
