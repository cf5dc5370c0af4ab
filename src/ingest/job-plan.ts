/**
 * A job compiled into the plan its runner executes: predicate, sampler, formatter, batch limits and
 * destination. Compiled once when the job changes; the API compiles it too, to refuse a job that could
 * not run. Pure.
 */
import type { ErrorDetail } from '../core/app-error.ts';
import { err, ok, type Result } from '../core/result.ts';
import { findDataset, type Dataset } from '../domain/datasets/http-requests.ts';
import { compileFilter, type FilterPredicate } from '../domain/filters/compile-filter.ts';
import { parseFilter, type FilterLimits, type FilterProblem } from '../domain/filters/parse-filter.ts';
import { parseDestinationConf } from '../domain/jobs/destination-conf.ts';
import type { DestinationSpec } from '../domain/jobs/destination-spec.ts';
import { hasFieldNames, parseLogpullOptions, parseOutputOptions, resolveOutputPlan, type OutputPlan } from '../domain/jobs/output-options.ts';
import type { JobSettings } from '../domain/jobs/job-settings.ts';
import { compileFormatter, type RecordFormatter } from './stages/format.ts';
import { compileSampler, type Sampler } from './stages/sample.ts';

/** Batch limits applied at run time when a job leaves them unset (or 0). */
export const defaultBatchLimits = { maxBytes: 5_000_000, maxRecords: 100_000, maxIntervalMs: 30_000 } as const;

/** When a batch closes: the first limit reached. */
export interface BatchLimits {
  readonly maxBytes: number;
  readonly maxRecords: number;
  readonly maxIntervalMs: number;
}

/** Everything a runner needs to run one job. */
export interface JobPlan {
  readonly dataset: Dataset;
  readonly predicate: FilterPredicate;
  readonly sampler: Sampler;
  readonly output: OutputPlan;
  readonly formatter: RecordFormatter;
  readonly contentType: 'application/x-ndjson' | 'text/csv';
  readonly destination: DestinationSpec;
  readonly batch: BatchLimits;
}

/**
 * A filter problem as a job problem: the error's pointer is `/filter` (the string in the body), so the
 * message carries the pointer inside the filter document — `filter /where/and/1: …`, or `filter: …` when
 * the whole document is at fault (the problem's message already starts that way).
 */
export function filterMessage(problem: FilterProblem): string {
  return problem.pointer === '' ? problem.message : `filter ${problem.message}`;
}

/** Compiles a job's settings; every problem points into the job body. */
export function compileJobPlan(job: JobSettings, filterLimits: FilterLimits): Result<JobPlan, ErrorDetail[]> {
  const problems: ErrorDetail[] = [];
  const dataset = findDataset(job.dataset);
  if (dataset === undefined) return err([{ message: `dataset ${job.dataset} is not served`, pointer: '/dataset' }]);

  const filter = parseFilter(job.filter, dataset, filterLimits);
  if (!filter.ok) problems.push({ message: filterMessage(filter.error), pointer: '/filter' });

  let outputOptions: unknown = null;
  if (job.outputOptions !== null) {
    try {
      outputOptions = JSON.parse(job.outputOptions) as unknown;
    } catch {
      problems.push({ message: 'output_options is not valid JSON', pointer: '/output_options' });
    }
  }
  const output = parseOutputOptions(outputOptions, dataset);
  if (!output.ok) problems.push(...output.error);
  const logpull = parseLogpullOptions(job.logpullOptions, dataset);
  if (!logpull.ok) problems.push(...logpull.error);

  const destination = parseDestinationConf(job.destinationConf);
  if (!destination.ok) problems.push(...destination.error);

  if (!filter.ok || !output.ok || !logpull.ok || !destination.ok) return err(problems);

  const plan = resolveOutputPlan(output.value, logpull.value);
  if (!hasFieldNames(plan)) {
    return err([
      {
        message: 'the job names no fields: set output_options.field_names (or fields= in logpull_options)',
        pointer: output.value === null ? '/output_options' : '/output_options/field_names',
      },
    ]);
  }
  return ok({
    dataset,
    predicate: compileFilter(filter.value),
    sampler: compileSampler(plan.sampleRate),
    output: plan,
    formatter: compileFormatter(plan, dataset),
    contentType: plan.outputType === 'csv' ? 'text/csv' : 'application/x-ndjson',
    destination: destination.value,
    batch: {
      maxBytes: job.maxUploadBytes || defaultBatchLimits.maxBytes,
      maxRecords: job.maxUploadRecords || defaultBatchLimits.maxRecords,
      maxIntervalMs: (job.maxUploadIntervalSeconds || 0) * 1000 || defaultBatchLimits.maxIntervalMs,
    },
  });
}
