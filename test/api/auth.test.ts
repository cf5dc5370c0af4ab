import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { zoneRoutes } from './zone-routes.ts';

describe('authentication', () => {
  let t: TestApp;
  let alice: { email: string; key: string; userId: string };
  let zone: string;

  before(async () => {
    t = await startTestApp();
    alice = await t.user();
    zone = await t.zone(alice);
  });
  after(async () => t.stop());

  const cases: { name: string; headers: Record<string, string>; status: number; code: number; chain?: number }[] = [
    { name: 'no credentials', headers: {}, status: 400, code: 9106 },
    { name: 'an e-mail without a key', headers: { 'x-auth-email': 'a@example.com' }, status: 400, code: 9106 },
    { name: 'a malformed e-mail', headers: { 'x-auth-email': 'nope', 'x-auth-key': 'a'.repeat(37) }, status: 400, code: 6003, chain: 6102 },
    { name: 'a malformed key', headers: { 'x-auth-email': 'a@example.com', 'x-auth-key': 'short' }, status: 400, code: 6003, chain: 6103 },
    { name: 'a malformed Authorization header', headers: { authorization: 'Basic abc' }, status: 400, code: 6003, chain: 6111 },
    { name: 'an unknown key', headers: { 'x-auth-email': 'a@example.com', 'x-auth-key': 'a'.repeat(37) }, status: 403, code: 9103 },
    { name: 'an unknown token', headers: { authorization: `Bearer ${'A'.repeat(40)}` }, status: 403, code: 9109 },
  ];
  for (const c of cases) {
    it(`answers ${c.name} with ${c.status} / ${c.code}`, async () => {
      const res = await t.call('GET', `/zones/${zone}/rulesets`, { auth: { headers: c.headers } });
      assert.equal(res.status, c.status);
      assert.equal(res.body.success, false);
      assert.equal(res.body.result, null);
      assert.equal(res.body.errors[0].code, c.code);
      if (c.chain !== undefined) assert.equal(res.body.errors[0].error_chain[0].code, c.chain);
    });
  }

  it('answers a known key with the wrong e-mail with 403 / 9103', async () => {
    const res = await t.call('GET', '/zones', { auth: { email: 'someone@example.com', key: alice.key } });
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 9103);
  });

  it('lets the global key list, create and read the user’s zones', async () => {
    const created = await t.call('POST', '/zones', { body: { name: 'Created.Example.COM' } });
    assert.equal(created.status, 200);
    assert.equal(created.body.result.name, 'created.example.com');
    assert.match(created.body.result.id, /^[0-9a-f]{32}$/);
    const list = await t.call('GET', '/zones');
    assert.ok(list.body.result.some((z: { id: string }) => z.id === created.body.result.id));
    const byName = await t.call('GET', '/zones?name=created.example.com');
    assert.equal(byName.body.result.length, 1);
    const one = await t.call('GET', `/zones/${created.body.result.id}`);
    assert.equal(one.body.result.name, 'created.example.com');
    const duplicate = await t.call('POST', '/zones', { body: { name: 'created.example.com' } });
    assert.equal(duplicate.status, 400);
    assert.equal(duplicate.body.errors[0].code, 1061);
    const bad = await t.call('POST', '/zones', { body: { name: 'not a domain' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].source.pointer, '/name');
  });

  it('does not let a token create zones, and lists only the token’s zones', async () => {
    const other = await t.zone(alice);
    const token = await t.token(alice, [zone], ['logs:edit']);
    const created = await t.call('POST', '/zones', { auth: { token }, body: { name: 'token.example.com' } });
    assert.equal(created.status, 403);
    const list = await t.call('GET', '/zones', { auth: { token } });
    assert.deepEqual(list.body.result.map((z: { id: string }) => z.id), [zone]);
    assert.ok(other);
  });
});

describe('zone isolation', () => {
  let t: TestApp;
  let zone: string;
  let strangerKey: { email: string; key: string };
  let otherZoneToken: string;
  let readToken: string;
  let ingestToken: string;
  let editToken: string;

  before(async () => {
    t = await startTestApp();
    const owner = await t.user();
    zone = await t.zone(owner);
    const otherZone = await t.zone(owner);
    const stranger = await t.user();
    await t.zone(stranger);
    strangerKey = stranger;
    otherZoneToken = await t.token(owner, [otherZone], ['logs:edit', 'logs:read', 'logs:ingest']);
    readToken = await t.token(owner, [zone], ['logs:read']);
    ingestToken = await t.token(owner, [zone], ['logs:ingest']);
    editToken = await t.token(owner, [zone], ['logs:edit']);
  });
  after(async () => t.stop());

  for (const route of zoneRoutes) {
    const label = `${route.method} ${route.path.replace(/^\/zones\/Z/, '/zones/{zone}')}`;
    it(`refuses ${label} to another user's key, a token for another zone, and a zone that does not exist`, async () => {
      const path = route.path.replace('/zones/Z', `/zones/${zone}`);
      for (const auth of [strangerKey, { token: otherZoneToken }]) {
        const res = await t.call(route.method, path, { auth, ...(route.body === undefined ? {} : { body: route.body }) });
        assert.equal(res.status, 403, `${label}: ${res.text}`);
        assert.equal(res.body.errors[0].code, 10000);
      }
      const missing = await t.call(route.method, route.path.replace('/zones/Z', `/zones/${'0'.repeat(32)}`), {
        auth: strangerKey,
        ...(route.body === undefined ? {} : { body: route.body }),
      });
      assert.equal(missing.status, 403);
      assert.equal(missing.body.errors[0].code, 10000);
    });

    it(`lets ${label} through only with the ${route.access === 'read' ? 'logs:read or logs:edit' : 'logs:edit'} permission`, async () => {
      const path = route.path.replace('/zones/Z', `/zones/${zone}`);
      const options = route.body === undefined ? {} : { body: route.body };
      const ingest = await t.call(route.method, `${path}?dry_run=true`, { auth: { token: ingestToken }, ...options });
      assert.equal(ingest.status, 403, `${label} with logs:ingest`);
      const read = await t.call(route.method, `${path}?dry_run=true`, { auth: { token: readToken }, ...options });
      if (route.access === 'read') assert.notEqual(read.status, 403, `${label} with logs:read: ${read.text}`);
      else assert.equal(read.status, 403, `${label} with logs:read`);
      const edit = await t.call(route.method, `${path}?dry_run=true`, { auth: { token: editToken }, ...options });
      assert.notEqual(edit.status, 403, `${label} with logs:edit: ${edit.text}`);
    });
  }
});
