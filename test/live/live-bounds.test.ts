/**
 * Bounded live streams (issue 23): at most LOGEXPORT_LIVE_MAX_VIEWERS viewers per session and per zone, one
 * more closed at once with 4429 and a reason; what ingest keeps is handed over in one publish and fanned out
 * later, never on the request's own turn; and a token revoked on one node closes the viewers it opened on
 * another within 5 s, both sharing one PostgreSQL store.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/core/clock.ts';
import { EmbeddedLiveBus } from '../../src/live/embedded-live-bus.ts';
import { LiveHub, type ViewerSocket } from '../../src/live/live-hub.ts';
import type { LiveOwner } from '../../src/live/live-session.ts';
import { connectViewer } from '../support/live-viewer.ts';
import { serverAvailable } from '../support/services.ts';
import { createPostgresDatabase } from '../support/stores.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/** A viewer socket that records what it was sent and how it was closed. */
function fakeSocket() {
  const sent: string[] = [];
  const closed: { code: number; reason: string }[] = [];
  const socket: ViewerSocket = {
    send: (text, done) => {
      sent.push(text);
      done(null);
    },
    bufferedAmount: () => 0,
    close: (code, reason) => closed.push({ code, reason }),
  };
  return { socket, sent, closed };
}

const owner: LiveOwner = { kind: 'user', userId: 'u' };
const input = { fields: 'RayID', fieldNames: ['RayID'], filter: null, sample: 1 };

function hub(mayWatch: () => Promise<boolean> = async () => true) {
  return new LiveHub({
    bus: new EmbeddedLiveBus(),
    nodeId: 'n1',
    clock: new ManualClock(0),
    bufferRecords: 100,
    idleTimeoutMs: 60_000,
    maxSessionsPerZone: 16,
    maxViewers: 3,
    mayWatch,
    tickMs: 3_600_000,
  });
}

describe('the viewer bounds of a live hub', () => {
  it('closes the viewer past the bound of a session with 4429 and says why, keeping nothing of it', async () => {
    const live = hub();
    await live.start();
    try {
      const session = live.create('z1', 'http_requests', input, owner);
      const admitted = [fakeSocket(), fakeSocket(), fakeSocket()].map((s) => live.attach(session, s.socket));
      assert.ok(admitted.every((v) => v !== undefined));
      const refused = Array.from({ length: 50 }, () => fakeSocket());
      for (const s of refused) assert.equal(live.attach(session, s.socket), undefined);
      for (const s of refused) assert.deepEqual(s.closed, [{ code: 4429, reason: 'too many viewers: this session has 3, the most allowed (LOGEXPORT_LIVE_MAX_VIEWERS)' }]);
      const left = admitted[0];
      if (left !== undefined) live.detach(left);
      assert.ok(live.attach(session, fakeSocket().socket) !== undefined, 'a place freed is taken again');
    } finally {
      await live.close();
    }
  });

  it("counts every session of a zone against the zone's bound, and no other zone's", async () => {
    const live = hub();
    await live.start();
    try {
      const first = live.create('z1', 'http_requests', input, owner);
      const second = live.create('z1', 'http_requests', input, owner);
      const elsewhere = live.create('z2', 'http_requests', input, owner);
      live.attach(first, fakeSocket().socket);
      live.attach(first, fakeSocket().socket);
      live.attach(second, fakeSocket().socket);
      const refused = fakeSocket();
      assert.equal(live.attach(second, refused.socket), undefined);
      assert.match(refused.closed[0]?.reason ?? '', /this zone has 3/);
      assert.ok(live.attach(elsewhere, fakeSocket().socket) !== undefined);
    } finally {
      await live.close();
    }
  });

  it('takes what a request kept in one publish and feeds the viewers on a later turn, never on the request’s own', async () => {
    const live = hub();
    await live.start();
    try {
      const session = live.create('z1', 'http_requests', input, owner);
      const viewers = [fakeSocket(), fakeSocket(), fakeSocket()];
      for (const v of viewers) live.attach(session, v.socket);
      live.deliver('z1', [{ sessionId: session.id, lines: ['{"RayID":"a"}', '{"RayID":"b"}'], events: 2, filteredOut: 0, sampledOut: 0, overflow: 0 }]);
      // Still on the request's turn: no viewer was touched.
      assert.deepEqual(viewers.map((v) => v.sent.length), [0, 0, 0]);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(viewers.map((v) => v.sent), viewers.map(() => ['{"RayID":"a"}', '{"RayID":"b"}']));
    } finally {
      await live.close();
    }
  });

  it('closes the viewers of a session whose credential may no longer read the zone with 4403', async () => {
    let allowed = true;
    const live = hub(async () => allowed);
    await live.start();
    try {
      const session = live.create('z1', 'http_requests', input, owner);
      const viewer = fakeSocket();
      live.attach(session, viewer.socket);
      await live.recheckOwners();
      assert.equal(viewer.closed.length, 0);
      allowed = false;
      await live.recheckOwners();
      assert.equal(viewer.closed[0]?.code, 4403);
      assert.equal(live.find(session.id), undefined, 'the session is gone');
    } finally {
      await live.close();
    }
  });
});

describe('viewer bounds over a real WebSocket', () => {
  let t: TestApp;
  let user: { email: string; key: string; userId: string };
  let zone: string;

  before(async () => {
    t = await startTestApp({ LOGEXPORT_LIVE_MAX_VIEWERS: '2', LOGEXPORT_WORKERS: '0' });
    user = await t.user();
    zone = await t.zone(user);
  });
  after(async () => t.stop());

  it('admits two viewers and closes the third with 4429 and the reason, while the two keep receiving', async () => {
    const made = await t.call('POST', `/zones/${zone}/logexport/edge/jobs`, { body: { fields: 'RayID' } });
    const url = made.body.result.destination_conf as string;
    const first = await connectViewer(url);
    const second = await connectViewer(url);
    const third = await connectViewer(url);
    const closed = await new Promise<{ code: number; reason: string }>((resolve) => third.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    assert.equal(closed.code, 4429);
    assert.match(closed.reason, /too many viewers: this session has 2/);
    const res = await fetch(`${t.app.url}/ingest/zones/${zone}/http_requests`, { method: 'POST', headers: { 'x-auth-email': user.email, 'x-auth-key': user.key }, body: '{"RayID":"x1"}\n' });
    assert.equal(res.status, 200);
    await first.until('a record', () => first.records.length === 1);
    await second.until('a record', () => second.records.length === 1);
    await Promise.all([first.close(), second.close()]);
  });
});

const postgresReady = await serverAvailable('PostgreSQL', '127.0.0.1', 5432);

describe('a token revoked on one node, with a viewer on another (shared PostgreSQL)', { skip: !postgresReady }, () => {
  let one: TestApp;
  let two: TestApp;
  let drop: () => Promise<void> = async () => {};

  before(async () => {
    const database = await createPostgresDatabase('live');
    drop = database.drop;
    const env = { LOGEXPORT_DATABASE_URL: database.url, LOGEXPORT_SECRET: 'a shared node secret, 32 chars!!', LOGEXPORT_WORKERS: '0' };
    one = await startTestApp(env, { configPollMs: 100 });
    two = await startTestApp(env, { configPollMs: 100 });
  });
  after(async () => {
    await two?.stop();
    await one?.stop();
    await drop();
  });

  it('is refused by the other node and its viewer there is closed within 5 s', async () => {
    const user = await one.user('two-nodes@example.com');
    const zone = await one.zone(user, 'live.two-nodes.example');
    const token = await one.token(user, [zone], ['logs:read']);
    // The other node reads (and caches) the token, and hosts the session and its viewer.
    assert.equal((await two.call('GET', `/zones/${zone}/logpush/jobs`, { auth: { token } })).status, 200);
    const made = await two.call('POST', `/zones/${zone}/logexport/edge/jobs`, { auth: { token }, body: { fields: 'RayID' } });
    assert.equal(made.status, 200, made.text);
    const viewer = await connectViewer(made.body.result.destination_conf as string);
    const closed = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the viewer on the other node was not closed within 5 s')), 5000);
      viewer.socket.once('close', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    const id = (await one.call('GET', '/user/tokens', { auth: user })).body.result[0].id as string;
    assert.equal((await one.call('DELETE', `/user/tokens/${id}`, { auth: user })).status, 200);
    assert.equal(await closed, 4403);
    const refused = await two.call('GET', `/zones/${zone}/logpush/jobs`, { auth: { token } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errors[0].code, 9109);
  });
});
