/**
 * One ingest request's CPU work as a self-contained task: decompress, decode, and process the body with
 * the zone's plan. Plain data in and out, so the same function runs inline or in a worker thread; a
 * worker compiles each plan once and keeps it while the plan's key stays the same.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import type { ErrorDetail, ErrorKind } from '../core/app-error.ts';
import { findDataset } from '../domain/datasets/http-requests.ts';
import { compileIngestParser, type IngestLineParser } from '../domain/datasets/ingest-event.ts';
import type { FilterLimits } from '../domain/filters/parse-filter.ts';
import { customFieldRulesOf } from '../domain/rulesets/custom-fields.ts';
import type { ChunkInput } from '../queue/queue.ts';
import type { JobSettings } from '../domain/jobs/job-settings.ts';
import type { StoredRule } from '../domain/rulesets/stored-rule.ts';
import { compileCapturePlan } from './capture.ts';
import { processIngestText, type BadLines, type IngestPlan, type PreparedJob, type SkippedLines } from './ingest-processor.ts';
import { compileJobPlan } from './job-plan.ts';
import { compileLiveTap, type LiveTap, type LiveTapOutput, type LiveTapSpec } from './live-tap.ts';
import type { OtlpEncoding } from '../sources/otlp/otlp-answer.ts';
import { joinGroups, mergeRejections, otlpLinesOf, skippedRejections, type OtlpHostGroup, type OtlpRejections } from '../sources/otlp/otlp-lines.ts';

/** What a plan is compiled from: the zone's custom-field rules and its enabled jobs of the dataset, and the node's settings. */
export interface PlanSource {
  readonly rules: readonly StoredRule[];
  readonly jobs: readonly (JobSettings & { readonly id: number })[];
  /** Live sessions watching the zone's dataset (usually none). */
  readonly live?: readonly LiveTapSpec[];
  /** The zone's retention flag: every event is also kept whole for the retention writer. */
  readonly retain: boolean;
  readonly settings: IngestSettings;
}

/** The node's settings that shape an ingest plan. */
export interface IngestSettings {
  readonly filterLimits: FilterLimits;
  /** The zlib level kept records are compressed at. */
  readonly gzipLevel: number;
}

/**
 * What a task's body is: NDJSON events (HTTP ingest), or an OTLP logs request whose records are mapped to
 * events first (sources/otlp). `splitByHost` only decodes and maps, grouping the lines by the host they
 * name, for a request whose records are routed to their zones by host before they are processed.
 */
export type BodyFormat = { readonly kind: 'ndjson' } | { readonly kind: 'otlp'; readonly encoding: OtlpEncoding; readonly splitByHost: boolean };

/** What an OTLP task adds to its result: the records it held and those rejected; the groups when split by host. */
export interface OtlpTaskOutput {
  readonly total: number;
  readonly rejections: OtlpRejections;
  readonly groups?: readonly OtlpHostGroup[];
}

/** One request to process. */
export interface IngestTask {
  readonly dataset: string;
  readonly body: Uint8Array;
  readonly encoding: 'identity' | 'gzip';
  /** Largest body after decompression. */
  readonly limitBytes: number;
  /** What a bad line does (HTTP ingest refuses the request; absent means `refuse`). */
  readonly badLines?: BadLines;
  /** Absent means NDJSON. */
  readonly format?: BodyFormat;
  /** Identifies `plan`; the same key always means the same plan. */
  readonly planKey: string;
  readonly plan: PlanSource;
  /** When the request was received (Unix ms, the node's clock): the receive time of the events' retained copy. */
  readonly receivedAtMs?: number;
}

/** What processing answered: the chunks to queue, or the error to answer with. */
export type TaskResult =
  | {
      readonly ok: true;
      readonly accepted: number;
      readonly chunks: readonly ChunkInput[];
      readonly dedupeKey: string;
      readonly live: readonly LiveTapOutput[];
      readonly skipped?: SkippedLines;
      readonly otlp?: OtlpTaskOutput;
    }
  | { readonly ok: false; readonly kind: ErrorKind; readonly details: readonly ErrorDetail[] };

/** Compiled plans by key, and parsers by dataset; one per thread. */
export class PlanCache {
  private readonly plans = new Map<string, IngestPlan>();
  private readonly parsers = new Map<string, IngestLineParser>();

  parser(datasetId: string): IngestLineParser | undefined {
    let parse = this.parsers.get(datasetId);
    if (parse === undefined) {
      const dataset = findDataset(datasetId);
      if (dataset === undefined) return undefined;
      parse = compileIngestParser(dataset);
      this.parsers.set(datasetId, parse);
    }
    return parse;
  }

  plan(key: string, source: PlanSource, datasetId: string): IngestPlan {
    let plan = this.plans.get(key);
    if (plan === undefined) {
      plan = compileIngestPlan(source, datasetId);
      // Plans change rarely; keep the recent ones only.
      if (this.plans.size >= 256) this.plans.clear();
      this.plans.set(key, plan);
    }
    return plan;
  }
}

/** Compiles a plan source; a job that cannot be compiled is left out (the API refuses such jobs anyway). */
export function compileIngestPlan(source: PlanSource, datasetId: string): IngestPlan {
  const jobs: PreparedJob[] = [];
  for (const job of source.jobs) {
    const compiled = compileJobPlan(job, source.settings.filterLimits);
    if (!compiled.ok) continue;
    jobs.push({ jobId: job.id, predicate: compiled.value.predicate, sampler: compiled.value.sampler, formatter: compiled.value.formatter });
  }
  const live: LiveTap[] = [];
  const dataset = findDataset(datasetId);
  for (const spec of source.live ?? []) {
    if (dataset === undefined) break;
    // A session that cannot be compiled is left out (the API refuses such sessions).
    const compiled = compileLiveTap(spec, dataset, source.settings.filterLimits);
    if (compiled.ok) live.push(compiled.value);
  }
  return { capture: compileCapturePlan(customFieldRulesOf(source.rules)), jobs, live, gzipLevel: source.settings.gzipLevel, retain: source.retain };
}

/**
 * The body as text, and whether it is ASCII (its characters then sit at the offsets of its bytes); undefined
 * when it is not UTF-8. ASCII (the usual case) decodes fastest as latin1.
 */
function decodeUtf8(bytes: Uint8Array): { readonly text: string; readonly ascii: boolean } | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isAscii(buffer)) return { text: buffer.toString('latin1'), ascii: true };
  if (!isUtf8(buffer)) return undefined;
  // A byte order mark is not part of the first line.
  const text = buffer.toString('utf8');
  return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, ascii: false };
}

/** Runs one task. */
export function runIngestTask(task: IngestTask, cache: PlanCache): TaskResult {
  const parse = cache.parser(task.dataset);
  if (parse === undefined) return { ok: false, kind: 'routeNotFound', details: [{ message: `logexport does not ingest dataset ${task.dataset}` }] };
  let raw: Uint8Array = task.body;
  if (task.encoding === 'gzip') {
    try {
      raw = zlib.gunzipSync(task.body, { maxOutputLength: task.limitBytes });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        return { ok: false, kind: 'payloadTooLarge', details: [{ message: `The decompressed body is over the ${task.limitBytes}-byte limit` }] };
      }
      return { ok: false, kind: 'ingestInvalid', details: [{ message: 'The body is not valid gzip' }] };
    }
  }
  if (task.format?.kind === 'otlp') return runOtlpTask(task, task.format, raw, parse, cache);
  const decoded = decodeUtf8(raw);
  if (decoded === undefined) return { ok: false, kind: 'ingestInvalid', details: [{ message: 'The body is not valid UTF-8' }] };
  const plan = cache.plan(task.planKey, task.plan, task.dataset);
  const outcome = processIngestText(decoded.text, parse, plan, task.badLines, { bytes: raw, ascii: decoded.ascii }, task.receivedAtMs);
  if (!outcome.ok) return { ok: false, kind: 'ingestInvalid', details: outcome.problems };
  // Identifies the request's content, so a retried request is stored once where the queue can tell.
  const dedupeKey = createHash('sha256').update(raw).digest('hex');
  const result = { ok: true as const, accepted: outcome.accepted, chunks: outcome.chunks, dedupeKey, live: outcome.live };
  return outcome.skipped === undefined ? result : { ...result, skipped: outcome.skipped };
}

/** An OTLP request: its records mapped to lines, then (unless split by host) processed with bad lines skipped. */
function runOtlpTask(task: IngestTask, format: BodyFormat & { kind: 'otlp' }, raw: Uint8Array, parse: IngestLineParser, cache: PlanCache): TaskResult {
  const mapped = otlpLinesOf(format.encoding, raw);
  if (!mapped.ok) return { ok: false, kind: 'otlpUndecodable', details: [{ message: mapped.error }] };
  const { total, groups, rejections } = mapped.value;
  const dedupeKey = createHash('sha256').update(raw).digest('hex');
  if (format.splitByHost) return { ok: true, accepted: 0, chunks: [], dedupeKey, live: [], otlp: { total, rejections, groups } };
  const joined = joinGroups(groups);
  if (joined.records.length === 0) return { ok: true, accepted: 0, chunks: [], dedupeKey, live: [], otlp: { total, rejections } };
  const outcome = processIngestText(joined.text, parse, cache.plan(task.planKey, task.plan, task.dataset), 'skip', undefined, task.receivedAtMs);
  if (!outcome.ok) return { ok: false, kind: 'ingestInvalid', details: outcome.problems };
  const skipped = outcome.skipped === undefined ? rejections : mergeRejections(rejections, skippedRejections(outcome.skipped, joined.records));
  return { ok: true, accepted: outcome.accepted, chunks: outcome.chunks, dedupeKey, live: outcome.live, otlp: { total, rejections: skipped } };
}
