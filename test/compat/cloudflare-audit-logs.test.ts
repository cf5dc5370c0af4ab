/**
 * The official `cloudflare` npm client reads the audit log (`client.user.auditLogs.list`) of changes made
 * through the API (with the global key and with a token) and through the dashboard's session, filtered by
 * zone, action and actor, and paged.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Cloudflare from 'cloudflare';
import { startTestApp, type TestApp } from '../support/test-app.ts';

interface EntryShape {
  id: string;
  when: string;
  action: { type: string; result: boolean };
  actor: { id: string | null; email: string | null; ip: string | null; type: string };
  resource: { id: string | null; type: string };
  zone: { id: string; name: string } | null;
  oldValue: string | null;
  newValue: string | null;
}

async function collect(items: AsyncIterable<unknown>): Promise<EntryShape[]> {
  const found: EntryShape[] = [];
  for await (const item of items) found.push(item as EntryShape);
  return found;
}

const rules = [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'user-agent' }] } }];

describe('the audit log through the official client', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };
  let zoneA: string;
  let zoneB: string;
  let token: string;
  let client: Cloudflare;
  let receiver: http.Server;
  let receiverUrl: string;

  before(async () => {
    receiver = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => response.end('ok'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    t = await startTestApp({ LOGEXPORT_TRUST_PROXY: '127.0.0.1', LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS: 'true' });
    owner = await t.user('auditor@example.com', 'correct horse battery');
    zoneA = await t.zone(owner, 'audit-a.example.com');
    zoneB = await t.zone(owner, 'audit-b.example.com');
    token = await t.token(owner, [zoneB], ['logs:edit']);
    client = new Cloudflare({ baseURL: t.baseUrl, apiEmail: owner.email, apiKey: owner.key, maxRetries: 0 });

    // Changes through the API with the key (from one address) …
    const headers = { 'x-forwarded-for': '203.0.113.10' };
    const put = await t.call('PUT', `/zones/${zoneA}/rulesets/phases/http_log_custom_fields/entrypoint`, { body: { rules }, headers });
    assert.equal(put.status, 200, put.text);
    const job = await t.call('POST', `/zones/${zoneA}/logpush/jobs`, {
      body: { destination_conf: `${receiverUrl}/in?header_Authorization=very-secret-value`, output_options: { field_names: ['RayID'] } },
      headers,
    });
    assert.equal(job.status, 200, job.text);
    const jobId = job.body.result.id as number;
    assert.equal((await t.call('PUT', `/zones/${zoneA}/logpush/jobs/${jobId}`, { body: { name: 'renamed' }, headers })).status, 200);
    assert.equal((await t.call('DELETE', `/zones/${zoneA}/logpush/jobs/${jobId}`, { headers })).status, 200);
    // … with a token on the other zone (from another address) …
    const viaToken = await t.call('PUT', `/zones/${zoneB}/rulesets/phases/http_log_custom_fields/entrypoint`, {
      auth: { token },
      body: { rules },
      headers: { 'x-forwarded-for': '198.51.100.20' },
    });
    assert.equal(viaToken.status, 200, viaToken.text);
    // … and through the dashboard: a failed and a successful sign-in, then a change with the session.
    assert.equal((await t.call('POST', '/session', { auth: null, body: { email: owner.email, password: 'wrong password' } })).status, 401);
    const signIn = await t.call('POST', '/session', { auth: null, body: { email: owner.email, password: 'correct horse battery' } });
    assert.equal(signIn.status, 200);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const dashboardChange = await t.call('PUT', `/zones/${zoneB}/rulesets/phases/http_log_custom_fields/entrypoint`, {
      auth: { headers: { cookie, 'x-csrf-token': signIn.body.result.csrf_token } },
      body: { rules: [] },
    });
    assert.equal(dashboardChange.status, 200, dashboardChange.text);
    const signOut = await t.call('DELETE', '/session', { auth: { headers: { cookie, 'x-csrf-token': signIn.body.result.csrf_token } } });
    assert.equal(signOut.status, 200, signOut.text);
  });
  after(async () => {
    await t.stop();
    receiver.closeAllConnections();
    receiver.close();
  });

  it('lists every change, newest first, with who, when, what and on which zone', async () => {
    const all = await collect(client.user.auditLogs.list());
    const types = all.map((e) => e.action.type);
    for (const type of ['zone.create', 'token.create', 'ruleset.create', 'job.create', 'job.update', 'job.delete', 'session.create']) {
      assert.ok(types.includes(type), `${type} in ${types.join(', ')}`);
    }
    const whens = all.map((e) => e.when);
    assert.deepEqual(whens, [...whens].sort().reverse());
    const created = all.find((e) => e.action.type === 'job.create');
    assert.deepEqual(created?.actor, { id: owner.userId, email: owner.email, ip: '203.0.113.10', type: 'user' });
    assert.equal(created?.zone?.name, 'audit-a.example.com');
    assert.equal(created?.resource.type, 'logexport.job');
    assert.equal(created?.action.result, true);
  });

  it('never shows a secret in old or new values', async () => {
    const all = await collect(client.user.auditLogs.list());
    const text = JSON.stringify(all);
    assert.ok(!text.includes('very-secret-value'));
    const update = all.find((e) => e.action.type === 'job.update');
    assert.match(update?.oldValue ?? '', /header_Authorization=REDACTED/);
    assert.match(update?.newValue ?? '', /"name":"renamed"/);
  });

  it('filters by zone, by action and by actor', async () => {
    const zoneB = await collect(client.user.auditLogs.list({ zone: { name: 'audit-b.example.com' } }));
    assert.ok(zoneB.length > 0);
    assert.ok(zoneB.every((e) => e.zone?.name === 'audit-b.example.com'));
    const deletes = await collect(client.user.auditLogs.list({ action: { type: 'job.delete' } }));
    assert.equal(deletes.length, 1);
    assert.equal(deletes[0]?.resource.type, 'logexport.job');
    const fromAddress = await collect(client.user.auditLogs.list({ actor: { ip: '198.51.100.20' } }));
    assert.ok(fromAddress.length > 0);
    assert.ok(fromAddress.every((e) => e.actor.type === 'token' && e.actor.email === owner.email && e.zone?.name === 'audit-b.example.com'));
    const byRange = await collect(client.user.auditLogs.list({ actor: { ip: '198.51.100.0/24' } }));
    assert.deepEqual(byRange.map((e) => e.id), fromAddress.map((e) => e.id), 'a CIDR range finds the same entries');
    const byEmail = await collect(client.user.auditLogs.list({ actor: { email: owner.email }, action: { type: 'ruleset.update' } }));
    assert.ok(byEmail.length >= 1, 'the dashboard change is there');
  });

  it('records sign-ins, failed ones too', async () => {
    const signIns = await collect(client.user.auditLogs.list({ action: { type: 'session.create' } }));
    assert.deepEqual(signIns.map((e) => e.action.result).sort(), [false, true]);
    assert.ok(signIns.every((e) => e.zone === null && e.actor.email === owner.email));
    const signOuts = await collect(client.user.auditLogs.list({ action: { type: 'session.delete' } }));
    assert.equal(signOuts.length, 1);
  });

  it('pages with page and per_page, and orders oldest first on request', async () => {
    const all = await collect(client.user.auditLogs.list({ direction: 'asc' }));
    const paged = await collect(client.user.auditLogs.list({ direction: 'asc', per_page: 2 }));
    assert.deepEqual(paged.map((e) => e.id), all.map((e) => e.id));
    const first = await client.user.auditLogs.list({ per_page: 2, page: 1 });
    assert.equal(first.result.length, 2);
  });

  it('narrows by time with since and before', async () => {
    const all = await collect(client.user.auditLogs.list({ direction: 'asc' }));
    const middle = all[Math.floor(all.length / 2)]?.when ?? '';
    const since = await collect(client.user.auditLogs.list({ since: middle }));
    const before = await collect(client.user.auditLogs.list({ before: middle }));
    assert.ok(since.every((e) => e.when >= middle));
    assert.ok(before.every((e) => e.when < middle));
    assert.equal(since.length + before.length, all.length);
  });

  it('shows a user nothing of another user’s account, and a token only its zones', async () => {
    const stranger = await t.user();
    await t.zone(stranger);
    const strangerClient = new Cloudflare({ baseURL: t.baseUrl, apiEmail: stranger.email, apiKey: stranger.key, maxRetries: 0 });
    const theirs = await collect(strangerClient.user.auditLogs.list());
    assert.ok(theirs.every((e) => e.zone === null || !e.zone.name.startsWith('audit-')));
    const tokenClient = new Cloudflare({ baseURL: t.baseUrl, apiToken: token, maxRetries: 0 });
    const viaToken = await collect(tokenClient.user.auditLogs.list());
    assert.ok(viaToken.length > 0);
    assert.ok(viaToken.every((e) => e.zone?.id === zoneB));
  });

  it('records rules, versions, rulesets, ownership challenges and a job disabled and enabled through the client', async () => {
    const zoneC = await t.zone(owner, 'audit-c.example.com');
    const zone = { zone_id: zoneC };
    const entrypoint = (await client.rulesets.phases.update('http_log_custom_fields', { ...zone, rules: rules as never })) as { id: string };
    const rule = (name: string) => ({ action: 'log_custom_field' as const, expression: 'true', action_parameters: { request_fields: [{ name }] } });
    const added = (await client.rulesets.rules.create(entrypoint.id, { ...zone, ...rule('x-added') })) as { rules: { id: string }[] };
    const ruleId = added.rules.at(-1)?.id ?? '';
    await client.rulesets.rules.edit(ruleId, { ...zone, ruleset_id: entrypoint.id, ...rule('x-edited') });
    await client.rulesets.rules.delete(ruleId, { ...zone, ruleset_id: entrypoint.id });
    await client.rulesets.versions.delete('1', { ...zone, ruleset_id: entrypoint.id });
    const challenge = await client.logpush.ownership.create({ ...zone, destination_conf: 'file:///audit-c/{DATE}' });
    const job = await client.logpush.jobs.create({ ...zone, destination_conf: `${receiverUrl}/c?header_X-Key=very-secret-value`, output_options: { field_names: ['RayID'] }, enabled: true });
    await client.logpush.jobs.update(job?.id ?? 0, { ...zone, enabled: false });
    await client.logpush.jobs.update(job?.id ?? 0, { ...zone, enabled: true });
    await client.rulesets.delete(entrypoint.id, zone);

    const entries = await collect(client.user.auditLogs.list({ zone: { name: 'audit-c.example.com' }, direction: 'asc' }));
    assert.deepEqual(
      entries.map((e) => e.action.type),
      ['zone.create', 'ruleset.create', 'rule.create', 'rule.update', 'rule.delete', 'ruleset.version.delete', 'ownership.challenge', 'job.create', 'job.disable', 'job.enable', 'ruleset.delete'],
    );
    const metadataOf = (type: string) => (entries.find((e) => e.action.type === type) as unknown as { metadata: Record<string, unknown> }).metadata;
    for (const type of ['rule.create', 'rule.update', 'rule.delete']) assert.equal(metadataOf(type).rule_id, ruleId, type);
    assert.match(entries.find((e) => e.action.type === 'ownership.challenge')?.newValue ?? '', new RegExp(challenge?.filename ?? 'no filename'));
    const disabled = entries.find((e) => e.action.type === 'job.disable');
    assert.equal(disabled?.resource.id, String(job?.id));
    assert.match(disabled?.oldValue ?? '', /"enabled":true/);
    assert.match(disabled?.newValue ?? '', /"enabled":false/);
    assert.ok(entries.every((e) => e.actor.type === 'user' || e.action.type === 'zone.create'));
    assert.ok(!JSON.stringify(entries).includes('very-secret-value'));
  });

  it('refuses bad filters with 400 in the v4 envelope', async () => {
    for (const query of ['since=yesterday', 'direction=up', 'per_page=0', 'color=red', 'actor.ip=10.0.0.0/99']) {
      const res = await t.call('GET', `/user/audit_logs?${query}`, { auth: owner });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.errors[0].code, 10400);
    }
  });
});
