/**
 * OTLP/HTTP logs in, end to end with the official OpenTelemetry JS exporters (protobuf and JSON) against a
 * real node: records are routed by host to the zones the credentials may ingest for, custom fields are
 * captured from the header attributes, job filters apply, and the delivered objects hold the events;
 * partial success names what was rejected; a body that does not decode is a 400 with a Status; credentials
 * are 401/403; back-pressure is a 429 with Retry-After that the exporter retries. Random bodies never
 * store anything.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import { OTLPLogExporter as JsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import generatedRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { createJob, freshDir, postChunked, readRecords, stalledUpload, startPlane, waitFor, type PlaneHarness } from '../../e2e/support/data-plane.ts';

// The exporters report partial success and retries through the OpenTelemetry diagnostic logger.
const diagnostics: string[] = [];
/** Called with each diagnostic as it is logged (a test drives a condition off the exporter's own word). */
let onDiagnostic: (message: string) => void = () => undefined;
const note = (...args: unknown[]) => {
  const message = args.map(String).join(' ');
  diagnostics.push(message);
  onDiagnostic(message);
};
diag.setLogger({ error: note, warn: note, info: note, debug: () => undefined, verbose: note }, DiagLogLevel.VERBOSE);

interface ResponseType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: unknown): unknown;
}
const responseType = (generatedRoot as unknown as { opentelemetry: { proto: { collector: { logs: { v1: Record<string, ResponseType> } } } } }).opentelemetry.proto.collector.logs.v1
  .ExportLogsServiceResponse as ResponseType;

/** Emits records with the SDK, then exports them in one request with `exporter`; resolves the export result. */
async function exportWith(exporter: LogRecordExporter, emit: (logger: OtelLogger) => void): Promise<{ code: number; error?: Error }> {
  const memory = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: memory })] });
  emit(provider.getLogger('access-log'));
  await provider.forceFlush();
  const records = memory.getFinishedLogRecords();
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(records, resolve));
  await provider.shutdown();
  return result;
}

/** An access log record as a proxy's OpenTelemetry access logger writes it. */
function access(logger: OtelLogger, host: string, path: string, status: number, extra: Record<string, string | number | string[]> = {}): void {
  logger.emit({
    body: `GET ${path}`,
    timestamp: new Date('2026-05-02T10:00:00Z'),
    attributes: {
      'http.request.method': 'GET',
      'url.scheme': 'https',
      'url.path': path,
      'server.address': host,
      'client.address': '198.51.100.7',
      'http.response.status_code': status,
      ...extra,
    },
  });
}

const success = 0;
const failed = 1;

describe('OTLP/HTTP logs from the official exporters', () => {
  let h: PlaneHarness;
  let shop: PlaneHarness;
  let blog: PlaneHarness;
  let auth: Record<string, string>;
  const shopDir = freshDir('otlp-shop');
  const blogDir = freshDir('otlp-blog');

  before(async () => {
    h = await startPlane();
    const { t, owner } = h;
    auth = { 'x-auth-email': owner.email, 'x-auth-key': owner.key };
    shop = { ...h, zone: await t.zone(owner, 'shop.otlp.example') };
    blog = { ...h, zone: await t.zone(owner, 'blog.otlp.example') };
    // A zone of another user: these credentials may not write to it.
    const stranger = await t.user();
    await t.zone(stranger, 'other.otlp.example');
    await t.app.zoneDirectory.refresh();
    await t.call('PUT', `/zones/${shop.zone}/rulesets/phases/http_log_custom_fields/entrypoint`, {
      body: { rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'x-tenant' }], response_fields: [{ name: 'server' }] } }] },
    });
    await createJob(shop, {
      destination_conf: `file:///${shopDir}`,
      filter: JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 400 } }),
      output_options: { field_names: ['ClientRequestHost', 'ClientRequestPath', 'EdgeResponseStatus', 'ClientIP', 'RequestHeaders', 'ResponseHeaders'] },
    });
    await createJob(blog, { destination_conf: `file:///${blogDir}`, output_options: { field_names: ['ClientRequestHost', 'ClientRequestPath', 'EdgeResponseStatus', 'EdgeStartTimestamp'] } });
  });

  after(async () => {
    await h.stop();
  });

  it('routes protobuf records by host, captures custom fields, applies filters, and rejects the rest as partial success', async () => {
    diagnostics.length = 0;
    const exporter = new ProtoExporter({ url: `${h.t.app.url}/ingest/otlp/v1/logs`, headers: auth });
    const result = await exportWith(exporter, (logger) => {
      access(logger, 'www.shop.otlp.example', '/cart', 404, { 'http.request.header.x-tenant': ['acme', 'second'], 'http.response.header.server': ['envoy'] });
      access(logger, 'shop.otlp.example', '/ok', 200);
      access(logger, 'blog.otlp.example:8443', '/post/1', 200);
      access(logger, 'www.other.otlp.example', '/theirs', 500);
      access(logger, 'nowhere.example', '/lost', 500);
      logger.emit({ body: 'cache warmed', attributes: { 'cache.entries': 42 } });
    });
    assert.equal(result.code, success, String(result.error));
    const partial = diagnostics.find((d) => d.includes('Partial Success'));
    assert.ok(partial, diagnostics.join('\n'));
    assert.match(partial, /"rejectedLogRecords":3/);
    assert.match(partial, /log record 4: no zone serves the host \\"www.other.otlp.example\\"/, "another user's zone is answered like none");
    assert.match(partial, /log record 5: no zone serves the host \\"nowhere.example\\"/);
    assert.match(partial, /log record 6: not an HTTP request log/);
    const metrics = await (await fetch(`${h.t.app.url}/metrics`)).text();
    assert.match(metrics, /^logexport_ingest_dropped_events_total\{zone_id="",reason="unknown_host"\} 1$/m);
  });

  it('takes JSON, gzip-compressed, from the JSON exporter on the zone endpoint with a token', async () => {
    const token = await h.t.token(h.owner, [blog.zone], ['logs:ingest']);
    const exporter = new JsonExporter({ url: `${h.t.app.url}/ingest/zones/${blog.zone}/otlp/v1/logs`, headers: { authorization: `Bearer ${token}` }, compression: 'gzip' as never });
    const result = await exportWith(exporter, (logger) => {
      // Sent to the zone of the path, whatever host it names.
      access(logger, 'elsewhere.example', '/json/1', 201);
      access(logger, 'blog.otlp.example', '/json/2', 302);
    });
    assert.equal(result.code, success, String(result.error));
  });

  it('delivers what was accepted as .log.gz objects', async () => {
    await h.t.app.stop();
    const shopRecords = readRecords(h.t.config.exportRoot, shopDir);
    assert.deepEqual(shopRecords, [
      {
        ClientRequestHost: 'www.shop.otlp.example',
        ClientRequestPath: '/cart',
        EdgeResponseStatus: 404,
        ClientIP: '198.51.100.7',
        RequestHeaders: { 'x-tenant': 'acme' },
        ResponseHeaders: { server: 'envoy' },
      },
    ]);
    const blogRecords = readRecords(h.t.config.exportRoot, blogDir).map((r) => [r.ClientRequestHost, r.ClientRequestPath, r.EdgeResponseStatus]);
    assert.deepEqual(blogRecords.sort(), [
      ['blog.otlp.example', '/json/2', 302],
      ['blog.otlp.example:8443', '/post/1', 200],
      ['elsewhere.example', '/json/1', 201],
    ]);
    for (const r of readRecords(h.t.config.exportRoot, blogDir)) assert.equal(r.EdgeStartTimestamp, 1777716000000000000);
  });
});

describe('OTLP/HTTP answers', () => {
  let h: PlaneHarness;
  let auth: Record<string, string>;
  const dir = freshDir('otlp-answers');

  before(async () => {
    h = await startPlane();
    auth = { 'x-auth-email': h.owner.email, 'x-auth-key': h.owner.key };
    await createJob(h, { destination_conf: `file:///${dir}`, output_options: { field_names: ['RayID'] } });
  });

  after(async () => {
    await h.stop();
  });

  const post = (body: Uint8Array | string, headers: Record<string, string>, path = `/ingest/zones/${h.zone}/otlp/v1/logs`) =>
    fetch(`${h.t.app.url}${path}`, { method: 'POST', headers, body });

  const accepted = async () => {
    const metrics = await (await fetch(`${h.t.app.url}/metrics`)).text();
    return Number(new RegExp(`^logexport_ingest_accepted_events_total\\{zone_id="${h.zone}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
  };

  it('answers partial success in JSON naming the record and why', async () => {
    const body = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'server.address', value: { stringValue: 'www.example.com' } }] },
          scopeLogs: [
            {
              logRecords: [
                { timeUnixNano: '1790000000000000000', attributes: [{ key: 'url.path', value: { stringValue: '/a' } }, { key: 'RayID', value: { stringValue: 'json-1' } }] },
                { timeUnixNano: '1790000000000000000', body: { stringValue: 'just a message' } },
                { timeUnixNano: '1790000000000000000', body: { kvlistValue: { values: [{ key: 'RayID', value: { intValue: '5' } }] } } },
              ],
            },
          ],
        },
      ],
    };
    const res = await post(JSON.stringify(body), { ...auth, 'content-type': 'application/json' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const answer = (await res.json()) as { partialSuccess: { rejectedLogRecords: string; errorMessage: string } };
    assert.equal(answer.partialSuccess.rejectedLogRecords, '2');
    assert.match(answer.partialSuccess.errorMessage, /^2 of 3 log records rejected — log record 2: not an HTTP request log.*; log record 3: "RayID" must be a string/);
  });

  it('answers an empty ExportLogsServiceResponse in protobuf when every record was accepted', async () => {
    const res = await post(gzipSync(JSON.stringify({ resourceLogs: [] })), { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '{}');
    const proto = await post(new Uint8Array(0), { ...auth, 'content-type': 'application/x-protobuf' });
    assert.equal(proto.status, 200);
    assert.equal(proto.headers.get('content-type'), 'application/x-protobuf');
    assert.deepEqual(responseType.toObject(responseType.decode(new Uint8Array(await proto.arrayBuffer())), {}), {});
  });

  it('answers 400 with a Status in the request encoding for a body that does not decode, and stores nothing', async () => {
    const before = await accepted();
    const json = await post('{"resourceLogs":', { ...auth, 'content-type': 'application/json' });
    assert.equal(json.status, 400);
    const status = (await json.json()) as { code: number; message: string };
    assert.equal(status.code, 3);
    assert.match(status.message, /not valid JSON/);
    const proto = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]), { ...auth, 'content-type': 'application/x-protobuf' });
    assert.equal(proto.status, 400);
    assert.equal(proto.headers.get('content-type'), 'application/x-protobuf');
    const bytes = Buffer.from(await proto.arrayBuffer());
    assert.equal(bytes[0], 0x08, 'a google.rpc.Status: code first');
    assert.match(bytes.toString('utf8'), /not a protobuf ExportLogsServiceRequest/);
    const gzip = await post('not gzip', { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.equal(gzip.status, 400);
    assert.equal(await accepted(), before);
  });

  it('answers 401 without credentials, 403 for a token that may not ingest, 415 for another media type', async () => {
    const missing = await post('{}', { 'content-type': 'application/json' });
    assert.equal(missing.status, 401);
    assert.equal(((await missing.json()) as { code: number }).code, 16);
    const reader = await h.t.token(h.owner, [h.zone], ['logs:read']);
    const refused = await post('{}', { authorization: `Bearer ${reader}`, 'content-type': 'application/json' });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: number }).code, 7);
    const onHost = await post('{}', { authorization: `Bearer ${reader}`, 'content-type': 'application/json' }, '/ingest/otlp/v1/logs');
    assert.equal(onHost.status, 200, 'the host-routed endpoint rejects records per zone, not the request');
    const text = await post('hello', { ...auth, 'content-type': 'text/plain' });
    assert.equal(text.status, 415);
  });

  it('routes by host only to the zones a token may ingest for, rejecting the records of the others', async () => {
    const mine = await h.t.zone(h.owner, 'mine.answers.example');
    await h.t.zone(h.owner, 'theirs.answers.example');
    await h.t.app.zoneDirectory.refresh();
    const token = await h.t.token(h.owner, [mine], ['logs:ingest']);
    const record = (host: string) => ({ timeUnixNano: '1790000000000000000', attributes: [{ key: 'url.full', value: { stringValue: `https://${host}/` } }] });
    const res = await post(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [record('www.mine.answers.example'), record('theirs.answers.example')] }] }] }), { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, '/ingest/otlp/v1/logs');
    assert.equal(res.status, 200);
    const answer = (await res.json()) as { partialSuccess: { rejectedLogRecords: string; errorMessage: string } };
    assert.equal(answer.partialSuccess.rejectedLogRecords, '1');
    // The same answer as for a host no zone serves: it tells nothing of which hosts have zones.
    assert.match(answer.partialSuccess.errorMessage, /log record 2: no zone serves the host "theirs.answers.example"/);
    const metrics = await (await fetch(`${h.t.app.url}/metrics`)).text();
    assert.match(metrics, new RegExp(`^logexport_ingest_requests_total\\{zone_id="${mine}"\\} 1$`, 'm'));
  });

  it('answers 413 for a body over the limit', async () => {
    const res = await post(Buffer.alloc(h.t.config.ingestBodyLimitBytes + 1), { ...auth, 'content-type': 'application/x-protobuf' });
    assert.equal(res.status, 413);
  });

  it('never answers 5xx nor stores anything for random bodies in either encoding', async () => {
    const before = await accepted();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.jsonValue(), async (bytes, json) => {
        const proto = await post(bytes, { ...auth, 'content-type': 'application/x-protobuf' });
        assert.ok(proto.status === 200 || proto.status === 400, `protobuf: ${proto.status}`);
        await proto.arrayBuffer();
        const text = await post(JSON.stringify(json) ?? 'null', { ...auth, 'content-type': 'application/json' });
        assert.ok(text.status === 200 || text.status === 400, `json: ${text.status}`);
        await text.arrayBuffer();
      }),
      { numRuns: 60 },
    );
    assert.equal(await accepted(), before);
  });
});

describe('OTLP/HTTP back-pressure', () => {
  it('answers 429 with Retry-After, which the protobuf exporter waits for and retries', async () => {
    const h = await startPlane({ LOGEXPORT_INGEST_MAX_BUFFERED: '1MiB' });
    const dir = freshDir('otlp-pressure');
    try {
      await createJob(h, { destination_conf: `file:///${dir}`, output_options: { field_names: ['ClientRequestPath'] } });
      // An upload that announces most of the budget and stalls holds all of it (the node is seen to hold it)…
      const socket = await stalledUpload(h, 900_000);
      const direct = await fetch(`${h.t.app.url}/ingest/zones/${h.zone}/otlp/v1/logs`, {
        method: 'POST',
        headers: { 'x-auth-email': h.owner.email, 'x-auth-key': h.owner.key, 'content-type': 'application/json', 'content-length': '200000' },
        body: ' '.repeat(200_000),
      });
      assert.equal(direct.status, 429);
      assert.match(direct.headers.get('retry-after') ?? '', /^\d+$/);
      assert.equal(((await direct.json()) as { code: number }).code, 8);
      // …so the exporter is refused too (its body, sent chunked, while it arrives), until the upload is given
      // up — which happens once the exporter has said it will retry, so the retry finds the budget free.
      diagnostics.length = 0;
      onDiagnostic = (message) => {
        if (/Scheduling export retry/.test(message)) socket.destroy();
      };
      const exporter = new ProtoExporter({ url: `${h.t.app.url}/ingest/zones/${h.zone}/otlp/v1/logs`, headers: { 'x-auth-email': h.owner.email, 'x-auth-key': h.owner.key } });
      // About 200 KB: over what the stalled upload leaves of the budget.
      const big = 'x'.repeat(50_000);
      const result = await exportWith(exporter, (logger) => {
        for (let i = 0; i < 4; i++) access(logger, 'www.example.com', `/after-429/${i}/${big}`, 200);
      });
      assert.equal(result.code, success, `${String(result.error)} ${diagnostics.join('\n')}`);
      assert.ok(diagnostics.some((d) => /Scheduling export retry/.test(d)), `the exporter retried: ${diagnostics.join('\n')}`);
      await h.t.app.stop();
      const delivered = await waitFor('the retried record', () => (readRecords(h.t.config.exportRoot, dir).length > 0 ? readRecords(h.t.config.exportRoot, dir) : undefined));
      assert.deepEqual(delivered, [0, 1, 2, 3].map((i) => ({ ClientRequestPath: `/after-429/${i}/${big}` })));
    } finally {
      onDiagnostic = () => undefined;
      await h.stop();
    }
  });

  it('fails an export the exporter cannot fix (400) without retrying', async () => {
    const h = await startPlane();
    try {
      diagnostics.length = 0;
      const exporter = new ProtoExporter({ url: `${h.t.app.url}/ingest/zones/${h.zone}/otlp/v1/logs`, headers: { 'x-auth-email': h.owner.email, 'x-auth-key': 'wrong' } });
      const result = await exportWith(exporter, (logger) => access(logger, 'www.example.com', '/', 200));
      assert.equal(result.code, failed);
      assert.ok(!diagnostics.some((d) => /Scheduling export retry/.test(d)));
    } finally {
      await h.stop();
    }
  });
});

describe('OTLP/HTTP bursts from the official exporters', () => {
  it('are sent as chunked bodies, without a Content-Length', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const server = http.createServer((request, response) => {
      seen.push(request.headers);
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/logs`;
      for (const exporter of [new ProtoExporter({ url }), new JsonExporter({ url })]) {
        const result = await exportWith(exporter, (logger) => access(logger, 'www.example.com', '/', 200));
        assert.equal(result.code, success);
      }
      assert.deepEqual(
        seen.map((headers) => [headers['transfer-encoding'], headers['content-length']]),
        [
          ['chunked', undefined],
          ['chunked', undefined],
        ],
      );
    } finally {
      server.close();
    }
  });

  for (const [name, Exporter] of [
    ['protobuf', ProtoExporter],
    ['JSON', JsonExporter],
  ] as const) {
    it(`takes 200 one-record exports at once from the ${name} exporter with SimpleLogRecordProcessor on an idle node, every one answered 200`, async () => {
      const h = await startPlane();
      try {
        await createJob(h, { destination_conf: `file:///${freshDir(`otlp-burst-${name}`)}`, output_options: { field_names: ['ClientRequestPath'] } });
        diagnostics.length = 0;
        // The exporter's own limit of exports in flight (30 by default) would refuse the rest before they are sent.
        const exporter = new Exporter({ url: `${h.t.app.url}/ingest/zones/${h.zone}/otlp/v1/logs`, headers: { 'x-auth-email': h.owner.email, 'x-auth-key': h.owner.key }, concurrencyLimit: 200 });
        const results: number[] = [];
        const counting: LogRecordExporter = {
          export: (records, done) => exporter.export(records, (result) => (results.push(result.code), done(result))),
          shutdown: () => exporter.shutdown(),
          forceFlush: () => exporter.forceFlush(),
        };
        const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: counting })] });
        const logger = provider.getLogger('access-log');
        for (let i = 0; i < 200; i++) access(logger, 'www.example.com', `/burst/${i}`, 200);
        await provider.forceFlush();
        await provider.shutdown();
        assert.equal(results.length, 200);
        assert.deepEqual(results.filter((code) => code !== success), [], diagnostics.join('\n'));
        const retried = diagnostics.filter((d) => /Scheduling export retry|after [1-9]\d* retry attempts/.test(d));
        assert.deepEqual(retried, [], 'no export was answered but 200 (none was retried)');
        const metrics = await (await fetch(`${h.t.app.url}/metrics`)).text();
        assert.match(metrics, new RegExp(`^logexport_ingest_accepted_events_total\\{zone_id="${h.zone}"\\} 200$`, 'm'));
      } finally {
        await h.stop();
      }
    });
  }

  it('counts a chunked OTLP body by its bytes: 50 at once on a node with a 1 MiB budget are all taken', async () => {
    const h = await startPlane({ LOGEXPORT_INGEST_MAX_BUFFERED: '1MiB' });
    try {
      await createJob(h, { destination_conf: `file:///${freshDir('otlp-chunked')}`, output_options: { field_names: ['ClientRequestPath'] } });
      const record = (i: number) => ({ timeUnixNano: '1790000000000000000', attributes: [{ key: 'url.full', value: { stringValue: `https://www.example.com/chunked/${i}` } }] });
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          postChunked(h, `/ingest/zones/${h.zone}/otlp/v1/logs`, Buffer.from(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [record(i)] }] }] })), { 'content-type': 'application/json' }),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        answers.map(() => 200),
      );
    } finally {
      await h.stop();
    }
  });
});
