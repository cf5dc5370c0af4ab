/**
 * The CPU work of one ingest request, free of I/O so it runs on the main thread or in a worker: split the
 * NDJSON text into lines, parse and check every line (the whole request is refused if any line is bad),
 * capture the zone's custom fields once per event, run every enabled job's filter, sampler and formatter,
 * and pack the results into queue chunks (chunk-format.ts), compressing each job's kept records when they
 * are long enough.
 */
import type { ErrorDetail } from '../core/app-error.ts';
import { joinUtf8 } from '../core/utf8-bytes.ts';
import { isBlankIngestLine, type IngestEvent, type IngestLineParser } from '../domain/datasets/ingest-event.ts';
import type { FilterPredicate } from '../domain/filters/compile-filter.ts';
import type { ChunkInput } from '../queue/queue.ts';
import { captureCustomFields, defaultCaptureCapBytes, type CapturedFields, type CapturedValues, type CapturePlan } from './capture.ts';
import type { CapturedMembersWriter } from './captured-members.ts';
import { encodeChunk, eventStatus, type SectionInput } from './chunk-format.ts';
import { LiveCollector, type LiveTap, type LiveTapOutput } from './live-tap.ts';
import type { RetainRule } from './retain-rule.ts';
import { RetainedSection, type RequestBody } from './retained-text.ts';
import type { RecordFormatter } from './stages/format.ts';
import type { Sampler } from './stages/sample.ts';

/** One enabled job as ingest runs it. */
export interface PreparedJob {
  readonly jobId: number;
  readonly predicate: FilterPredicate;
  readonly sampler: Sampler;
  readonly formatter: RecordFormatter;
}

/** Everything ingest applies to the events of one zone and dataset. */
export interface IngestPlan {
  readonly capture: CapturePlan;
  readonly jobs: readonly PreparedJob[];
  /** The live sessions watching the zone (Instant Logs); usually none. */
  readonly live: readonly LiveTap[];
  /** The zlib level kept records are compressed at (LOGEXPORT_GZIP_LEVEL). */
  readonly gzipLevel: number;
  /** Whether the zone retains its events: each is also kept for the retention writer. */
  readonly retain: boolean;
  /** What a Log Explorer dataset keeps (its filter, its fields) when it alone decides; absent: every event whole. */
  readonly retainRule?: RetainRule;
  /** How the retained copy writes what capture added (compiled from `capture`, when it can be); absent: as JSON.stringify does. */
  readonly capturedMembers?: CapturedMembersWriter;
}

/** The result of processing one request body. */
export type IngestOutcome =
  | { readonly ok: true; readonly accepted: number; readonly chunks: readonly ChunkInput[]; readonly live: readonly LiveTapOutput[] }
  | { readonly ok: false; readonly problems: readonly ErrorDetail[] };

/** A chunk closes when its kept text reaches this size (well under a default NATS message limit of 1 MB)… */
export const chunkTargetBytes = 512 * 1024;
/**
 * …or when the retained events (the zone's retention flag is on) reach this much JSON: zstd makes it about a
 * ninth (~250 KB), well under a NATS message beside the jobs' compressed text. Smaller, retention would
 * split requests into more chunks than the jobs do, and every chunk costs every consumer of the stream a
 * read and a commit.
 */
export const retainedChunkTargetBytes = 2 * 1024 * 1024;
/** …or when it holds this many events (events that every job filters out make small chunks). */
export const chunkMaxEvents = 20_000;
/** An answer names at most this many bad lines, then says how many more there were. */
const maxReportedLines = 100;

class ChunkBuilder {
  private readonly jobs: readonly PreparedJob[];
  private readonly gzipLevel: number;
  /** Each event whole, while the zone retains its events. */
  private readonly retained: RetainedSection | undefined;
  private statuses: Uint8Array[];
  private records: string[][];
  private events = 0;
  private chars = 0;
  readonly chunks: ChunkInput[] = [];

  constructor(jobs: readonly PreparedJob[], gzipLevel: number, retainedAtMs: number | undefined, body: RequestBody | undefined, retainRule?: RetainRule, capturedMembers?: CapturedMembersWriter) {
    this.jobs = jobs;
    this.gzipLevel = gzipLevel;
    this.retained = retainedAtMs === undefined ? undefined : new RetainedSection(retainedAtMs, body, retainRule, capturedMembers);
    this.statuses = jobs.map(() => new Uint8Array(chunkMaxEvents));
    this.records = jobs.map(() => []);
  }

  /**
   * Adds an event: its record after capture, what capture added (as maps, and by the plan's slots), and
   * where its line is in the body (for retention).
   */
  add(event: IngestEvent, captured: CapturedFields | undefined, values: CapturedValues, start: number, end: number): void {
    const record = event.record;
    const index = this.events;
    this.retained?.add(record, captured, start, end, event.timestampsAsSent === true, values);
    for (let j = 0; j < this.jobs.length; j++) {
      const job = this.jobs[j] as PreparedJob;
      const statuses = this.statuses[j] as Uint8Array;
      if (!job.predicate(record)) statuses[index] = eventStatus.filteredOut;
      else if (!job.sampler(record)) statuses[index] = eventStatus.sampledOut;
      else {
        statuses[index] = eventStatus.kept;
        const text = job.formatter.format(record);
        (this.records[j] as string[]).push(text);
        this.chars += text.length;
      }
    }
    this.events += 1;
    if (this.events >= chunkMaxEvents || this.chars >= chunkTargetBytes || (this.retained?.size ?? 0) >= retainedChunkTargetBytes) this.close();
  }

  close(): void {
    if (this.events === 0) return;
    const sections: SectionInput[] = this.jobs.map((job, j) => {
      const delimiter = job.formatter.recordDelimiter;
      const joined = joinUtf8(this.records[j] as string[], delimiter);
      return {
        jobId: job.jobId,
        statuses: this.statuses[j] as Uint8Array,
        recordLengths: joined.lengths,
        delimiterLength: Buffer.byteLength(delimiter, 'utf8'),
        text: joined.bytes,
      };
    });
    if (this.retained !== undefined) sections.push(this.retained.take());
    const payload = encodeChunk(this.events, sections, this.gzipLevel);
    this.chunks.push({ payload, count: this.events });
    this.statuses = this.jobs.map(() => new Uint8Array(chunkMaxEvents));
    this.records = this.jobs.map(() => []);
    this.events = 0;
    this.chars = 0;
  }

  /** Closes the last chunk; the retained section's memory goes back for the next request. */
  finish(): void {
    this.close();
    this.retained?.finish();
  }
}

/** What a source's events became: the chunks to queue, and what each live session watching the zone kept. */
export interface PreparedEvents {
  readonly chunks: readonly ChunkInput[];
  readonly live: readonly LiveTapOutput[];
}

/**
 * The per-event work of a plan, whatever the events came from: custom fields captured once, then every
 * job's filter, sampler and formatter (and the retained copy) into chunks, and the live sessions' taps.
 * Events are added one by one as they are parsed (a parsed event is garbage once added), then `finish`.
 */
export class EventPreparation {
  private readonly capture: CapturePlan;
  /** What capture kept of the event being added, by slot: one array for every event. */
  private readonly capturedValues: CapturedValues;
  private readonly builder: ChunkBuilder | undefined;
  private readonly live: LiveCollector | undefined;
  /** Nothing to prepare: no enabled job, retention off, nobody watching. */
  readonly idle: boolean;

  /** `receivedMs` is when the events were received: the receive time their retained copy carries. */
  constructor(plan: IngestPlan, body?: RequestBody, receivedMs: number = Date.now()) {
    this.capture = plan.capture;
    this.capturedValues = new Array<string | undefined>(plan.capture.slotCount).fill(undefined);
    this.builder = plan.jobs.length > 0 || plan.retain ? new ChunkBuilder(plan.jobs, plan.gzipLevel, plan.retain ? receivedMs : undefined, body, plan.retainRule, plan.capturedMembers) : undefined;
    this.live = plan.live.length > 0 ? new LiveCollector(plan.live) : undefined;
    this.idle = this.builder === undefined && this.live === undefined;
  }

  /**
   * Prepares one checked event; its line is at [start, end) of the request body (a source's events have no
   * body, and their retained copy is written from the record).
   */
  add(event: IngestEvent, start = 0, end = 0): void {
    const record = event.record;
    const captured = this.capture.isEmpty ? undefined : captureCustomFields(this.capture, event.rawRequestHeaders, event.rawResponseHeaders, defaultCaptureCapBytes, this.capturedValues);
    if (captured !== undefined) Object.assign(record, captured);
    this.builder?.add(event, captured, this.capturedValues, start, end);
    this.live?.add(record);
  }

  finish(): PreparedEvents {
    this.builder?.finish();
    return { chunks: this.builder?.chunks ?? [], live: this.live?.outputs() ?? [] };
  }
}

/**
 * Processes one request body; with no enabled job, retention off and no live session it only checks the
 * events (nothing to queue, nothing to show). `body` is the bytes `text` was decoded from, which the
 * retained copy of an event takes its line from; `receivedMs` is when the events were received.
 */
export function processIngestText(text: string, parse: IngestLineParser, plan: IngestPlan, body?: RequestBody, receivedMs?: number): IngestOutcome {
  const preparation = new EventPreparation(plan, body, receivedMs);
  const problems: ErrorDetail[] = [];
  let badLines = 0;
  let accepted = 0;
  let lineNumber = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNumber += 1;
    const lineStart = start;
    const line = text.slice(start, end);
    start = end + 1;
    if (isBlankIngestLine(line)) continue;
    const result = parse(line);
    if (!result.ok) {
      if (problems.length < maxReportedLines) problems.push({ message: `line ${lineNumber}: ${result.error}` });
      badLines += 1;
      continue;
    }
    accepted += 1;
    // After the first bad line the request is refused, so only checking goes on.
    if (preparation.idle || badLines > 0) continue;
    preparation.add(result.value, lineStart, end);
  }
  if (badLines > 0) {
    if (badLines > problems.length) problems.push({ message: `and ${badLines - problems.length} more bad lines` });
    return { ok: false, problems };
  }
  const { chunks, live } = preparation.finish();
  if (accepted === 0) return { ok: false, problems: [{ message: 'The request holds no events: send one JSON object per line (NDJSON)' }] };
  return { ok: true, accepted, chunks, live };
}
