/**
 * Ingest: a request's NDJSON events → validated (the whole request, before anything is queued) →
 * custom fields captured with the zone's current plan → canonical NDJSON in chunks → durably appended to
 * the zone's stream. Events of a dataset with no enabled job are acknowledged and counted as dropped.
 */
import { createHash } from 'node:crypto';
import { AppError, type ErrorDetail } from '../core/app-error.ts';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import { compileIngestParser, type IngestEvent } from '../domain/datasets/ingest-event.ts';
import type { ChunkInput, EventQueue } from '../queue/queue.ts';
import { captureCustomFields } from './capture.ts';
import type { ZoneSnapshots } from './zone-snapshots.ts';

/** Chunks stay well under the 1 MB message limit of a default NATS server. */
export const chunkTargetBytes = 512 * 1024;
/** An answer names at most this many bad lines, then says how many more there were. */
const maxReportedLines = 100;

/** Counters of what ingest did, per zone (for /metrics). */
export interface IngestCounters {
  requests: number;
  rejected_requests: number;
  accepted_events: number;
  dropped: Record<string, number>;
}

export class Ingestor {
  private readonly queue: EventQueue;
  private readonly snapshots: ZoneSnapshots;
  private readonly parsers = new Map<string, ReturnType<typeof compileIngestParser>>();
  readonly counters = new Map<string, IngestCounters>();

  constructor(queue: EventQueue, snapshots: ZoneSnapshots) {
    this.queue = queue;
    this.snapshots = snapshots;
  }

  private countersOf(zoneId: string): IngestCounters {
    let c = this.counters.get(zoneId);
    if (c === undefined) {
      c = { requests: 0, rejected_requests: 0, accepted_events: 0, dropped: {} };
      this.counters.set(zoneId, c);
    }
    return c;
  }

  /** Validates, captures and queues the events of one request; resolves once they are durable. */
  async ingest(zoneId: string, dataset: Dataset, text: string): Promise<{ accepted: number }> {
    const counters = this.countersOf(zoneId);
    counters.requests += 1;
    const events = this.parse(dataset, text, counters);
    const snapshot = await this.snapshots.get(zoneId);
    if (!snapshot.enabledDatasets.has(dataset.id)) {
      counters.dropped.no_job = (counters.dropped.no_job ?? 0) + events.length;
      return { accepted: events.length };
    }
    const chunks: ChunkInput[] = [];
    let lines: string[] = [];
    let bytes = 0;
    const plan = snapshot.capturePlan;
    for (const event of events) {
      const record = plan.isEmpty ? event.record : { ...event.record, ...captureCustomFields(plan, event.rawRequestHeaders, event.rawResponseHeaders) };
      const line = JSON.stringify(record);
      lines.push(line);
      bytes += line.length + 1;
      if (bytes >= chunkTargetBytes) {
        chunks.push(toChunk(lines));
        lines = [];
        bytes = 0;
      }
    }
    if (lines.length > 0) chunks.push(toChunk(lines));
    const dedupeKey = createHash('sha256').update(zoneId).update('\0').update(dataset.id).update('\0').update(text).digest('hex');
    await this.queue.append({ zoneId, dataset: dataset.id }, chunks, dedupeKey);
    counters.accepted_events += events.length;
    return { accepted: events.length };
  }

  /** Parses every line; any bad line rejects the whole request, naming the lines. */
  private parse(dataset: Dataset, text: string, counters: IngestCounters): IngestEvent[] {
    let parse = this.parsers.get(dataset.id);
    if (parse === undefined) {
      parse = compileIngestParser(dataset);
      this.parsers.set(dataset.id, parse);
    }
    const events: IngestEvent[] = [];
    const problems: ErrorDetail[] = [];
    let badLines = 0;
    let lineNumber = 0;
    let start = 0;
    while (start <= text.length) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      lineNumber += 1;
      let line = text.slice(start, end);
      start = end + 1;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.trim() === '') continue;
      const result = parse(line);
      if (result.ok) {
        events.push(result.value);
      } else {
        badLines += 1;
        if (problems.length < maxReportedLines) problems.push({ message: `line ${lineNumber}: ${result.error}` });
      }
    }
    if (badLines > problems.length) problems.push({ message: `and ${badLines - problems.length} more bad lines` });
    if (problems.length > 0) {
      counters.rejected_requests += 1;
      throw new AppError('ingestInvalid', problems);
    }
    if (events.length === 0) {
      counters.rejected_requests += 1;
      throw new AppError('ingestInvalid', 'The request holds no events: send one JSON object per line (NDJSON)');
    }
    return events;
  }
}

function toChunk(lines: readonly string[]): ChunkInput {
  return { payload: Buffer.from(lines.join('\n') + '\n', 'utf8'), count: lines.length };
}
