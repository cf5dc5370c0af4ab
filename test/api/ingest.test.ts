/**
 * `POST /ingest/zones/{zone_id}/http_requests` through HTTP: what it accepts (NDJSON, gzip), when it
 * answers 200 (only once the events are in the queue), what it refuses and how (400 naming lines with
 * nothing queued, 413, 415, gzip bombs), who may call it, and how it pushes back (429, 503).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { once } from 'node:events';
import { createGzip, gzipSync } from 'node:zlib';
import type { StreamKey } from '../../src/queue/queue.ts';
import {
  createJob,
  event,
  freshDir,
  ndjson,
  postChunked,
  postIngest,
  rayIds,
  stalledUpload,
  startPlane,
  startReceiver,
  waitFor,
  type PlaneHarness,
} from '../e2e/support/data-plane.ts';

const bodyLimit = 256 * 1024;

/**
 * A consumer of the zone's stream that nothing else moves: it answers how many events ingest appended
 * since it was last asked (counted from the chunks, whatever their payload format).
 */
async function probe(h: PlaneHarness, name: string): Promise<() => Promise<number>> {
  const stream: StreamKey = { zoneId: h.zone, dataset: 'http_requests' };
  await h.t.app.queue.resetConsumer(stream, name);
  const consumer = await h.t.app.queue.openConsumer(stream, name);
  return async () => {
    const chunks = await consumer.fetch({ maxChunks: 1000, maxBytes: 64 << 20, maxWaitMs: 0 });
    return chunks.reduce((n, chunk) => n + chunk.count, 0);
  };
}

/** About 200 KB of gzip per 200 MB of zeros it inflates to, built without holding the zeros in memory. */
async function gzipBomb(inflatedBytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on('data', (part: Buffer) => parts.push(part));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let written = 0; written < inflatedBytes; written += zeros.length) gzip.write(zeros);
  gzip.end();
  await once(gzip, 'end');
  return Buffer.concat(parts);
}

function assertRefused(res: { status: number; text: string; body: { success?: boolean; errors?: { code: number; message: string }[] } }, status: number, code: number): string[] {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.success, false, res.text);
  const errors = res.body.errors ?? [];
  assert.ok(errors.length > 0, res.text);
  for (const error of errors) assert.equal(error.code, code, res.text);
  return errors.map((e) => e.message);
}

describe('the ingest endpoint', () => {
  let h: PlaneHarness;
  let queued: () => Promise<number>;

  before(async () => {
    h = await startPlane({ LOGEXPORT_INGEST_BODY_LIMIT: String(bodyLimit) });
    // An enabled job, so that accepted events are queued rather than dropped; its batches stay open for 30 s.
    await createJob(h, { destination_conf: `file:///${freshDir('ingest')}`, output_options: { field_names: ['RayID'] } });
    queued = await probe(h, 'probe');
  });
  after(() => h.stop());

  describe('accepting events', () => {
    it('answers 200 {accepted: N} once the events are in the queue', async () => {
      const ids = rayIds('plain', 0, 3);
      const res = await postIngest(h, ndjson(ids.map((id) => event(id))));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { success: true, errors: [], messages: [], result: { accepted: 3 } });
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      assert.equal(await queued(), 3, 'the answer came after the events were appended');
    });

    it('takes a gzip body (Content-Encoding: gzip)', async () => {
      const ids = rayIds('gzip', 0, 50);
      const res = await postIngest(h, gzipSync(ndjson(ids.map((id) => event(id)))), { headers: { 'content-encoding': 'gzip' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result.accepted, 50);
      assert.equal(await queued(), 50);
    });

    it('takes any content type, or none, and CRLF line ends and blank lines', async () => {
      for (const [i, type] of ['text/plain', 'application/json', 'application/x-www-form-urlencoded', undefined].entries()) {
        const body = `${JSON.stringify(event(`type-${i}`))}\r\n\r\n   \n${JSON.stringify(event(`type-${i}b`))}`;
        const headers: Record<string, string> = type === undefined ? {} : { 'content-type': type };
        const response = await fetch(`${h.t.app.url}/ingest/zones/${h.zone}/http_requests`, {
          method: 'POST',
          headers: { 'x-auth-email': h.owner.email, 'x-auth-key': h.owner.key, ...headers },
          body: Buffer.from(body),
        });
        assert.equal(response.status, 200, `${type}: ${await response.text()}`);
      }
      assert.equal(await queued(), 8);
    });
  });

  describe('refusing a request whole', () => {
    const badLines: readonly { readonly name: string; readonly line: unknown; readonly pattern: RegExp }[] = [
      { name: 'malformed JSON', line: '{"RayID": "x",', pattern: /line 2: the line is not valid JSON/ },
      { name: 'a line that is not an object', line: '["RayID"]', pattern: /line 2: the line must be a JSON object/ },
      { name: 'an unknown field', line: { RayID: 'x', NoSuchField: 1 }, pattern: /line 2: unknown field "NoSuchField"/ },
      { name: 'a field in the wrong case', line: { rayid: 'x' }, pattern: /line 2: .*did you mean "RayID"/ },
      { name: 'a wrong type', line: { RayID: 'x', EdgeResponseStatus: '200' }, pattern: /line 2: "EdgeResponseStatus" must be an integer/ },
      { name: 'RequestHeaders sent by the client', line: { RayID: 'x', RequestHeaders: { host: 'a' } }, pattern: /line 2: "RequestHeaders" cannot be sent/ },
      { name: 'Cookies sent by the client', line: { RayID: 'x', Cookies: {} }, pattern: /line 2: "Cookies" cannot be sent/ },
      { name: 'raw headers that are not pairs', line: { RayID: 'x', RawRequestHeaders: [['Host']] }, pattern: /line 2: "RawRequestHeaders"\[0\] must be a \[name, value\] pair/ },
      { name: 'a bad timestamp', line: { RayID: 'x', EdgeStartTimestamp: 'yesterday' }, pattern: /line 2: "EdgeStartTimestamp" must be integer Unix nanoseconds or an RFC 3339/ },
    ];
    for (const { name, line, pattern } of badLines) {
      it(`refuses ${name} with 400 naming the line, and queues nothing — not even the valid line`, async () => {
        const text = `${JSON.stringify(event('valid-before'))}\n${typeof line === 'string' ? line : JSON.stringify(line)}\n${JSON.stringify(event('valid-after'))}\n`;
        const messages = assertRefused(await postIngest(h, text), 400, 12000);
        assert.ok(messages.some((m) => pattern.test(m)), messages.join(' | '));
        assert.equal(await queued(), 0);
      });
    }

    it('names every bad line with its 1-based number, counting blank lines', async () => {
      const text = ['{"RayID":"a"}', '', 'nope', '{"RayID":"b"}', '{"RayID":5}', '{"Bogus":1}'].join('\n');
      const messages = assertRefused(await postIngest(h, text), 400, 12000);
      assert.deepEqual(
        messages.map((m) => /^line (\d+):/.exec(m)?.[1]),
        ['3', '5', '6'],
      );
      assert.equal(await queued(), 0);
    });

    it('names at most 100 bad lines and says how many more there were', async () => {
      const messages = assertRefused(await postIngest(h, 'x\n'.repeat(150)), 400, 12000);
      assert.equal(messages.length, 101);
      assert.match(messages[100] ?? '', /and 50 more bad lines/);
    });

    it('refuses an empty body, or one of blank lines only, with 400', async () => {
      for (const body of ['', '\n\n  \n']) {
        const messages = assertRefused(await postIngest(h, body), 400, 12000);
        assert.match(messages.join(' '), /holds no events/);
      }
      assert.equal(await queued(), 0);
    });

    it('refuses a body that is not UTF-8 with 400', async () => {
      const body = Buffer.concat([Buffer.from('{"RayID":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]);
      assert.match(assertRefused(await postIngest(h, body), 400, 12000).join(' '), /UTF-8/);
      assert.equal(await queued(), 0);
    });

    it('refuses a body that says gzip but is not, with 400', async () => {
      assert.match(assertRefused(await postIngest(h, ndjson([event('x')]), { headers: { 'content-encoding': 'gzip' } }), 400, 12000).join(' '), /not valid gzip/);
    });

    it('refuses an unknown Content-Encoding with 415', async () => {
      for (const encoding of ['br', 'deflate', 'compress', 'zstd']) {
        const messages = assertRefused(await postIngest(h, ndjson([event('x')]), { headers: { 'content-encoding': encoding } }), 415, 10415);
        assert.match(messages.join(' '), new RegExp(encoding));
      }
      assert.equal(await queued(), 0);
    });

    it('refuses a body over LOGEXPORT_INGEST_BODY_LIMIT with 413', async () => {
      const big = ndjson(rayIds('big', 0, 2000).map((id) => event(id, { ClientRequestPath: `/${'p'.repeat(200)}` })));
      assert.ok(big.length > bodyLimit);
      assertRefused(await postIngest(h, big), 413, 10413);
      assert.equal(await queued(), 0);
    });

    it('refuses gzip that inflates past the limit with 413, without inflating it all', async () => {
      const bomb = await gzipBomb(200 * 1024 * 1024);
      assert.ok(bomb.length < bodyLimit, `${bomb.length} bytes`);
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 2);
      const res = await postIngest(h, bomb, { headers: { 'content-encoding': 'gzip' } });
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      assert.match(assertRefused(res, 413, 10413).join(' '), /decompressed body is over/);
      assert.ok(peak - baseline < 64 * 1024 * 1024, `memory grew by ${Math.round((peak - baseline) / 1048576)} MiB`);
      assert.equal(await queued(), 0);
    });
  });

  describe('credentials', () => {
    it("accepts the owner's global key and a token with logs:ingest for the zone", async () => {
      const token = await h.t.token(h.owner, [h.zone], ['logs:ingest']);
      assert.equal((await postIngest(h, ndjson([event('by-key')]))).status, 200);
      const res = await postIngest(h, ndjson([event('by-token')]), { auth: { token } });
      assert.equal(res.status, 200, res.text);
      assert.equal(await queued(), 2);
    });

    it('refuses a token without logs:ingest, or for another zone, with 403/10000', async () => {
      const editOnly = await h.t.token(h.owner, [h.zone], ['logs:edit', 'logs:read']);
      const otherZone = await h.t.zone(h.owner);
      const elsewhere = await h.t.token(h.owner, [otherZone], ['logs:ingest']);
      assertRefused(await postIngest(h, ndjson([event('x')]), { auth: { token: editOnly } }), 403, 10000);
      assertRefused(await postIngest(h, ndjson([event('x')]), { auth: { token: elsewhere } }), 403, 10000);
      assert.equal(await queued(), 0);
    });

    it("refuses another user's key for the zone with 403/10000, and a zone that does not exist the same way", async () => {
      const stranger = await h.t.user();
      assertRefused(await postIngest(h, ndjson([event('x')]), { auth: stranger }), 403, 10000);
      assertRefused(await postIngest(h, ndjson([event('x')]), { zone: 'f'.repeat(32) }), 403, 10000);
    });

    it('refuses a request without credentials with 400/9106, and a wrong key with 403/9103', async () => {
      assertRefused(await postIngest(h, ndjson([event('x')]), { auth: null }), 400, 9106);
      assertRefused(await postIngest(h, ndjson([event('x')]), { auth: { email: h.owner.email, key: 'f'.repeat(37) } }), 403, 9103);
      assert.equal(await queued(), 0);
    });

    it('checks credentials before the body: a bad body without credentials is a 400/9106', async () => {
      assertRefused(await postIngest(h, 'not json', { auth: null }), 400, 9106);
    });

    it('answers 404 for a dataset it does not ingest', async () => {
      const res = await fetch(`${h.t.app.url}/ingest/zones/${h.zone}/firewall_events`, {
        method: 'POST',
        headers: { 'x-auth-email': h.owner.email, 'x-auth-key': h.owner.key },
        body: ndjson([event('x')]),
      });
      assert.equal(res.status, 404);
    });
  });
});

describe('the ingest endpoint without an enabled job', () => {
  let h: PlaneHarness;
  before(async () => {
    h = await startPlane();
  });
  after(() => h.stop());

  it('acknowledges the events with 200 and a notice that they were dropped, queues nothing, and counts them (no_job) in /metrics', async () => {
    const res = await postIngest(h, ndjson(rayIds('nojob', 0, 7).map((id) => event(id))));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.result, { accepted: 7 });
    assert.equal(res.body.messages.length, 1);
    assert.equal(res.body.messages[0].code, 12100);
    assert.match(res.body.messages[0].message, /^no enabled job exports this zone's events: 7 events were checked and dropped \(new jobs start disabled: enable one with PUT …\/logexport\/jobs\/\{job_id\} \{"enabled": true\}, or in the dashboard\)$/);
    assert.equal(h.t.app.queue.pendingBytes(), 0);
    const metrics = await (await fetch(`${h.t.app.url}/metrics`)).text();
    assert.match(metrics, new RegExp(`^logexport_ingest_dropped_events_total\\{zone_id="${h.zone}",reason="no_job"\\} 7$`, 'm'));
    assert.match(metrics, new RegExp(`^logexport_ingest_requests_total\\{zone_id="${h.zone}"\\} 1$`, 'm'));
    assert.match(metrics, new RegExp(`^logexport_ingest_accepted_events_total\\{zone_id="${h.zone}"\\} 0$`, 'm'));
    assert.match(metrics, new RegExp(`^logexport_ingest_received_events_total\\{zone_id="${h.zone}",way_in="http",outcome="dropped"\\} 7$`, 'm'));
    assert.equal((await postIngest(h, ndjson([event('nojob-one')]))).body.messages[0].message.split(' (')[0], "no enabled job exports this zone's events: 1 event was checked and dropped");
  });

  it('starts queuing as soon as a job is enabled, and drops again once it is disabled', async () => {
    const job = await createJob(h, { destination_conf: `file:///${freshDir('nojob')}`, output_options: { field_names: ['RayID'] } });
    const res = await postIngest(h, ndjson([event('with-job')]));
    assert.equal(res.status, 200);
    assert.equal(res.text, '{"success":true,"errors":[],"messages":[],"result":{"accepted":1}}', 'no notice once a job exports them');
    assert.ok(h.t.app.queue.pendingBytes() > 0, 'queued for the job');
    await h.t.call('PUT', `/zones/${h.zone}/logexport/jobs/${job.id}`, { body: { enabled: false } });
    await postIngest(h, ndjson([event('after-disable')]));
    const metrics = await (await fetch(`${h.t.app.url}/metrics`)).text();
    assert.match(metrics, new RegExp(`reason="no_job"\\} 9$`, 'm'));
    assert.match(metrics, new RegExp(`^logexport_ingest_accepted_events_total\\{zone_id="${h.zone}"\\} 1$`, 'm'));
  });
});

describe('ingest back-pressure', () => {
  it('answers 429 with Retry-After while undelivered bytes are over LOGEXPORT_QUEUE_MAX_PENDING_BYTES', async () => {
    const h = await startPlane({ LOGEXPORT_QUEUE_MAX_PENDING_BYTES: '1MiB' });
    try {
      // The job's batch stays open (30 s), so nothing is committed and every queued byte is pending.
      await createJob(h, { destination_conf: `file:///${freshDir('pressure')}`, output_options: { field_names: ['RayID', 'ClientRequestPath'] } });
      // The queue holds records compressed, so each path is random text that compresses little (~0.75 MB a request).
      const fat = (from: number) =>
        ndjson(rayIds('fat', from, from + 1000).map((id) => event(id, { ClientRequestPath: `/${crypto.randomBytes(750).toString('base64')}` })));
      assert.equal((await postIngest(h, fat(0))).status, 200);
      assert.ok(h.t.app.queue.pendingBytes() < 1024 * 1024);
      assert.equal((await postIngest(h, fat(1000))).status, 200, 'the limit is checked before a request, so the one crossing it is taken');
      assert.ok(h.t.app.queue.pendingBytes() > 1024 * 1024);
      const res = await postIngest(h, fat(2000));
      assertRefused(res, 429, 12429);
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
    } finally {
      await h.stop();
    }
  });

  it('answers 429 while the bodies being received are over LOGEXPORT_INGEST_MAX_BUFFERED, and frees what an aborted upload held', async () => {
    const h = await startPlane({ LOGEXPORT_INGEST_MAX_BUFFERED: '1MiB' });
    try {
      await createJob(h, { destination_conf: `file:///${freshDir('buffered')}`, output_options: { field_names: ['RayID'] } });
      // An upload that announces 900 KB and stalls holds that much of the budget…
      const stalled = await stalledUpload(h, 900_000);
      const res = await postIngest(h, ndjson(rayIds('busy', 0, 1000).map((id) => event(id, { ClientRequestPath: `/${'p'.repeat(200)}` }))));
      assertRefused(res, 429, 12429);
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
      // …until the client gives up on it.
      stalled.destroy();
      // A body the stalled upload's share would not leave room for (about 250 KB).
      const after = ndjson(rayIds('after-abort', 0, 1000).map((id) => event(id, { ClientRequestPath: `/${'p'.repeat(200)}` })));
      await waitFor('the budget to be free', async () => ((await postIngest(h, after)).status === 200 ? true : undefined), 3000);
    } finally {
      await h.stop();
    }
  });

  it('counts a body sent without Content-Length by the bytes that arrive: 200 chunked requests at once are all taken', async () => {
    const h = await startPlane();
    try {
      await createJob(h, { destination_conf: `file:///${freshDir('chunked-burst')}`, output_options: { field_names: ['RayID'] } });
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) => postChunked(h, `/ingest/zones/${h.zone}/http_requests`, Buffer.from(ndjson([event(`burst-${i}`)])), { 'content-type': 'application/x-ndjson' })),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        answers.map(() => 200),
        answers.find((a) => a.status !== 200)?.text,
      );
      const metrics = await (await fetch(`${h.t.app.url}/metrics`)).text();
      assert.match(metrics, new RegExp(`^logexport_ingest_accepted_events_total\\{zone_id="${h.zone}"\\} 200$`, 'm'));
    } finally {
      await h.stop();
    }
  });

  it('refuses a chunked body with 429 once its bytes take what the bodies hold over the budget, and takes one alone however large', async () => {
    const h = await startPlane({ LOGEXPORT_INGEST_MAX_BUFFERED: '1MiB' });
    try {
      await createJob(h, { destination_conf: `file:///${freshDir('chunked-budget')}`, output_options: { field_names: ['RayID'] } });
      const big = (prefix: string) => Buffer.from(ndjson(rayIds(prefix, 0, 6000).map((id) => event(id, { ClientRequestPath: `/${'p'.repeat(200)}` }))));
      assert.ok(big('x').length > 1024 * 1024);
      const alone = await postChunked(h, `/ingest/zones/${h.zone}/http_requests`, big('alone'), { 'content-type': 'application/x-ndjson' });
      assert.equal(alone.status, 200, alone.text);
      const stalled = await stalledUpload(h, 900_000);
      const refused = await postChunked(h, `/ingest/zones/${h.zone}/http_requests`, big('beside'), { 'content-type': 'application/x-ndjson' });
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal((JSON.parse(refused.text) as { errors: { code: number }[] }).errors[0]?.code, 12429);
      stalled.destroy();
    } finally {
      await h.stop();
    }
  });

  it('answers 503 with Retry-After once the node is stopping, while runners still deliver', async () => {
    const h = await startPlane();
    const receiver = await startReceiver();
    try {
      await createJob(h, { destination_conf: receiver.url, output_options: { field_names: ['RayID'] } });
      // The destination holds its answer until the test has its 503, so the drain is still going then.
      let release = () => {};
      receiver.fallback = { kind: 'status', status: 200, until: new Promise<void>((resolve) => (release = resolve)) };
      await postIngest(h, ndjson([event('before-stop')]));
      const stopping = h.t.app.stop();
      const res = await postIngest(h, ndjson([event('during-stop')]));
      release();
      assertRefused(res, 503, 12503);
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
      await stopping;
      assert.deepEqual(receiver.deliveredRayIds(), ['before-stop'], 'what was queued before the stop was delivered');
    } finally {
      await receiver.close();
      await h.stop();
    }
  });
});
