/**
 * What a Log Explorer dataset keeps of each event when it alone decides retention: the events its filter
 * passes, each with only its fields; a refused event has no line in the retained section (its status says
 * so), and the retention writer takes only the kept lines, whole chunk or part of one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequests } from '../../src/domain/datasets/http-requests.ts';
import { defaultFilterLimits } from '../../src/domain/filters/parse-filter.ts';
import { chunkSection, eventStatus, retainedSectionId } from '../../src/ingest/chunk-format.ts';
import { compileIngestPlan } from '../../src/ingest/ingest-task.ts';
import { compileIngestParser } from '../../src/domain/datasets/ingest-event.ts';
import { processIngestText } from '../../src/ingest/ingest-processor.ts';
import { unzstd } from '../../src/ingest/zstd-frame.ts';
import { retainedFrame } from '../../src/retention/retention-writer.ts';
import { retentionBody } from '../support/retention-events.ts';

const settings = { filterLimits: defaultFilterLimits, gzipLevel: 1 };
const parse = compileIngestParser(httpRequests);

function chunkOf(retainSelection: { fields: readonly string[] | null; filter: string | null } | undefined) {
  const plan = compileIngestPlan({ rules: [], jobs: [], retain: true, ...(retainSelection === undefined ? {} : { retainSelection }), settings }, 'http_requests');
  const text = retentionBody(0, 10);
  const outcome = processIngestText(text, parse, plan, { bytes: Buffer.from(text), ascii: true }, 1_790_000_000_000);
  assert.ok(outcome.ok);
  assert.equal(outcome.chunks.length, 1);
  const chunk = outcome.chunks[0];
  assert.ok(chunk !== undefined);
  return { seq: 1, appendedAtMs: 1_790_000_000_000, count: chunk.count, firstRecord: 0, payload: chunk.payload };
}

async function retainedLines(chunk: ReturnType<typeof chunkOf>, from = 0, to = chunk.count): Promise<Record<string, unknown>[]> {
  const frame = await retainedFrame(chunk, from, to);
  if (frame === undefined) return [];
  const lines = (await unzstd(frame.frame)).toString('utf8').split('\n').filter((l) => l !== '');
  assert.equal(frame.events, lines.length);
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('retention by a Log Explorer dataset', () => {
  it('keeps every event whole without a selection (the flag)', async () => {
    const lines = await retainedLines(chunkOf(undefined));
    assert.equal(lines.length, 10);
    assert.ok('ClientIP' in (lines[0] ?? {}));
  });

  it("keeps only the events the dataset's filter passes, with only its fields", async () => {
    const chunk = chunkOf({ fields: ['RayID', 'EdgeResponseStatus'], filter: '{"where":{"key":"EdgeResponseStatus","operator":"eq","value":500}}' });
    const section = chunkSection(chunk.payload, retainedSectionId);
    assert.ok(section !== undefined);
    assert.deepEqual(
      Array.from({ length: 10 }, (_, e) => section.status(e)),
      Array.from({ length: 10 }, (_, e) => (e % 5 === 0 ? eventStatus.kept : eventStatus.filteredOut)),
    );
    const lines = await retainedLines(chunk);
    assert.deepEqual(
      lines.map(({ _received_ms, ...rest }) => rest),
      [
        { RayID: 'a0000000', EdgeResponseStatus: 500 },
        { RayID: 'a0000005', EdgeResponseStatus: 500 },
      ],
    );
    assert.deepEqual(
      (await retainedLines(chunk, 3, 10)).map((l) => l.RayID),
      ['a0000005'],
    );
    assert.equal(await retainedFrame(chunk, 1, 5), undefined);
  });

  it('keeps every field of the events a filter passes when the dataset keeps all fields', async () => {
    const lines = await retainedLines(chunkOf({ fields: null, filter: '{"where":{"key":"ClientRequestMethod","operator":"eq","value":"POST"}}' }));
    assert.deepEqual(
      lines.map((l) => l.RayID),
      ['a0000000', 'a0000003', 'a0000006', 'a0000009'],
    );
    assert.equal(lines[0]?.ClientIP, '192.0.2.0');
  });
});
