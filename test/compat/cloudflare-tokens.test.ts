/**
 * API tokens users manage, driven by the official `cloudflare` npm client against a real node:
 * `user.tokens.{create, list, get, update, delete, verify}`, `user.tokens.value.update` (roll) and
 * `user.tokens.permissionGroups.list`. A revoked, disabled, rolled-away or expired token is refused at once,
 * every live viewer it opened is closed within 5 s, and each change is in the audit log.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Cloudflare from 'cloudflare';
import type { WebSocket } from 'ws';
import { permissionGroups } from '../../src/accounts/permission-groups.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { connectViewer } from '../support/live-viewer.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const group = (permission: string) => {
  const found = permissionGroups.find((g) => g.permission === permission);
  if (found === undefined) throw new Error(permission);
  return { id: found.id };
};
const zoneResource = (zoneId: string) => ({ [`com.cloudflare.api.account.zone.${zoneId}`]: '*' });

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const found: T[] = [];
  for await (const item of items) found.push(item);
  return found;
}

/** Resolves with the close code and reason once the socket closes, or rejects after `ms`. */
function closedWithin(socket: WebSocket, ms: number): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the viewer was not closed within ${ms} ms`)), ms);
    socket.once('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString('utf8') });
    });
  });
}

describe('API tokens through the official client', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };
  let other: { email: string; key: string; userId: string };
  let zoneA: string;
  let zoneB: string;
  let client: Cloudflare;
  const clock = new ManualClock(Date.parse('2026-06-01T00:00:00Z'));

  before(async () => {
    t = await startTestApp({ LOGEXPORT_WORKERS: '0' }, { clock });
    owner = await t.user('tokens-owner@example.com');
    other = await t.user('tokens-other@example.com');
    zoneA = await t.zone(owner, 'a.tokens.example');
    zoneB = await t.zone(owner, 'b.tokens.example');
    client = new Cloudflare({ baseURL: t.baseUrl, apiEmail: owner.email, apiKey: owner.key, maxRetries: 0 });
  });
  after(async () => t.stop());

  const asToken = (value: string) => new Cloudflare({ baseURL: t.baseUrl, apiToken: value, maxRetries: 0 });

  it('lists the three permission groups', async () => {
    const groups = await collect(client.user.tokens.permissionGroups.list());
    assert.deepEqual(
      groups.map((g) => g.name),
      ['Logs Read', 'Logs Write', 'Logs Ingest'],
    );
  });

  it('creates a token scoped to zones and permissions, shows its value once, and the token works as scoped', async () => {
    const created = await client.user.tokens.create({
      name: 'ci reader',
      policies: [
        { effect: 'allow', permission_groups: [group('logs:read')], resources: zoneResource(zoneA) },
        { effect: 'allow', permission_groups: [group('logs:ingest')], resources: zoneResource(zoneB) },
      ],
    });
    assert.match(created.id ?? '', /^[0-9a-f]{32}$/);
    assert.equal(created.status, 'active');
    assert.match(created.value ?? '', /^[A-Za-z0-9_-]{40}$/);
    assert.deepEqual(
      created.policies?.map((p) => [p.effect, p.permission_groups.map((g) => g.name), Object.keys(p.resources)]),
      [
        ['allow', ['Logs Read'], [`com.cloudflare.api.account.zone.${zoneA}`]],
        ['allow', ['Logs Ingest'], [`com.cloudflare.api.account.zone.${zoneB}`]],
      ],
    );
    const got = await client.user.tokens.get(created.id ?? '');
    assert.equal((got as { value?: string }).value, undefined, 'the value is shown once');
    assert.equal(got.name, 'ci reader');

    const value = created.value ?? '';
    const verified = await asToken(value).user.tokens.verify();
    assert.deepEqual(verified, { id: created.id, status: 'active' });
    assert.equal((await t.call('GET', `/zones/${zoneA}/logpush/jobs`, { auth: { token: value } })).status, 200);
    assert.equal((await t.call('GET', `/zones/${zoneB}/logpush/jobs`, { auth: { token: value } })).status, 403, 'ingest only on zone B');
    const ingest = await fetch(`${t.app.url}/ingest/zones/${zoneB}/http_requests`, { method: 'POST', headers: { authorization: `Bearer ${value}` }, body: '{"RayID":"r1"}\n' });
    assert.equal(ingest.status, 200);
    const listed = await collect(client.user.tokens.list());
    assert.deepEqual(
      listed.map((tok) => tok.name),
      ['ci reader'],
    );
  });

  it('refuses what logexport cannot honour with a 400 naming it, and changes nothing', async () => {
    const bad: { body: unknown; pointer: string; message: RegExp }[] = [
      { body: { name: 'x', policies: [{ effect: 'deny', permission_groups: [group('logs:read')], resources: zoneResource(zoneA) }] }, pointer: '/policies/0/effect', message: /cannot honour deny/ },
      { body: { name: 'x', policies: [{ effect: 'allow', permission_groups: [{ id: 'c8fed203ed3043cba015a93ad1616f1f' }], resources: zoneResource(zoneA) }] }, pointer: '/policies/0/permission_groups/0/id', message: /unknown permission group/ },
      { body: { name: 'x', policies: [{ effect: 'allow', permission_groups: [group('logs:read')], resources: { 'com.cloudflare.api.account.*': '*' } }] }, pointer: '/policies/0/resources/com.cloudflare.api.account.*', message: /scoped to zones named one by one/ },
      { body: { name: 'x', policies: [{ effect: 'allow', permission_groups: [group('logs:read')], resources: zoneResource(zoneA) }], condition: { request_ip: { in: ['192.0.2.0/24'] } } }, pointer: '/condition', message: /client address/ },
      { body: { name: '', policies: [] }, pointer: '/name', message: /name must be/ },
      { body: { name: 'x', policies: [{ effect: 'allow', permission_groups: [group('logs:read')], resources: zoneResource('f'.repeat(32)) }] }, pointer: '/policies/0/resources', message: /does not belong to this user/ },
    ];
    for (const { body, pointer, message } of bad) {
      const res = await t.call('POST', '/user/tokens', { auth: owner, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      const error = res.body.errors.find((e: { source?: { pointer?: string } }) => e.source?.pointer === pointer);
      assert.ok(error, `${JSON.stringify(res.body.errors)} names ${pointer}`);
      assert.match(error.message, message);
    }
    await assert.rejects(client.user.tokens.create({ name: 'x', policies: [{ effect: 'deny', permission_groups: [group('logs:read')], resources: zoneResource(zoneA) }] }), (error: unknown) => error instanceof Cloudflare.BadRequestError);
    assert.equal((await collect(client.user.tokens.list())).length, 1);
  });

  it("never shows or changes another user's tokens, and a token cannot manage tokens", async () => {
    const [mine] = await collect(client.user.tokens.list());
    const stranger = new Cloudflare({ baseURL: t.baseUrl, apiEmail: other.email, apiKey: other.key, maxRetries: 0 });
    await assert.rejects(stranger.user.tokens.get(mine?.id ?? ''), (error: unknown) => error instanceof Cloudflare.NotFoundError);
    await assert.rejects(stranger.user.tokens.delete(mine?.id ?? ''), (error: unknown) => error instanceof Cloudflare.NotFoundError);
    assert.deepEqual(await collect(stranger.user.tokens.list()), []);
    const value = (await client.user.tokens.create({ name: 'no admin', policies: [{ effect: 'allow', permission_groups: [group('logs:edit')], resources: zoneResource(zoneA) }] })).value ?? '';
    await assert.rejects(asToken(value).user.tokens.list().then(collect), (error: unknown) => error instanceof Cloudflare.PermissionDeniedError);
  });

  it('updates a token (name, grants, status), and a disabled token is refused at once', async () => {
    const created = await client.user.tokens.create({ name: 'editor', policies: [{ effect: 'allow', permission_groups: [group('logs:edit')], resources: zoneResource(zoneA) }] });
    const value = created.value ?? '';
    assert.equal((await t.call('GET', `/zones/${zoneA}/logpush/jobs`, { auth: { token: value } })).status, 200);
    const updated = await client.user.tokens.update(created.id ?? '', {
      name: 'editor (B)',
      policies: [{ effect: 'allow', permission_groups: [group('logs:edit')], resources: zoneResource(zoneB) }],
    });
    assert.equal(updated.name, 'editor (B)');
    assert.equal((await t.call('GET', `/zones/${zoneA}/logpush/jobs`, { auth: { token: value } })).status, 403, 'zone A is no longer granted');
    assert.equal((await t.call('GET', `/zones/${zoneB}/logpush/jobs`, { auth: { token: value } })).status, 200);
    await client.user.tokens.update(created.id ?? '', { name: 'editor (B)', policies: [{ effect: 'allow', permission_groups: [group('logs:edit')], resources: zoneResource(zoneB) }], status: 'disabled' });
    const refused = await t.call('GET', `/zones/${zoneB}/logpush/jobs`, { auth: { token: value } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errors[0].code, 9109);
    assert.equal((await client.user.tokens.get(created.id ?? '')).status, 'disabled');
  });

  it('rolls a token: the new value works, the old one is refused at once', async () => {
    const created = await client.user.tokens.create({ name: 'rolled', policies: [{ effect: 'allow', permission_groups: [group('logs:read')], resources: zoneResource(zoneA) }] });
    const fresh = await client.user.tokens.value.update(created.id ?? '');
    assert.match(fresh, /^[A-Za-z0-9_-]{40}$/);
    assert.notEqual(fresh, created.value);
    assert.equal((await t.call('GET', `/zones/${zoneA}/logpush/jobs`, { auth: { token: created.value ?? '' } })).status, 403);
    assert.equal((await t.call('GET', `/zones/${zoneA}/logpush/jobs`, { auth: { token: fresh } })).status, 200);
  });

  it('refuses a token before not_before and from expires_on, and lists expired tokens only when asked', async () => {
    const created = await client.user.tokens.create({
      name: 'window',
      not_before: '2026-06-01T01:00:00Z',
      expires_on: '2026-06-01T02:00:00Z',
      policies: [{ effect: 'allow', permission_groups: [group('logs:read')], resources: zoneResource(zoneA) }],
    });
    assert.equal(created.expires_on, '2026-06-01T02:00:00Z');
    const value = created.value ?? '';
    const jobs = () => t.call('GET', `/zones/${zoneA}/logpush/jobs`, { auth: { token: value } });
    assert.equal((await jobs()).status, 403, 'not yet');
    clock.advance(3_600_000);
    assert.equal((await jobs()).status, 200);
    clock.advance(3_600_000);
    assert.equal((await jobs()).status, 403, 'expired');
    assert.equal((await client.user.tokens.get(created.id ?? '')).status, 'expired');
    assert.ok(!(await collect(client.user.tokens.list())).some((tok) => tok.id === created.id));
    assert.ok((await collect(client.user.tokens.list({ include_expired: true }))).some((tok) => tok.id === created.id));
  });

  it('revokes a token: refused at once, and the live viewer it opened is closed within 5 s', async () => {
    const created = await client.user.tokens.create({ name: 'viewer', policies: [{ effect: 'allow', permission_groups: [group('logs:read')], resources: zoneResource(zoneA) }] });
    const value = created.value ?? '';
    const session = await asToken(value).logpush.edge.create({ zone_id: zoneA, fields: 'RayID', sample: 1 });
    const viewer = await connectViewer(session?.destination_conf ?? '');
    const closed = closedWithin(viewer.socket, 5000);
    const deleted = await client.user.tokens.delete(created.id ?? '');
    assert.deepEqual(deleted, { id: created.id });
    const refused = await t.call('GET', `/zones/${zoneA}/logpush/jobs`, { auth: { token: value } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errors[0].code, 9109);
    const { code, reason } = await closed;
    assert.equal(code, 4403);
    assert.match(reason, /revoked/);
    await assert.rejects(connectViewer(session?.destination_conf ?? ''), /404/);
  });

  it('records each change in the audit log, never the value', async () => {
    const entries = await collect(client.user.auditLogs.list({ per_page: 100 } as Parameters<typeof client.user.auditLogs.list>[0]));
    const actions = new Set(entries.map((e) => e.action?.type));
    for (const action of ['token.create', 'token.update', 'token.roll', 'token.delete']) assert.ok(actions.has(action), action);
    const text = JSON.stringify(entries);
    assert.doesNotMatch(text, /"value"/);
  });
});
