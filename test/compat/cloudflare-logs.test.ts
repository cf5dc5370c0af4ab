/**
 * The official `cloudflare` npm client drives Logpull against a real node: the retention flag, `received`
 * (time edges, fields, sample, count, timestamps, gzip), `rayid` and `fields`, over events ingested while
 * the flag was on. The node's clock is a manual one, so receive times (the queue's append times) are exact.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import Cloudflare from 'cloudflare';
import { ManualClock } from '../../src/core/clock.ts';
import { fnv1a32 } from '../../src/ingest/stages/sample.ts';
import { retentionBody } from '../support/retention-events.ts';
import { waitAdvancing } from '../support/advancing-wait.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { ingestAs } from '../support/zone-ingest.ts';

const t0 = Date.UTC(2026, 4, 2, 10, 0, 0);


function lines(text: unknown): Record<string, unknown>[] {
  assert.equal(typeof text, 'string');
  return (text as string).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('Logpull through the official client', () => {
  let t: TestApp;
  let client: Cloudflare;
  let zoneId: string;
  let otherZone: string;
  let owner: { email: string; key: string; userId: string };
  const clock = new ManualClock(t0);

  const ingest = (body: string): Promise<void> => ingestAs(t, owner, zoneId, body);

  before(async () => {
    t = await startTestApp({ LOGEXPORT_RETENTION_FLUSH: '100ms' }, { clock });
    owner = await t.user();
    zoneId = await t.zone(owner, 'logs.example');
    otherZone = await t.zone(owner, 'other.example');
    client = new Cloudflare({ apiEmail: owner.email, apiKey: owner.key, baseURL: t.baseUrl, maxRetries: 0 });
  });
  after(async () => t.stop());

  it('keeps the retention flag off by default and turns it on', async () => {
    assert.deepEqual(await client.logs.control.retention.get({ zone_id: zoneId }), { flag: false });
    assert.deepEqual(await client.logs.control.retention.create({ zone_id: zoneId, flag: true }), { flag: true });
    assert.deepEqual(await client.logs.control.retention.get({ zone_id: zoneId }), { flag: true });
    const bad = await t.call('POST', `/zones/${zoneId}/logs/control/retention/flag`, { body: { flag: 'yes' }, auth: owner });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].source.pointer, '/flag');
    // The change is in the audit log, as the official client reads it; the refused one is not.
    const entries = await client.user.auditLogs.list({ action: { type: 'retention.update' } });
    // The client's AuditLog type has no zone; logexport's entries carry one (docs/security.md).
    const mine = entries.result.filter((e) => (e as { zone?: { id: string } | null }).zone?.id === zoneId);
    assert.equal(mine.length, 1);
    assert.deepEqual(JSON.parse(String(mine[0]?.newValue)), { flag: true });
    assert.equal(mine[0]?.actor?.email, owner.email);
  });

  it('retains what arrives while the flag is on and answers by receive time, start inclusive and end exclusive', async () => {
    await ingest(retentionBody(0, 40));
    clock.set(t0 + 1000);
    // These carry their timestamps as bare numbers: the retained section keeps their lines as sent.
    await ingest(retentionBody(40, 100, 'a', true));
    clock.set(t0 + 2000);
    await waitAdvancing(async () => {
      const answer = await t.call('GET', `/zones/${zoneId}/logs/received?start=${t0 / 1000 - 60}&end=${t0 / 1000 + 60}&fields=RayID`, { auth: owner });
      return answer.status === 200 && lines(answer.text).length === 100;
    }, 'the segments', clock);
    const first = lines(await client.logs.received.get({ zone_id: zoneId, start: new Date(t0).toISOString(), end: new Date(t0 + 1000).toISOString() }));
    assert.equal(first.length, 40);
    const secondNs = `${BigInt(t0 + 1000) * 1_000_000n}`;
    const second = lines(await client.logs.received.get({ zone_id: zoneId, start: secondNs, end: `${BigInt(t0 + 1001) * 1_000_000n}` }));
    assert.equal(second.length, 60);
    // The default field set, values as ingested.
    assert.deepEqual(Object.keys(first[0] ?? {}).sort(), ['ClientIP', 'ClientRequestHost', 'ClientRequestMethod', 'ClientRequestURI', 'EdgeEndTimestamp', 'EdgeResponseBytes', 'EdgeResponseStatus', 'EdgeStartTimestamp', 'RayID']);
    // Rows received in the same millisecond come in no particular order.
    assert.equal(first.find((r) => r.RayID === 'a0000000')?.EdgeStartTimestamp, 1790000000000000000);
    const bare = lines(await t.call('GET', `/zones/${zoneId}/logs/received?start=${secondNs}&end=${BigInt(t0 + 1001) * 1_000_000n}&fields=RayID,EdgeStartTimestamp,BotDetectionIDs`, { auth: owner }).then((a) => a.text));
    assert.deepEqual(bare.find((r) => r.RayID === 'a0000028'), { RayID: 'a0000028', EdgeStartTimestamp: 1790000000040000000, BotDetectionIDs: [40, 41] });
  });

  it('picks fields, caps with count, samples deterministically and formats timestamps', async () => {
    const window = { zone_id: zoneId, start: t0 / 1000, end: t0 / 1000 + 3600 };
    const picked = lines(await client.logs.received.get({ ...window, fields: 'RayID,BotDetectionIDs,RequestHeaders,EdgeStartTimestamp', timestamps: 'rfc3339' }));
    assert.equal(picked.length, 100);
    const one = picked.find((r) => r.RayID === 'a0000005');
    assert.deepEqual(one, { RayID: 'a0000005', BotDetectionIDs: [5, 6], RequestHeaders: null, EdgeStartTimestamp: '2026-09-21T14:13:20Z' });
    assert.equal(lines(await client.logs.received.get({ ...window, count: 7 })).length, 7);
    const sampled = lines(await client.logs.received.get({ ...window, sample: 0.3, fields: 'RayID' })).map((r) => r.RayID as string);
    const expected = picked.map((r) => r.RayID as string).filter((id) => fnv1a32(id) < 0.3 * 2 ** 32);
    assert.deepEqual(sampled.sort(), expected.sort());
    assert.ok(sampled.length > 0 && sampled.length < 100);
    const redacted = lines(await t.call('GET', `/zones/${zoneId}/logs/received?start=${t0 / 1000}&end=${t0 / 1000 + 60}&fields=ClientRequestURI&CVE-2021-44228=true&count=1`, { auth: owner }).then((a) => a.text));
    assert.match(redacted[0]?.ClientRequestURI as string, /x\{jndi\}/);
  });

  it('streams gzip when the client accepts it', async () => {
    const response = await fetch(`${t.baseUrl}/zones/${zoneId}/logs/received?start=${t0 / 1000}&end=${t0 / 1000 + 60}&fields=RayID`, {
      headers: { 'x-auth-email': owner.email, 'x-auth-key': owner.key, 'accept-encoding': 'gzip' },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-encoding'), 'gzip');
    assert.equal(response.headers.get('content-type'), 'application/x-ndjson');
    // fetch decompresses what it asked for.
    assert.equal(lines(await response.text()).length, 100);
    const raw = await t.call('GET', `/zones/${zoneId}/logs/received?start=${t0 / 1000}&end=${t0 / 1000 + 60}&fields=RayID`, { auth: owner, headers: { 'accept-encoding': 'identity' } });
    assert.equal(raw.headers.get('content-encoding'), null);
    assert.ok(zlib.gzipSync(raw.text).length > 0);
  });

  it('looks records up by RayID and lists the fields', async () => {
    const found = lines(await client.logs.RayID.get('a0000007', { zone_id: zoneId, fields: 'RayID,ClientIP', timestamps: 'unix' }));
    assert.deepEqual(found, [{ RayID: 'a0000007', ClientIP: '192.0.2.7' }]);
    assert.deepEqual(lines(await client.logs.RayID.get('ffffffff', { zone_id: zoneId })), []);
    const fields = (await client.logs.received.fields.get({ zone_id: zoneId })) as Record<string, unknown>;
    assert.equal(typeof fields.RayID, 'string');
    assert.equal(typeof fields.RequestHeaders, 'string');
  });

  it('answers bad queries in the envelope, naming the parameter', async () => {
    const cases: [string, string, number][] = [
      [`start=${t0 / 1000 + 10}&end=${t0 / 1000}`, '/end', 13400],
      [`start=${t0 / 1000}&end=${t0 / 1000 + 3601}`, '/end', 13400],
      [`start=${t0 / 1000}&end=${t0 / 1000 + 60}&fields=RayID,Nope`, '/fields', 13400],
      [`start=${t0 / 1000}&end=${t0 / 1000 + 60}&sample=0.001`, '/sample', 13400],
      [`start=${t0 / 1000}&end=${t0 / 1000 + 60}&count=0`, '/count', 13400],
      [`start=${t0 / 1000}&end=${t0 / 1000 + 60}&timestamps=rfc3339ms`, '/timestamps', 13400],
      [`start=yesterday&end=${t0 / 1000}`, '/start', 13400],
      [`start=${t0 / 1000 - 8 * 86400}&end=${t0 / 1000 - 8 * 86400 + 60}`, '/start', 13400],
    ];
    for (const [query, pointer, code] of cases) {
      const answer = await t.call('GET', `/zones/${zoneId}/logs/received?${query}`, { auth: owner });
      assert.equal(answer.status, 400, query);
      assert.equal(answer.body.success, false);
      assert.equal(answer.body.errors[0].code, code, query);
      assert.equal(answer.body.errors[0].source.pointer, pointer, query);
    }
    const off = await t.call('GET', `/zones/${otherZone}/logs/received?start=${t0 / 1000}&end=${t0 / 1000 + 60}`, { auth: owner });
    assert.equal(off.status, 400);
    assert.equal(off.body.errors[0].code, 13401);
    await assert.rejects(client.logs.received.get({ zone_id: otherZone, start: t0 / 1000, end: t0 / 1000 + 60 }), (e: unknown) => (e as { status?: number }).status === 400);
  });

  it('keeps what was stored when the flag goes off, and retains nothing that arrives meanwhile', async () => {
    assert.deepEqual(await client.logs.control.retention.create({ zone_id: zoneId, flag: false }), { flag: false });
    const off = await t.call('GET', `/zones/${zoneId}/logs/received?start=${t0 / 1000}&end=${t0 / 1000 + 60}`, { auth: owner });
    assert.equal(off.body.errors[0].code, 13401);
    await ingest(retentionBody(200, 210));
    assert.deepEqual(await client.logs.control.retention.create({ zone_id: zoneId, flag: true }), { flag: true });
    const ids = lines(await client.logs.received.get({ zone_id: zoneId, start: t0 / 1000, end: t0 / 1000 + 3600, fields: 'RayID' })).map((r) => r.RayID as string);
    assert.equal(ids.length, 100);
    assert.ok(!ids.includes('a00000c8'));
  });

  it('removes segments once they are older than the retention', async () => {
    assert.equal(await t.app.retention.expireNow(), 0);
    clock.set(t0 + 7 * 86_400_000 + 3_600_000);
    assert.equal(await t.app.retention.expireNow(), 1);
    assert.deepEqual(await t.app.retention.segments.list(`${zoneId}/`), []);
  });
});
