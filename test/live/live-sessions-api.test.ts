/**
 * `POST`/`GET /zones/{zone_id}/logexport/edge/jobs` through HTTP: what a session echoes, every refusal with
 * its code and pointer (and nothing made), who may make and list sessions, the per-zone limit, expiry
 * of a session nobody connects to, and what a viewer is told when its node stops.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { connectViewer } from '../support/live-viewer.ts';

describe('the Instant Logs API', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };
  let zone: string;

  before(async () => {
    t = await startTestApp({ LOGEXPORT_WORKERS: '0', LOGEXPORT_LIVE_IDLE_TIMEOUT: '700ms', LOGEXPORT_LIVE_MAX_SESSIONS: '3' });
    owner = await t.user();
    zone = await t.zone(owner);
  });
  after(async () => {
    await t.stop();
  });

  it('makes a session with the default fields, no filter and every record when the body is empty', async () => {
    const res = await t.call('POST', `/zones/${zone}/logexport/edge/jobs`, { body: {} });
    assert.equal(res.status, 200, res.text);
    const s = res.body.result;
    assert.deepEqual(Object.keys(s).sort(), ['destination_conf', 'fields', 'filter', 'sample', 'session_id']);
    assert.equal(s.fields, 'ClientIP,ClientRequestHost,ClientRequestMethod,ClientRequestURI,EdgeEndTimestamp,EdgeResponseBytes,EdgeResponseStatus,EdgeStartTimestamp,RayID');
    assert.equal(s.filter, null);
    assert.equal(s.sample, 1);
    assert.match(s.destination_conf, /^ws:\/\/127\.0\.0\.1:\d+\/instant-logs\/ws\/sessions\/[0-9a-f]{32}$/);
  });

  it('records who made a session in the audit log, naming it without its address', async () => {
    const res = await t.call('POST', `/zones/${zone}/logexport/edge/jobs`, { body: { fields: 'RayID,ClientIP', sample: 10 } });
    assert.equal(res.status, 200, res.text);
    const sessionId: string = res.body.result.session_id;
    const listed = await t.call('GET', '/user/audit_logs?action.type=live_session.create');
    assert.equal(listed.status, 200, listed.text);
    const entry = listed.body.result.find((e: { newValue: string | null }) => e.newValue?.includes('RayID,ClientIP'));
    assert.ok(entry, 'the session has an entry');
    assert.equal(entry.actor.email, owner.email);
    assert.equal(entry.resource.type, 'logexport.live_session');
    assert.deepEqual(JSON.parse(entry.newValue), { fields: 'RayID,ClientIP', filter: null, sample: 10 });
    assert.ok(!JSON.stringify(listed.body.result).includes(sessionId), 'the session id (the viewer credential) is not in the audit log');
  });

  it('builds the address from the host the client called, wss behind a proxy that terminates TLS', async () => {
    const res = await t.call('POST', `/zones/${zone}/logpush/edge/jobs`, { body: { fields: 'RayID' }, headers: { 'x-forwarded-host': 'logs.example.net', 'x-forwarded-proto': 'https' } });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.result.destination_conf, /^wss:\/\/logs\.example\.net\/instant-logs\/ws\/sessions\/[0-9a-f]{32}$/);
  });

  const refusals: readonly { name: string; body: unknown; pointer: string; message: RegExp }[] = [
    { name: 'an unknown field', body: { fields: 'RayID,Colour' }, pointer: '/fields', message: /unknown field "Colour"/ },
    { name: 'a field in the wrong case', body: { fields: 'rayid' }, pointer: '/fields', message: /did you mean "RayID"/ },
    { name: 'a field named twice', body: { fields: 'RayID,RayID' }, pointer: '/fields', message: /named twice/ },
    { name: 'an empty entry', body: { fields: 'RayID,,ClientIP' }, pointer: '/fields', message: /entry 2 is empty/ },
    { name: 'fields that are not a string', body: { fields: ['RayID'] }, pointer: '/fields', message: /comma-separated/ },
    { name: 'sample 0', body: { sample: 0 }, pointer: '/sample', message: /whole number from 1/ },
    { name: 'a fractional sample', body: { sample: 1.5 }, pointer: '/sample', message: /whole number/ },
    { name: 'a sample given as a string', body: { sample: '10' }, pointer: '/sample', message: /got "10"/ },
    { name: 'a filter that is not JSON', body: { filter: '{' }, pointer: '/filter', message: /^filter: not valid JSON/ },
    { name: 'a filter on an object field', body: { filter: JSON.stringify({ where: { key: 'Cookies', operator: 'eq', value: 'x' } }) }, pointer: '/filter', message: /^filter \/where\/key: field "Cookies" is an object/ },
    { name: 'a filter over the size limit', body: { filter: JSON.stringify({ where: { key: 'ClientRequestPath', operator: 'eq', value: 'x'.repeat(1000) } }) }, pointer: '/filter', message: /at most 1000 bytes/ },
    { name: 'a filter object instead of a string', body: { filter: { where: {} } }, pointer: '/filter', message: /must be a string holding JSON/ },
    { name: 'an unknown key', body: { kind: 'edge' }, pointer: '/kind', message: /unknown key "kind"/ },
  ];
  for (const r of refusals) {
    it(`refuses ${r.name} with 400/1004 at ${r.pointer}, making nothing`, async () => {
      const before = (await t.call('GET', `/zones/${zone}/logexport/edge/jobs`)).body.result.length;
      const res = await t.call('POST', `/zones/${zone}/logexport/edge/jobs`, { body: r.body });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.errors[0].code, 1004);
      assert.equal(res.body.errors[0].source?.pointer, r.pointer, res.text);
      assert.match(res.body.errors[0].message, r.message);
      // Sessions made by earlier tests may expire meanwhile (the idle timeout is 700 ms); none may be added.
      assert.ok((await t.call('GET', `/zones/${zone}/logexport/edge/jobs`)).body.result.length <= before);
    });
  }

  it('names every problem of a body at once', async () => {
    const res = await t.call('POST', `/zones/${zone}/logexport/edge/jobs`, { body: { fields: 'Nope', sample: 0, filter: '[' } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors.map((e: { source?: { pointer: string } }) => e.source?.pointer), ['/fields', '/sample', '/filter']);
  });

  it('lets a logs:read token make and list sessions, and refuses ingest-only tokens, other zones and other users', async () => {
    const other = await t.zone(owner);
    const reader = await t.token(owner, [other], ['logs:read']);
    const made = await t.call('POST', `/zones/${other}/logpush/edge/jobs`, { body: { fields: 'RayID' }, auth: { token: reader } });
    assert.equal(made.status, 200, made.text);
    const listed = await t.call('GET', `/zones/${other}/logpush/edge/jobs`, { auth: { token: reader } });
    assert.deepEqual(listed.body.result.map((s: { session_id: string }) => s.session_id), [made.body.result.session_id]);
    assert.deepEqual(listed.body.result_info, { page: 1, per_page: 1, count: 1, total_count: 1, total_pages: 1 });

    const ingestOnly = await t.token(owner, [other], ['logs:ingest']);
    const refused = await t.call('POST', `/zones/${other}/logpush/edge/jobs`, { body: {}, auth: { token: ingestOnly } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errors[0].code, 10000);
    assert.equal((await t.call('GET', `/zones/${zone}/logpush/edge/jobs`, { auth: { token: reader } })).status, 403);

    const stranger = await t.user();
    const strange = await t.call('GET', `/zones/${other}/logpush/edge/jobs`, { auth: stranger });
    assert.equal(strange.status, 403);
    assert.equal((await t.call('POST', `/zones/${other}/logpush/edge/jobs`, { body: {}, auth: null })).status, 400);
  });

  it('limits the sessions of a zone, and expires those nobody connects to', async () => {
    // A node of its own with a longer idle timeout: on a busy machine, making three sessions can take longer
    // than the shared node's 700 ms, and the first would expire before the fourth is refused.
    const node = await startTestApp({ LOGEXPORT_WORKERS: '0', LOGEXPORT_LIVE_IDLE_TIMEOUT: '3s', LOGEXPORT_LIVE_MAX_SESSIONS: '3' });
    try {
      const user = await node.user();
      const z = await node.zone(user);
      for (let i = 0; i < 3; i++) assert.equal((await node.call('POST', `/zones/${z}/logexport/edge/jobs`, { body: {}, auth: user })).status, 200);
      const fourth = await node.call('POST', `/zones/${z}/logexport/edge/jobs`, { body: {}, auth: user });
      assert.equal(fourth.status, 403, fourth.text);
      assert.equal(fourth.body.errors[0].code, 1004);
      const stale = (await node.call('GET', `/zones/${z}/logexport/edge/jobs`, { auth: user })).body.result[0].destination_conf as string;
      const deadline = Date.now() + 15_000;
      while ((await node.call('GET', `/zones/${z}/logexport/edge/jobs`, { auth: user })).body.result.length > 0) {
        assert.ok(Date.now() < deadline, 'the sessions expired');
        await new Promise((r) => setTimeout(r, 100));
      }
      await assert.rejects(connectViewer(stale), /404/);
      assert.equal((await node.call('POST', `/zones/${z}/logexport/edge/jobs`, { body: {}, auth: user })).status, 200);
    } finally {
      await node.stop();
    }
  });

  it('keeps a watched session alive past the idle timeout, and expires it once the viewer leaves', async () => {
    const z = await t.zone(owner);
    const made = (await t.call('POST', `/zones/${z}/logexport/edge/jobs`, { body: {} })).body.result;
    const viewer = await connectViewer(made.destination_conf);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await t.call('GET', `/zones/${z}/logexport/edge/jobs`)).body.result.length, 1);
    await viewer.close();
    const deadline = Date.now() + 5000;
    while ((await t.call('GET', `/zones/${z}/logexport/edge/jobs`)).body.result.length > 0) {
      assert.ok(Date.now() < deadline, 'the session expired');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it('tells a viewer the node is stopping (1001) when the node shuts down', async () => {
    const node = await startTestApp({ LOGEXPORT_WORKERS: '0' });
    try {
      const user = await node.user();
      const z = await node.zone(user);
      const made = await node.call('POST', `/zones/${z}/logexport/edge/jobs`, { body: {}, auth: user });
      assert.equal(made.status, 200, made.text);
      const viewer = await connectViewer(made.body.result.destination_conf);
      const closed = new Promise<{ code: number; reason: string }>((resolve) => viewer.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
      await node.stop();
      assert.deepEqual(await closed, { code: 1001, reason: 'the node is stopping' });
    } finally {
      await node.stop();
    }
  });
});
