import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const metricsToken = 'metrics-token-0123456789abcdef';

describe('/metrics with LOGEXPORT_METRICS_TOKEN', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ LOGEXPORT_METRICS_TOKEN: metricsToken });
  });
  after(async () => t.stop());

  it('refuses a request without the token with 401 in the v4 envelope', async () => {
    const res = await t.call('GET', `${t.app.url}/metrics`, { auth: null });
    assert.equal(res.status, 401);
    assert.equal(res.body.success, false);
    assert.equal(res.body.errors[0].code, 12401);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
  });

  it('refuses a wrong token, and a token of the same length that differs', async () => {
    for (const token of ['wrong', metricsToken.replace(/.$/, 'x')]) {
      const res = await t.call('GET', `${t.app.url}/metrics`, { auth: { token } });
      assert.equal(res.status, 401);
    }
  });

  it('answers the Prometheus text with the token', async () => {
    const res = await t.call('GET', `${t.app.url}/metrics`, { auth: { token: metricsToken } });
    assert.equal(res.status, 200);
    assert.match(res.text, /# TYPE logexport_queue_pending_bytes gauge/);
  });
});

describe('/metrics without a token', () => {
  it('stays open, as before', async () => {
    const t = await startTestApp();
    try {
      const res = await t.call('GET', `${t.app.url}/metrics`, { auth: null });
      assert.equal(res.status, 200);
    } finally {
      await t.stop();
    }
  });
});

async function signIn(t: TestApp, headers: Record<string, string> = {}): Promise<string> {
  const res = await t.call('POST', '/session', { auth: null, body: { email: 'cookie@example.com', password: 'correct horse battery' }, headers });
  assert.equal(res.status, 200, res.text);
  return res.headers.get('set-cookie') ?? '';
}

describe('the session cookie behind a proxy', () => {
  it('is not Secure over plain HTTP, and ignores X-Forwarded-Proto when no proxy is trusted', async () => {
    const t = await startTestApp();
    try {
      await t.user('cookie@example.com', 'correct horse battery');
      assert.doesNotMatch(await signIn(t), /Secure/);
      assert.doesNotMatch(await signIn(t, { 'x-forwarded-proto': 'https' }), /Secure/);
    } finally {
      await t.stop();
    }
  });

  it('is Secure when a trusted proxy says the request came over TLS', async () => {
    const t = await startTestApp({ LOGEXPORT_TRUST_PROXY: '127.0.0.1' });
    try {
      await t.user('cookie@example.com', 'correct horse battery');
      const cookie = await signIn(t, { 'x-forwarded-proto': 'https' });
      assert.match(cookie, /; Secure/);
      assert.match(cookie, /HttpOnly; SameSite=Strict/);
      assert.doesNotMatch(await signIn(t, { 'x-forwarded-proto': 'http' }), /Secure/);
    } finally {
      await t.stop();
    }
  });
});

describe('the client address behind trusted proxies', () => {
  // What a reverse proxy sends on: the client's own X-Forwarded-For, with the address the proxy saw appended.
  const forged = (i: number) => ({ 'x-forwarded-for': `9.9.9.${i}, 127.0.0.1, 203.0.113.7` });

  for (const trust of ['127.0.0.1', '10.0.0.0/8,127.0.0.0/8', '1']) {
    it(`is the right-most untrusted address with LOGEXPORT_TRUST_PROXY=${trust}: forged entries on the left change nothing`, async () => {
      const t = await startTestApp({ LOGEXPORT_TRUST_PROXY: trust, LOGEXPORT_AUTH_FAILURES_PER_MINUTE: '10' });
      try {
        const owner = await t.user('proxied@example.com', 'correct horse battery');
        const statuses: number[] = [];
        for (let i = 1; i <= 12; i++) statuses.push((await t.call('GET', '/zones', { auth: { token: 'B'.repeat(40) }, headers: forged(i) })).status);
        assert.deepEqual(statuses, [...Array<number>(10).fill(403), 429, 429]);
        const res = await t.call('POST', '/session', { auth: null, body: { email: owner.email, password: 'wrong password' }, headers: forged(99) });
        assert.equal(res.status, 401);
        const audit = await t.call('GET', '/user/audit_logs?action.type=session.create', { auth: owner });
        assert.equal(audit.body.result[0].actor.ip, '203.0.113.7');
      } finally {
        await t.stop();
      }
    });
  }
});
