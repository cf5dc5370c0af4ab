import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../request-context.ts';

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/**
 * `GET /metrics`: this node's counters in the Prometheus text format — per job (what this node's runners
 * did), per zone (what this node's ingest did), and the queue's undelivered bytes.
 */
export function metricsRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/metrics', async (_request, reply) => {
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
    family('logexport_ingest_dropped_events_total', 'Events acknowledged but not queued, by reason (no_job: no enabled job for the dataset).', 'counter');
    for (const [zone, c] of zones) {
      for (const [reason, n] of Object.entries(c.dropped)) lines.push(`logexport_ingest_dropped_events_total{zone_id="${zone}",reason="${escapeLabel(reason)}"} ${n}`);
    }
    family('logexport_queue_pending_bytes', 'Queued bytes not yet delivered by every job.', 'gauge');
    lines.push(`logexport_queue_pending_bytes ${deps.dataPlane.pendingBytes()}`);
    family('logexport_retention_written_events_total', 'Retained events this node wrote into segments.', 'counter');
    for (const [zone, n] of deps.retention.written) lines.push(`logexport_retention_written_events_total{zone_id="${zone}"} ${n}`);
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(lines.join('\n') + '\n');
  });
}
