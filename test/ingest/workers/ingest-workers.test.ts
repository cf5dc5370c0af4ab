/**
 * The ingest worker pool: a task processed on a worker thread answers exactly what it answers on the main
 * thread — the same chunk bytes, counts and de-duplication key, or the same error — for a small body (which
 * shares a pooled buffer and is copied to the worker), a large one (moved to the worker) and a gzip one;
 * and so does a burst of tasks that saturates the workers, some of which the main thread then takes. A
 * source's task runs the decoder the node's entry registered in the worker (an OTLP request here), and one
 * that needs a zone's plan it lacks hands its bytes back to be run again.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import type { JobSettings } from '../../../src/domain/jobs/job-settings.ts';
import type { StoredRule } from '../../../src/domain/rulesets/stored-rule.ts';
import { IngestWorkers } from '../../../src/ingest/workers/ingest-workers.ts';
import type { IngestTask, PlanSource, TaskResult } from '../../../src/ingest/ingest-task.ts';
import type { SourceTask, SourceTaskResult } from '../../../src/ingest/source-task.ts';
import { otlpDecoderName, type OtlpAccount } from '../../../src/sources/otlp/otlp-decoder.ts';
import { ingestWorkerSetup } from '../../../src/worker-setup.ts';

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

const plan: PlanSource = { rules, jobs: [job], retain: false, settings: { filterLimits: { maxOperators: 30, maxBytes: 1000 }, gzipLevel: 1 } };

function taskOf(body: Buffer, encoding: 'identity' | 'gzip' = 'identity', more: Partial<IngestTask> = {}): IngestTask {
  return { ...more, dataset: 'http_requests', body, encoding, limitBytes: 64 * 1024 * 1024, planKey: 'zone/http_requests/1', plan };
}

/** An OTLP request routed by host among two zones, with the plans of `planned`. */
function otlpTaskOf(body: Buffer, planned: readonly string[]): SourceTask {
  const zones: [string, string][] = [['a.example', 'zone-a'], ['b.example', 'zone-b']];
  return {
    decoder: otlpDecoderName,
    options: { encoding: 'json', route: { kind: 'byHost', zones } },
    dataset: 'http_requests',
    bytes: body,
    encoding: 'identity',
    limitBytes: 1 << 20,
    dedupe: true,
    plans: Object.fromEntries(planned.map((zoneId) => [zoneId, { planKey: `${zoneId}/1`, plan }])),
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

const bytesOf = (c: { readonly payload: Uint8Array; readonly count: number }) => ({ count: c.count, payload: [...Buffer.from(c.payload.buffer, c.payload.byteOffset, c.payload.byteLength)] });

/** The result with payloads as plain byte arrays, so results from either thread compare equal. */
function plain(result: TaskResult): unknown {
  if (!result.ok) return result;
  return { ...result, chunks: result.chunks.map(bytesOf) };
}

function plainSource(result: SourceTaskResult): unknown {
  // The bytes a worker hands back are the task's own (the main thread keeps its own).
  if (result.kind === 'needPlans') return { kind: result.kind, zoneIds: result.zoneIds };
  if (result.kind !== 'done') return result;
  return { ...result, zones: result.zones.map((zone) => ({ ...zone, chunks: zone.chunks.map(bytesOf) })) };
}

describe('the ingest worker pool', () => {
  const pool = new IngestWorkers(2, ingestWorkerSetup());
  const inline = new IngestWorkers(0, ingestWorkerSetup());
  after(() => pool.close());

  const cases: [string, () => IngestTask, boolean][] = [
    ['a small body (pooled memory, copied)', () => taskOf(Buffer.from(lines(3))), true],
    ['a large body (its own memory, moved)', () => taskOf(Buffer.from(lines(30_000))), true],
    ['a gzip body', () => taskOf(zlib.gzipSync(lines(50)), 'gzip'), true],
    ['a body with a bad line', () => taskOf(Buffer.from(lines(2) + '{"RayID":1}\n')), false],
  ];
  for (const [name, make, accepted] of cases) {
    it(`answers for ${name} what the main thread answers`, async () => {
      const onWorker = await pool.run(make());
      const onMain = await inline.run(make());
      assert.deepEqual(plain(onWorker), plain(onMain));
      assert.equal(onWorker.ok, accepted);
    });
  }

  const sourceCases: [string, () => SourceTask][] = [
    ['an OTLP JSON request routed by host', () => otlpTaskOf(Buffer.from(otlpJson), ['zone-a', 'zone-b'])],
    ['an OTLP JSON request for a zone it has no plan for', () => otlpTaskOf(Buffer.from(otlpJson), ['zone-b'])],
    ['an OTLP request that does not decode', () => otlpTaskOf(Buffer.from('{'), [])],
  ];
  for (const [name, make] of sourceCases) {
    it(`answers for ${name} what the main thread answers`, async () => {
      assert.deepEqual(plainSource(await pool.runSource(make())), plainSource(await inline.runSource(make())));
    });
  }

  it('decodes an OTLP request with the decoder the sources registered, routing records by host and rejecting the rest', async () => {
    const result = await pool.runSource(otlpTaskOf(Buffer.from(otlpJson), ['zone-a']));
    assert.equal(result.kind, 'done');
    if (result.kind !== 'done') return;
    assert.deepEqual(result.zones.map((z) => [z.zoneId, z.events]), [['zone-a', 1]]);
    const account = result.account as OtlpAccount;
    assert.equal(account.total, 3);
    assert.deepEqual(account.rejections.first.map((r) => r.record), [1, 2]);
    assert.equal(account.unknownHosts, 1, 'the native event names no host (the message is no HTTP request log)');
    assert.match(result.dedupeKey ?? '', /^[0-9a-f]{64}$/);
  });

  it('hands the bytes of a task that needs a plan back from the worker they were moved to, to be run again', async () => {
    const body = Buffer.from(otlpJson);
    const own = Buffer.alloc(body.length);
    body.copy(own);
    const task = otlpTaskOf(own, []);
    const first = await pool.runSource(task);
    assert.equal(first.kind, 'needPlans');
    if (first.kind !== 'needPlans') return;
    assert.deepEqual(first.zoneIds, ['zone-a']);
    assert.equal(own.byteLength, 0, 'moved to the worker');
    assert.deepEqual(Buffer.from(first.bytes ?? []).toString(), otlpJson);
    const again = await pool.runSource({ ...task, bytes: first.bytes ?? own, plans: { 'zone-a': { planKey: 'zone-a/1', plan } } });
    assert.equal(again.kind === 'done' && again.zones[0]?.events, 1);
  });

  it('answers every task exactly as the main thread does when its one worker is saturated and the main thread helps', async () => {
    const single = new IngestWorkers(1, ingestWorkerSetup());
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
    const single = new IngestWorkers(1, ingestWorkerSetup());
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
