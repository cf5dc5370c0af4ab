/**
 * Instant Logs at ingest: a live session's filter, sampler and formatter, run on the events of a request
 * beside the enabled jobs (on the ingest worker that processes the request), so only the records a viewer
 * will see leave the worker — already filtered, sampled and formatted, and at most `limit` of them per
 * session and request. Plain data in (`LiveTapSpec`) and out (`LiveTapOutput`), like the rest of a task.
 * With no session watching a zone, ingest runs none of this. Pure.
 */
import type { ErrorDetail } from '../core/app-error.ts';
import { err, ok, type Result } from '../core/result.ts';
import type { EventRecord } from '../domain/datasets/event-record.ts';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import { compileFilter, type FilterPredicate } from '../domain/filters/compile-filter.ts';
import { parseFilter, type FilterLimits } from '../domain/filters/parse-filter.ts';
import { resolveOutputPlan } from '../domain/jobs/output-options.ts';
import { filterMessage } from './job-plan.ts';
import { compileFormatter, type RecordFormatter } from './stages/format.ts';
import { compileSampler, type Sampler } from './stages/sample.ts';

/** A live session as ingest needs it: what to keep and how to write it. */
export interface LiveTapSpec {
  readonly sessionId: string;
  /** Fields to write, in order (dataset fields, checked when the session was made). */
  readonly fieldNames: readonly string[];
  /** The job filter language; null keeps every record. */
  readonly filter: string | null;
  /** One record in `sample` is kept (1 keeps every record). */
  readonly sample: number;
  /** Most records one request may hand to the session; the rest are counted as overflow. */
  readonly limit: number;
}

/** What one request gave a session. */
export interface LiveTapOutput {
  readonly sessionId: string;
  /** Events of the request the session looked at. */
  readonly events: number;
  readonly filteredOut: number;
  readonly sampledOut: number;
  /** Kept records, formatted: one NDJSON object each, without a line break. */
  readonly lines: readonly string[];
  /** Kept records beyond `limit`, not formatted: dropped before anything was buffered. */
  readonly overflow: number;
}

/** A compiled session. */
export interface LiveTap {
  readonly spec: LiveTapSpec;
  readonly predicate: FilterPredicate;
  readonly sampler: Sampler;
  readonly formatter: RecordFormatter;
}

/**
 * Compiles a session with the job paths: the job filter language with the node's limits (problems point at
 * `/filter`, as for a job), the job sampler's RayID hash at a rate of 1/sample, and the job formatter with
 * NDJSON defaults (one JSON object per record, timestamps as Unix nanoseconds).
 */
export function compileLiveTap(spec: LiveTapSpec, dataset: Dataset, filterLimits: FilterLimits): Result<LiveTap, ErrorDetail> {
  const filter = parseFilter(spec.filter, dataset, filterLimits);
  if (!filter.ok) return err({ message: filterMessage(filter.error), pointer: '/filter' });
  // A viewer gets one message per record, so the record carries no line break.
  const plan = resolveOutputPlan({ fieldNames: spec.fieldNames, recordSuffix: '}' }, null);
  return ok({
    spec,
    predicate: compileFilter(filter.value),
    sampler: compileSampler(1 / spec.sample),
    formatter: compileFormatter(plan, dataset),
  });
}

interface TapState {
  readonly tap: LiveTap;
  filteredOut: number;
  sampledOut: number;
  overflow: number;
  readonly lines: string[];
}

/** Runs every session of a request on each of its events. */
export class LiveCollector {
  private readonly states: TapState[];
  private events = 0;

  constructor(taps: readonly LiveTap[]) {
    this.states = taps.map((tap) => ({ tap, filteredOut: 0, sampledOut: 0, overflow: 0, lines: [] }));
  }

  add(record: EventRecord): void {
    this.events += 1;
    for (const state of this.states) {
      const tap = state.tap;
      if (!tap.predicate(record)) state.filteredOut += 1;
      else if (!tap.sampler(record)) state.sampledOut += 1;
      else if (state.lines.length >= tap.spec.limit) state.overflow += 1;
      else state.lines.push(tap.formatter.format(record));
    }
  }

  outputs(): LiveTapOutput[] {
    return this.states.map((s) => ({
      sessionId: s.tap.spec.sessionId,
      events: this.events,
      filteredOut: s.filteredOut,
      sampledOut: s.sampledOut,
      lines: s.lines,
      overflow: s.overflow,
    }));
  }
}
