/**
 * Writes retained records as Logpull answers them: NDJSON, one record per line, with the asked-for fields
 * in the asked-for timestamp format — the job formatter (ingest/stages/format.ts) compiled from an output
 * plan, so Logpull and export jobs write values alike. `sample` keeps records by the same RayID hash jobs
 * use (deterministic); `count` caps the records written after sampling.
 */
import { utf8Bytes } from '../core/utf8-bytes.ts';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import type { EventRecord } from '../domain/datasets/event-record.ts';
import { resolveOutputPlan } from '../domain/jobs/output-options.ts';
import { compileFormatter } from '../ingest/stages/format.ts';
import { compileSampler } from '../ingest/stages/sample.ts';
import type { LogpullOutput } from './logpull-query.ts';

/** Bytes handed to the response at a time, at least (fewer, larger writes); the fast path's too. */
export const logpullPieceBytes = 256 * 1024;

/** The NDJSON bytes of the records, in pieces, honouring `sample` and `count`. */
export async function* logpullText(records: AsyncIterable<readonly EventRecord[]>, output: LogpullOutput, dataset: Dataset): AsyncGenerator<Buffer> {
  const plan = resolveOutputPlan({ fieldNames: output.fields.map((f) => f.name), timestampFormat: output.timestamps, redactCve202144228: output.redact }, null);
  const formatter = compileFormatter(plan, dataset);
  const sampler = compileSampler(output.sample);
  let left = output.count ?? Number.POSITIVE_INFINITY;
  let text = '';
  for await (const batch of records) {
    for (const record of batch) {
      if (!sampler(record)) continue;
      text += formatter.format(record);
      if (--left <= 0) break;
    }
    if (text.length >= logpullPieceBytes || left <= 0) {
      yield utf8Bytes(text);
      text = '';
    }
    if (left <= 0) return;
  }
  if (text !== '') yield utf8Bytes(text);
}
