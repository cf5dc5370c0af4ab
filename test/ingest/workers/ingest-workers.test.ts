/**
 * The ingest worker pool: a task processed on a worker thread answers exactly what it answers on the main
 * thread — the same chunk bytes, counts and de-duplication key, or the same error — for a small body (which
 * shares a pooled buffer and is copied to the worker), a large one (moved to the worker) and a gzip one;
 * and so does a burst of tasks that saturates the workers, some of which the main thread then takes.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import type { JobSettings } from '../../../src/domain/jobs/job-settings.ts';
import type { StoredRule } from '../../../src/domain/rulesets/stored-rule.ts';
import { IngestWorkers } from '../../../src/ingest/workers/ingest-workers.ts';
import type { IngestTask, TaskResult } from '../../../src/ingest/ingest-task.ts';

const job: JobSettings & { readonly id: number } = {
  id: 7,
  dataset: 'http_requests',
  kind: '',
  enabled: true,
  name: null,
  destinationConf: 'file:///w',
  filter: JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'lt', value: 500 } }),
  outputOptions: JSON.stringify({ field_names: ['RayID', 'EdgeResponseStatus', 'RequestHeaders'] }),
  logpullOptions: null,
  frequency: null,
  maxUploadBytes: null,
  maxUploadRecords: null,
  maxUploadIntervalSeconds: null,
};

const rules: StoredRule[] = [
  {
    id: 'r1',
    version: 1,
    ref: 'r1',
    action: 'log_custom_field',
    expression: 'true',
    description: '',
    enabled: true,
    action_parameters: { request_fields: [{ name: 'x-test' }] },
    last_updated: new Date(0).toISOString(),
  },
];

function taskOf(body: Buffer, encoding: 'identity' | 'gzip' = 'identity', more: Partial<IngestTask> = {}): IngestTask {
  return {
    ...more,
    dataset: 'http_requests',
    body,
    encoding,
    limitBytes: 64 * 1024 * 1024,
    planKey: 'zone/http_requests/1',
    plan: { rules, jobs: [job], retain: false, settings: { filterLimits: { maxOperators: 30, maxBytes: 1000 }, gzipLevel: 1 } },
  };
}

function lines(count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) {
    text += JSON.stringify({ RayID: `r${i}`, EdgeResponseStatus: i % 2 === 0 ? 200 : 503, RawRequestHeaders: [['X-Test', `v${i}`]] }) + '\n';
  }
  return text;
}

/** Three records: two HTTP requests (one of them with a status the line checks refuse) and a plain message. */
const otlpJson = JSON.stringify({
  resourceLogs: [
    {
      scopeLogs: [
        {
          logRecords: [
            { timeUnixNano: '1790000000000000000', attributes: [{ key: 'url.full', value: { stringValue: 'https://a.example/x' } }, { key: 'RayID', value: { stringValue: 'o1' } }] },
            { timeUnixNano: '1790000000000000000', body: { stringValue: 'hello' } },
            { timeUnixNano: '1790000000000000000', body: { kvlistValue: { values: [{ key: 'RayID', value: { stringValue: 'o3' } }, { key: 'EdgeResponseStatus', value: { stringValue: 'x' } }] } } },
          ],
        },
      ],
    },
  ],
});

/** The result with payloads as plain byte arrays, so results from either thread compare equal. */
function plain(result: TaskResult): unknown {
  if (!result.ok) return result;
  return { ...result, chunks: result.chunks.map((c) => ({ count: c.count, payload: [...Buffer.from(c.payload.buffer, c.payload.byteOffset, c.payload.byteLength)] })) };
}

describe('the ingest worker pool', () => {
  const pool = new IngestWorkers(2);
  const inline = new IngestWorkers(0);
  after(() => pool.close());

  const cases: [string, () => IngestTask, boolean][] = [
    ['a small body (pooled memory, copied)', () => taskOf(Buffer.from(lines(3))), true],
    ['a large body (its own memory, moved)', () => taskOf(Buffer.from(lines(30_000))), true],
    ['a gzip body', () => taskOf(zlib.gzipSync(lines(50)), 'gzip'), true],
    ['a body with a bad line', () => taskOf(Buffer.from(lines(2) + '{"RayID":1}\n')), false],
    ['a body with a bad line, skipped', () => taskOf(Buffer.from(lines(2) + '{"RayID":1}\n'), 'identity', { badLines: 'skip' }), true],
    ['an OTLP JSON request', () => taskOf(Buffer.from(otlpJson), 'identity', { format: { kind: 'otlp', encoding: 'json', splitByHost: false } }), true],
    ['an OTLP JSON request split by host', () => taskOf(Buffer.from(otlpJson), 'identity', { format: { kind: 'otlp', encoding: 'json', splitByHost: true } }), true],
    ['an OTLP request that does not decode', () => taskOf(Buffer.from('{'), 'identity', { format: { kind: 'otlp', encoding: 'json', splitByHost: false } }), false],
  ];
  for (const [name, make, accepted] of cases) {
    it(`answers for ${name} what the main thread answers`, async () => {
      const onWorker = await pool.run(make());
      const onMain = await inline.run(make());
      assert.deepEqual(plain(onWorker), plain(onMain));
      assert.equal(onWorker.ok, accepted);
    });
  }

  it('skips bad lines and reports them when asked to, queueing the others', async () => {
    const result = await pool.run(taskOf(Buffer.from(lines(2) + '{"RayID":1}\n' + lines(1)), 'identity', { badLines: 'skip' }));
    assert.ok(result.ok);
    assert.equal(result.accepted, 3);
    assert.deepEqual(result.skipped?.lines, [3]);
    assert.match(result.skipped?.problems[0]?.message ?? '', /^line 3: /);
  });

  it('maps an OTLP request to events, counting the records it rejects and naming the first', async () => {
    const result = await pool.run(taskOf(Buffer.from(otlpJson), 'identity', { format: { kind: 'otlp', encoding: 'json', splitByHost: false } }));
    assert.ok(result.ok);
    assert.equal(result.accepted, 1);
    assert.equal(result.otlp?.total, 3);
    assert.deepEqual(result.otlp?.rejections.first.map((r) => r.record), [1, 2]);
    assert.equal(result.otlp?.rejections.count, 2);
    const split = await pool.run(taskOf(Buffer.from(otlpJson), 'identity', { format: { kind: 'otlp', encoding: 'json', splitByHost: true } }));
    assert.ok(split.ok);
    assert.equal(split.accepted, 0, 'split only: nothing processed');
    assert.deepEqual(split.otlp?.groups?.map((g) => [g.host, g.records]), [['a.example', [0]], [undefined, [2]]]);
  });

  it('answers every task exactly as the main thread does when its one worker is saturated and the main thread helps', async () => {
    const single = new IngestWorkers(1);
    try {
      const bodies = Array.from({ length: 6 }, (_, i) => lines(200 + i));
      const together = await Promise.all(bodies.map((text) => single.run(taskOf(Buffer.from(text)))));
      const alone = await Promise.all(bodies.map((text) => inline.run(taskOf(Buffer.from(text)))));
      assert.deepEqual(together.map(plain), alone.map(plain));
    } finally {
      await single.close();
    }
  });

  it('fails a task whose body cannot be sent, and goes on answering others on the same worker', async () => {
    const single = new IngestWorkers(1);
    try {
      const task = taskOf(Buffer.from(lines(1000)));
      assert.equal((await single.run(task)).ok, true);
      // The body was moved to the worker with the first run, so it is detached now.
      assert.equal(task.body.byteLength, 0);
      await assert.rejects(single.run(task), /detached/);
      assert.equal(single.pendingOnWorkers(), 0);
      const next = await single.run(taskOf(Buffer.from(lines(2))));
      assert.equal(next.ok && next.accepted, 2);
    } finally {
      await single.close();
    }
  });

  it('spreads tasks sent together over its workers and answers each', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.run(taskOf(Buffer.from(lines(i + 1))))));
    assert.deepEqual(
      results.map((r) => (r.ok ? r.accepted : -1)),
      [1, 2, 3, 4, 5, 6],
    );
  });
});
