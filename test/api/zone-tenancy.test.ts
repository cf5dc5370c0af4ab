/**
 * Zones tenants cannot take from each other (issue 23): no name equal to, above or beneath another user's
 * zone, no public suffix, a bound per user, DNS verification before host-routed traffic, and one answer for
 * "another user's zone" and "no zone" on the host-routed OTLP endpoint.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/test-app.ts';

type User = { email: string; key: string; userId: string };

/** A host-routed OTLP/JSON request of one record per host; answers the partial-success message. */
async function sendByHost(t: TestApp, auth: User, hosts: readonly string[]): Promise<{ rejected: number; message: string }> {
  const record = (host: string) => ({ timeUnixNano: '1790000000000000000', attributes: [{ key: 'url.full', value: { stringValue: `https://${host}/` } }] });
  const res = await fetch(`${t.app.url}/ingest/otlp/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-email': auth.email, 'x-auth-key': auth.key },
    body: JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: hosts.map(record) }] }] }),
  });
  assert.equal(res.status, 200);
  const answer = (await res.json()) as { partialSuccess?: { rejectedLogRecords?: string; errorMessage?: string } };
  return { rejected: Number(answer.partialSuccess?.rejectedLogRecords ?? 0), message: answer.partialSuccess?.errorMessage ?? '' };
}

async function requestsOf(t: TestApp, zoneId: string): Promise<number> {
  const metrics = await (await fetch(`${t.app.url}/metrics`)).text();
  const m = new RegExp(`^logexport_ingest_requests_total\\{zone_id="${zoneId}"\\} (\\d+)$`, 'm').exec(metrics);
  return Number(m?.[1] ?? 0);
}

describe('zone names between users', () => {
  let t: TestApp;
  let a: User;
  let b: User;

  before(async () => {
    t = await startTestApp({ LOGEXPORT_MAX_ZONES_PER_USER: '4' });
    a = await t.user('a@tenancy.example');
    b = await t.user('b@tenancy.example');
  });
  after(async () => t.stop());

  const create = (user: User, name: string) => t.call('POST', '/zones', { auth: user, body: { name } });

  it("refuses a zone beneath, above or equal to another user's zone with the answer a taken name gets", async () => {
    assert.equal((await create(b, 'b.test')).status, 200);
    assert.equal((await create(b, 'deep.c.test')).status, 200);
    const answers = await Promise.all(['b.test', 'www.b.test', 'x.y.b.test', 'c.test'].map((name) => create(a, name)));
    for (const res of answers) {
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.errors[0].code, 1061);
      assert.match(res.body.errors[0].message, /^the name [a-z.]+ is taken: a zone of that name, or above or beneath it, exists$/);
    }
    const mine = await t.call('GET', '/zones', { auth: a });
    assert.deepEqual(mine.body.result, [], 'nothing was created');
  });

  it("lets a user create zones beneath and above the user's own", async () => {
    assert.equal((await create(b, 'shop.b.test')).status, 200);
    assert.equal((await create(b, 'c.test')).status, 200);
  });

  it('refuses public suffixes, ICANN and private, by the Public Suffix List', async () => {
    for (const name of ['co.uk', 'com', 'github.io', 'uk.com']) {
      const res = await create(a, name);
      assert.equal(res.status, 400, name);
      assert.equal(res.body.errors[0].code, name === 'com' ? 10400 : 10400);
      assert.match(res.body.errors[0].message, name === 'com' ? /not a domain name/ : /is a public suffix/);
    }
    assert.equal((await create(a, 'example.co.uk')).status, 200);
    assert.equal((await create(a, 'mine.github.io')).status, 200);
  });

  it('refuses a zone past LOGEXPORT_MAX_ZONES_PER_USER with 403 / 10601', async () => {
    assert.equal((await t.call('GET', '/zones', { auth: b })).body.result.length, 4);
    const res = await create(b, 'five.test');
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 10601);
    assert.match(res.body.errors[0].message, /4 zones, the most allowed/);
  });

  it("answers a host of another user's zone like a host no zone serves, and routes it to its owner", async () => {
    await t.app.zoneDirectory.refresh();
    const bZone = (await t.call('GET', '/zones?name=b.test', { auth: b })).body.result[0].id as string;
    const before = await requestsOf(t, bZone);
    const theirs = await sendByHost(t, a, ['www.b.test']);
    const none = await sendByHost(t, a, ['www.nobody.test']);
    assert.equal(theirs.rejected, 1);
    assert.equal(theirs.message.replace('www.b.test', 'HOST'), none.message.replace('www.nobody.test', 'HOST'));
    assert.equal((await sendByHost(t, b, ['www.b.test'])).rejected, 0);
    assert.equal(await requestsOf(t, bZone), before + 1);
  });
});

describe('zones verified by DNS (LOGEXPORT_ZONE_VERIFICATION=dns)', () => {
  let t: TestApp;
  let owner: User;
  const records = new Map<string, string[][]>();
  const lookups: string[] = [];

  before(async () => {
    t = await startTestApp(
      { LOGEXPORT_ZONE_VERIFICATION: 'dns' },
      {
        resolveTxt: async (name) => {
          lookups.push(name);
          const found = records.get(name);
          if (found === undefined) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
          return found;
        },
      },
    );
    owner = await t.user('dns@tenancy.example');
  });
  after(async () => t.stop());

  it('keeps a new zone pending, shows the TXT record to add, and routes no host to it', async () => {
    const res = await t.call('POST', '/zones', { auth: owner, body: { name: 'proved.test' } });
    assert.equal(res.status, 200);
    const zone = res.body.result;
    assert.equal(zone.status, 'pending');
    assert.deepEqual(zone.verification, { type: 'TXT', name: '_logexport-challenge.proved.test', value: zone.verification_key });
    assert.match(zone.verification_key, /^[0-9a-f]{32}$/);
    await t.app.zoneDirectory.refresh();
    const answer = await sendByHost(t, owner, ['www.proved.test']);
    assert.equal(answer.rejected, 1);
    assert.match(answer.message, /no zone serves the host "www.proved.test"/);
  });

  it('still takes events sent to the pending zone by id', async () => {
    const zone = (await t.call('GET', '/zones?name=proved.test', { auth: owner })).body.result[0];
    const line = JSON.stringify({ ClientRequestHost: 'proved.test', EdgeStartTimestamp: 1_790_000_000_000_000_000, RayID: 'a1' });
    const res = await fetch(`${t.app.url}/ingest/zones/${zone.id}/http_requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', 'x-auth-email': owner.email, 'x-auth-key': owner.key },
      body: `${line}\n`,
    });
    assert.equal(res.status, 200, await res.text());
  });

  it('answers an activation check without the record with 400 / 10602 naming the record, and keeps the zone pending', async () => {
    const zone = (await t.call('GET', '/zones?name=proved.test', { auth: owner })).body.result[0];
    const res = await t.call('PUT', `/zones/${zone.id}/activation_check`, { auth: owner });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 10602);
    assert.match(res.body.errors[0].message, /_logexport-challenge\.proved\.test/);
    assert.deepEqual(lookups, ['_logexport-challenge.proved.test']);
    records.set('_logexport-challenge.proved.test', [['something else']]);
    assert.equal((await t.call('PUT', `/zones/${zone.id}/activation_check`, { auth: owner })).status, 400);
    assert.equal((await t.call('GET', `/zones/${zone.id}`, { auth: owner })).body.result.status, 'pending');
  });

  it('makes the zone active once the record holds its token (in chunks, among others), and routes its hosts then', async () => {
    const zone = (await t.call('GET', '/zones?name=proved.test', { auth: owner })).body.result[0];
    const token = zone.verification_key as string;
    records.set('_logexport-challenge.proved.test', [['v=spf1 -all'], [token.slice(0, 10), token.slice(10)]]);
    const res = await t.call('PUT', `/zones/${zone.id}/activation_check`, { auth: owner });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.result, { id: zone.id, status: 'active' });
    const shown = (await t.call('GET', `/zones/${zone.id}`, { auth: owner })).body.result;
    assert.equal(shown.status, 'active');
    assert.equal(shown.verification, undefined);
    await t.app.zoneDirectory.refresh();
    assert.equal((await sendByHost(t, owner, ['www.proved.test'])).rejected, 0);
    const audit = await t.call('GET', '/user/audit_logs?action.type=zone.activate', { auth: owner });
    assert.equal(audit.body.result.length, 1);
  });

  it("makes the operator's zones active at once", async () => {
    const id = await t.zone(owner, 'operator.test');
    assert.equal((await t.call('GET', `/zones/${id}`, { auth: owner })).body.result.status, 'active');
  });
});
