/**
 * The official `cloudflare` npm client makes and lists Instant Logs sessions (`logpush.edge.create` /
 * `.get`) against a real node, with a global key and with a `logs:read` token, and a real WebSocket client
 * then receives the records of events ingested while it is connected.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Cloudflare from 'cloudflare';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { connectViewer } from '../support/live-viewer.ts';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const found: T[] = [];
  for await (const item of items) found.push(item);
  return found;
}

describe('the cloudflare client with Instant Logs', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };

  before(async () => {
    t = await startTestApp({ LOGEXPORT_WORKERS: '0' });
    owner = await t.user();
  });
  after(async () => {
    await t.stop();
  });

  it('creates and lists sessions, and their WebSocket streams the filtered records', async () => {
    const zoneId = await t.zone(owner);
    const client = new Cloudflare({ baseURL: t.baseUrl, apiEmail: owner.email, apiKey: owner.key, maxRetries: 0 });
    const filter = JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 500 } });
    const job = await client.logpush.edge.create({ zone_id: zoneId, fields: 'RayID,EdgeResponseStatus', filter, sample: 1 });
    assert.ok(job !== null);
    assert.match(job.session_id ?? '', /^[0-9a-f]{32}$/);
    assert.equal(job.destination_conf, `${t.app.url.replace('http://', 'ws://')}/instant-logs/ws/sessions/${job.session_id}`);
    assert.equal(job.fields, 'RayID,EdgeResponseStatus');
    assert.equal(job.filter, filter);
    assert.equal(job.sample, 1);

    const listed = await collect(client.logpush.edge.get({ zone_id: zoneId }));
    assert.deepEqual(listed, [job]);

    const viewer = await connectViewer(job.destination_conf ?? '');
    try {
      const body = ['a', 'b', 'c'].map((id, i) => JSON.stringify({ RayID: id, EdgeResponseStatus: [200, 503, 500][i] })).join('\n');
      const res = await fetch(`${t.app.url}/ingest/zones/${zoneId}/http_requests`, { method: 'POST', headers: { 'x-auth-email': owner.email, 'x-auth-key': owner.key }, body });
      assert.equal(res.status, 200, await res.text());
      await viewer.until('two records', () => viewer.records.length >= 2);
      assert.deepEqual(viewer.records, ['{"RayID":"b","EdgeResponseStatus":503}', '{"RayID":"c","EdgeResponseStatus":500}']);
    } finally {
      await viewer.close();
    }
  });

  it('works with a logs:read token under the logpush path word, and surfaces a bad filter as a typed error', async () => {
    const zoneId = await t.zone(owner);
    const token = await t.token(owner, [zoneId], ['logs:read']);
    const client = new Cloudflare({ baseURL: t.baseUrl, apiToken: token, maxRetries: 0 });
    const job = await client.logpush.edge.create({ zone_id: zoneId, fields: 'RayID', sample: 10 });
    assert.equal(job?.sample, 10);
    await assert.rejects(
      client.logpush.edge.create({ zone_id: zoneId, fields: 'RayID', filter: JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'in', value: '200,201' } }) }),
      (error: unknown) => error instanceof Cloudflare.BadRequestError && error.message.includes('filter /where/value') && error.message.includes('needs a JSON array'),
    );
    assert.equal((await collect(client.logpush.edge.get({ zone_id: zoneId }))).length, 1);
  });
});
