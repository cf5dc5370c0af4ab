/**
 * One HTTP ingest request's CPU work as a self-contained task: decompress, decode the NDJSON, and process
 * the body with the zone's plan (a source's bytes make a source task instead: source-task.ts). Plain data
 * in and out, so the same function runs inline or in a worker thread; a worker compiles each plan once and
 * keeps it while the plan's key stays the same.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { ErrorDetail, ErrorKind } from '../core/app-error.ts';
import { findDataset } from '../domain/datasets/http-requests.ts';
import { compileIngestParser, type IngestLineParser } from '../domain/datasets/ingest-event.ts';
import type { FilterLimits } from '../domain/filters/parse-filter.ts';
import { customFieldRulesOf } from '../domain/rulesets/custom-fields.ts';
import type { ChunkInput } from '../queue/queue.ts';
import type { JobSettings } from '../domain/jobs/job-settings.ts';
import type { StoredRule } from '../domain/rulesets/stored-rule.ts';
import { compileCapturePlan } from './capture.ts';
import { compileCapturedMembers } from './captured-members.ts';
import { inflateBody } from './inflate-body.ts';
import { processIngestText, type IngestPlan, type PreparedJob } from './ingest-processor.ts';
import { compileRetainRule, type RetainSelection } from './retain-rule.ts';
import { compileJobPlan } from './job-plan.ts';
import { compileLiveTap, type LiveTap, type LiveTapOutput, type LiveTapSpec } from './live-tap.ts';

/** What a plan is compiled from: the zone's custom-field rules and its enabled jobs of the dataset, and the node's settings. */
export interface PlanSource {
  readonly rules: readonly StoredRule[];
  readonly jobs: readonly (JobSettings & { readonly id: number })[];
  /** Live sessions watching the zone's dataset (usually none). */
  readonly live?: readonly LiveTapSpec[];
  /** Whether the zone retains its events (its retention flag, or an enabled Log Explorer dataset): each is also kept for the retention writer. */
  readonly retain: boolean;
  /**
   * What an enabled Log Explorer dataset keeps, when it alone decides (the flag off): its fields (null: all)
   * and its filter (null: every event). Absent: every event whole.
   */
  readonly retainSelection?: RetainSelection;
  readonly settings: IngestSettings;
}

/** The node's settings that shape an ingest plan. */
export interface IngestSettings {
  readonly filterLimits: FilterLimits;
  /** The zlib level kept records are compressed at. */
  readonly gzipLevel: number;
}

/** One request to process. */
export interface IngestTask {
  readonly dataset: string;
  readonly body: Uint8Array;
  readonly encoding: 'identity' | 'gzip';
  /** Largest body after decompression. */
  readonly limitBytes: number;
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
  const retainRule = source.retainSelection !== undefined && dataset !== undefined ? compileRetainRule(source.retainSelection, dataset, source.settings.filterLimits) : undefined;
  const capture = compileCapturePlan(customFieldRulesOf(source.rules));
  return {
    capture,
    jobs,
    live,
    gzipLevel: source.settings.gzipLevel,
    retain: source.retain,
    ...(retainRule === undefined ? {} : { retainRule }),
    ...(source.retain ? { capturedMembers: compileCapturedMembers(capture) } : {}),
  };
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
  const inflated = inflateBody(task.body, task.encoding, task.limitBytes);
  if (!inflated.ok) return { ok: false, kind: inflated.error.kind, details: inflated.error.details };
  const raw = inflated.value;
  const decoded = decodeUtf8(raw);
  if (decoded === undefined) return { ok: false, kind: 'ingestInvalid', details: [{ message: 'The body is not valid UTF-8' }] };
  const plan = cache.plan(task.planKey, task.plan, task.dataset);
  const outcome = processIngestText(decoded.text, parse, plan, { bytes: raw, ascii: decoded.ascii }, task.receivedAtMs);
  if (!outcome.ok) return { ok: false, kind: 'ingestInvalid', details: outcome.problems };
  // Identifies the request's content, so a retried request is stored once where the queue can tell.
  const dedupeKey = createHash('sha256').update(raw).digest('hex');
  return { ok: true, accepted: outcome.accepted, chunks: outcome.chunks, dedupeKey, live: outcome.live };
}
