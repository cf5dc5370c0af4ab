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
