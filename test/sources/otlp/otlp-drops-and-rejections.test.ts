/**
 * Nothing an OTLP sender sends is dropped without a word: records of a zone with no enabled job are
 * answered with `partial_success` (0 rejected, the notice in `error_message`, which the official exporter
 * logs), rejected records are counted per reason in /metrics (for their zone, or for no zone), and a served
 * node writes a warning line naming how many and why.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { OTLPLogExporter as ProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { createJob, freshDir, resultOf, startPlane, waitFor, type PlaneHarness } from '../../e2e/support/data-plane.ts';
import { killAllServed, serveNode } from '../../support/served-node.ts';
import { prepareTailNode } from '../support/tail-node.ts';

const diagnostics: string[] = [];
diag.setLogger(
  {
    error: (...args: unknown[]) => diagnostics.push(args.map(String).join(' ')),
    warn: (...args: unknown[]) => diagnostics.push(args.map(String).join(' ')),
    info: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
  },
  DiagLogLevel.WARN,
);

/** An OTLP JSON log record for `host`; without `status` and `method` it is no HTTP request log. */
function record(host: string, path: string, http = true): Record<string, unknown> {
  const attributes = [
    { key: 'server.address', value: { stringValue: host } },
    { key: 'url.path', value: { stringValue: path } },
    ...(http ? [{ key: 'http.response.status_code', value: { intValue: '200' } }] : []),
  ];
  return http ? { timeUnixNano: '1790000000000000000', attributes } : { timeUnixNano: '1790000000000000000', body: { stringValue: `GET ${path}` } };
}

function request(records: readonly Record<string, unknown>[]): string {
  return JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: records }] }] });
}

const noticeText = /no enabled job exports this zone's events: 2 log records were checked and dropped \(new jobs start disabled: enable one with PUT …\/logexport\/jobs\/\{job_id\} \{"enabled": true\}, or in the dashboard\)/;

describe('OTLP records of a zone with no enabled job', () => {
  let h: PlaneHarness;
  before(async () => {
    h = await startPlane();
  });
  after(() => h.stop());

  it('are answered with partial_success: 0 rejected and the notice, which the official exporter logs', async () => {
    const auth = { 'x-auth-email': h.owner.email, 'x-auth-key': h.owner.key };
    const res = await fetch(`${h.t.app.url}/ingest/zones/${h.zone}/otlp/v1/logs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: request([record('www.example.com', '/a'), record('www.example.com', '/b')]),
    });
    assert.equal(res.status, 200);
    const answer = (await res.json()) as { partialSuccess: { rejectedLogRecords: string; errorMessage: string } };
    assert.equal(answer.partialSuccess.rejectedLogRecords, '0');
    assert.match(answer.partialSuccess.errorMessage, new RegExp(`^${noticeText.source}$`));

    diagnostics.length = 0;
    const memory = new InMemoryLogRecordExporter();
    const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: memory })] });
    for (const path of ['/c', '/d']) {
      provider.getLogger('access').emit({ timestamp: new Date(), attributes: { 'http.request.method': 'GET', 'server.address': 'www.example.com', 'url.path': path, 'http.response.status_code': 200 } });
    }
    await provider.forceFlush();
    const exporter = new ProtoExporter({ url: `${h.t.app.url}/ingest/zones/${h.zone}/otlp/v1/logs`, headers: auth });
    const result = await new Promise<{ code: number }>((resolve) => exporter.export(memory.getFinishedLogRecords(), resolve));
    await provider.shutdown();
    assert.equal(result.code, 0, 'the export succeeded');
    const partial = diagnostics.find((d) => d.includes('Partial Success'));
    assert.ok(partial, diagnostics.join('\n'));
    const logged = JSON.parse(partial.slice(partial.indexOf('{'))) as { rejectedLogRecords: number; errorMessage: string };
    assert.equal(logged.rejectedLogRecords, 0);
    assert.match(logged.errorMessage, noticeText);

    const metrics = await (await fetch(`${h.t.app.url}/metrics`)).text();
    assert.match(metrics, new RegExp(`^logexport_ingest_dropped_events_total\\{zone_id="${h.zone}",reason="no_job"\\} 4$`, 'm'));
    assert.match(metrics, new RegExp(`^logexport_ingest_received_events_total\\{zone_id="${h.zone}",way_in="otlp",outcome="dropped"\\} 4$`, 'm'));
  });

  it('routed by host, name their zone in the notice, beside the rejections', async () => {
    const { name } = resultOf(await h.t.call('GET', `/zones/${h.zone}`)) as { name: string };
    const res = await fetch(`${h.t.app.url}/ingest/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'x-auth-email': h.owner.email, 'x-auth-key': h.owner.key, 'content-type': 'application/json' },
      body: request([record(`www.${name}`, '/a'), record('nobody.invalid', '/b'), record(`www.${name}`, '/c')]),
    });
    assert.equal(res.status, 200);
    const answer = (await res.json()) as { partialSuccess: { rejectedLogRecords: string; errorMessage: string } };
    assert.equal(answer.partialSuccess.rejectedLogRecords, "1", answer.partialSuccess.errorMessage);
    assert.match(answer.partialSuccess.errorMessage, /^1 of 3 log records rejected — log record 2: no zone serves the host "nobody.invalid"; no enabled job exports the events of /);
    assert.ok(answer.partialSuccess.errorMessage.includes(`no enabled job exports the events of ${name}: 2 log records were checked and dropped`), answer.partialSuccess.errorMessage);
  });
});

describe('OTLP records rejected', () => {
  let h: PlaneHarness;
  before(async () => {
    h = await startPlane();
    await createJob(h, { destination_conf: `file:///${freshDir('otlp-rejected')}`, output_options: { field_names: ['RayID'] } });
  });
  after(() => h.stop());

  it('are counted per reason in /metrics, for their zone or for no zone', async () => {
    const auth = { 'x-auth-email': h.owner.email, 'x-auth-key': h.owner.key, 'content-type': 'application/json' };
    const zoneEndpoint = await fetch(`${h.t.app.url}/ingest/zones/${h.zone}/otlp/v1/logs`, {
      method: 'POST',
      headers: auth,
      body: request([record('www.example.com', '/ok'), record('www.example.com', '/no', false), record('www.example.com', '/no-either', false)]),
    });
    assert.equal(zoneEndpoint.status, 200);
    assert.equal(((await zoneEndpoint.json()) as { partialSuccess: { rejectedLogRecords: string } }).partialSuccess.rejectedLogRecords, '2');
    const byHost = await fetch(`${h.t.app.url}/ingest/otlp/v1/logs`, { method: 'POST', headers: auth, body: request([record('nobody.invalid', '/x'), record('nobody.invalid', '/y', false)]) });
    assert.equal(byHost.status, 200);

    const metrics = await (await fetch(`${h.t.app.url}/metrics`)).text();
    assert.match(metrics, new RegExp(`^logexport_ingest_rejected_events_total\\{zone_id="${h.zone}",way_in="otlp",reason="not_http_request"\\} 2$`, 'm'));
    assert.match(metrics, /^logexport_ingest_rejected_events_total\{zone_id="",way_in="otlp",reason="unknown_host"\} 1$/m);
    assert.match(metrics, /^logexport_ingest_rejected_events_total\{zone_id="",way_in="otlp",reason="not_http_request"\} 1$/m);
    assert.match(metrics, new RegExp(`^logexport_ingest_received_events_total\\{zone_id="${h.zone}",way_in="otlp",outcome="accepted"\\} 1$`, 'm'));
    assert.match(metrics, new RegExp(`^logexport_ingest_received_events_total\\{zone_id="${h.zone}",way_in="otlp",outcome="rejected"\\} 2$`, 'm'));
  });
});

describe('a served node', () => {
  const dirs: string[] = [];
  after(() => {
    killAllServed();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes a warning line naming how many OTLP records were rejected, and why', async () => {
    const node = await prepareTailNode(['warn.example'], [{ zone: 'warn.example', dir: 'warn', fields: ['RayID'] }]);
    dirs.push(node.dataDir);
    const served = await serveNode(node.dataDir);
    const res = await fetch(`${served.url}/ingest/zones/${node.zones['warn.example']}/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'x-auth-email': node.auth.email, 'x-auth-key': node.auth.key, 'content-type': 'application/json' },
      body: request([record('www.warn.example', '/a', false), record('www.warn.example', '/b'), record('www.warn.example', '/c', false)]),
    });
    assert.equal(res.status, 200);
    const line = await waitFor('the warning line', () => served.stdout().split('\n').find((l) => l.includes('OTLP rejected')), 20_000, 50);
    const entry = JSON.parse(line) as { level: number; msg: string; reason: string; rejected: number };
    assert.equal(entry.level, 40, 'a warning');
    assert.equal(entry.reason, 'not_http_request');
    assert.equal(entry.rejected, 2);
    assert.match(entry.msg, /OTLP rejected 2 log records for zone [0-9a-f]{32} \(not_http_request\);.*The first: log record 1: not an HTTP request log.*; log record 3: not an HTTP request log/);
    assert.equal((await served.kill('SIGTERM')).code, 0);
  });
});
