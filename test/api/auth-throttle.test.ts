import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/core/clock.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const password = 'correct horse battery';

describe('throttling of failed sign-ins', () => {
  let t: TestApp;
  let victim: { email: string; key: string };
  const clock = new ManualClock(Date.now());

  before(async () => {
    t = await startTestApp({ LOGEXPORT_TRUST_PROXY: '127.0.0.1' }, { clock });
    victim = await t.user('victim@example.com', password);
    await t.user('other@example.com', password);
  });
  after(async () => t.stop());

  const signIn = (email: string, pass: string, ip?: string) =>
    t.call('POST', '/session', { auth: null, body: { email, password: pass }, ...(ip === undefined ? {} : { headers: { 'x-forwarded-for': ip } }) });

  it('answers ten wrong passwords in a minute with 401, and the 11th with 429, Retry-After and the v4 envelope', async () => {
    for (let i = 1; i <= 10; i++) {
      const res = await signIn('victim@example.com', `wrong ${i}`);
      assert.equal(res.status, 401, `attempt ${i}`);
    }
    const refused = await signIn('victim@example.com', 'wrong 11');
    assert.equal(refused.status, 429);
    assert.equal(refused.body.success, false);
    assert.equal(refused.body.result, null);
    assert.equal(refused.body.errors[0].code, 10429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  });

  it('refuses even the right password until the window ends, so guessing gains nothing', async () => {
    assert.equal((await signIn('victim@example.com', password)).status, 429);
  });

  it('lets the account sign in once the minute is over, and a success clears the account’s count', async () => {
    clock.advance(61_000);
    assert.equal((await signIn('victim@example.com', password)).status, 200);
    // From changing addresses, so only the account's count matters here.
    for (let i = 1; i <= 5; i++) assert.equal((await signIn('victim@example.com', 'wrong', `192.0.2.${i}`)).status, 401);
    assert.equal((await signIn('victim@example.com', password, '192.0.2.100')).status, 200);
    for (let i = 1; i <= 10; i++) assert.equal((await signIn('victim@example.com', 'wrong', `192.0.2.${10 + i}`)).status, 401, `attempt ${i} after the success`);
    assert.equal((await signIn('victim@example.com', 'wrong', '192.0.2.50')).status, 429);
    clock.advance(61_000);
  });

  it('counts guesses sent all at once: past the tenth, none is checked', async () => {
    clock.advance(61_000);
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn('victim@example.com', `wrong ${i}`, '192.0.2.200')));
    const statuses = burst.map((res) => res.status);
    assert.equal(statuses.filter((s) => s === 401).length, 10, statuses.join(' '));
    assert.equal(statuses.filter((s) => s === 429).length, 20, statuses.join(' '));
    // Only checked passwords leave a failed sign-in in the audit log: ten, not thirty.
    const failed = await t.call('GET', '/user/audit_logs?action.type=session.create&actor.ip=192.0.2.200', { auth: victim });
    assert.equal(failed.status, 200);
    assert.equal(failed.body.result_info.total_count, 10, 'failed sign-ins recorded');
    assert.equal((await signIn('victim@example.com', password, '192.0.2.200')).status, 429, 'nor is the right password, until the window ends');
    clock.advance(61_000);
  });

  it('does not count successful sign-ins against the client address', async () => {
    clock.advance(61_000);
    for (let i = 1; i <= 12; i++) assert.equal((await signIn('other@example.com', password, '192.0.2.201')).status, 200, `sign-in ${i}`);
    assert.equal((await signIn('other@example.com', 'wrong', '192.0.2.201')).status, 401);
  });

  it("keeps counting an account's wrong passwords while its owner's global key is in use", async () => {
    clock.advance(61_000);
    let refused = 0;
    // Nine guesses, one request with the victim's key, nine more… : the key's success must not clear them.
    for (let round = 0; round < 4; round++) {
      for (let i = 1; i <= 9; i++) {
        const res = await signIn('victim@example.com', `guess ${round}-${i}`, `198.51.100.${round * 10 + i}`);
        if (res.status === 429) refused++;
        else assert.equal(res.status, 401);
      }
      assert.equal((await t.call('GET', '/zones', { auth: victim })).status, 200, 'the key keeps working');
    }
    assert.equal(refused, 36 - 10, 'only ten of the 36 guesses were checked');
    clock.advance(61_000);
  });

  it("does not let a wrong key's failures lock the account's dashboard sign-in, nor the reverse", async () => {
    clock.advance(61_000);
    for (let i = 1; i <= 10; i++) {
      const res = await t.call('GET', '/zones', { auth: { email: 'victim@example.com', key: 'c'.repeat(37) }, headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      assert.equal(res.status, 403);
    }
    assert.equal((await signIn('victim@example.com', password, '203.0.113.99')).status, 200);
    clock.advance(61_000);
  });

  it('counts per client address too: one address trying many accounts is stopped', async () => {
    clock.advance(61_000);
    for (let i = 1; i <= 10; i++) assert.equal((await signIn(`nobody${i}@example.com`, 'wrong')).status, 401);
    assert.equal((await signIn('other@example.com', 'wrong')).status, 429);
    clock.advance(61_000);
  });
});

describe('throttling of failed API key and token checks', () => {
  let t: TestApp;
  let user: { email: string; key: string; userId: string };

  before(async () => {
    t = await startTestApp({ LOGEXPORT_AUTH_FAILURES_PER_MINUTE: '3', LOGEXPORT_TRUST_PROXY: '127.0.0.1' });
    user = await t.user();
  });
  after(async () => t.stop());

  it('answers unknown tokens with 403 up to the limit, then 429 for that client address', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 1; i <= 3; i++) {
      const res = await t.call('GET', '/zones', { auth: { token: 'A'.repeat(40) }, headers });
      assert.equal(res.status, 403, `attempt ${i}`);
    }
    const refused = await t.call('GET', '/zones', { auth: { token: 'A'.repeat(40) }, headers });
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    // Another client address is not affected, and a valid credential is never refused.
    assert.equal((await t.call('GET', '/zones', { auth: { token: 'A'.repeat(40) }, headers: { 'x-forwarded-for': '203.0.113.8' } })).status, 403);
    assert.equal((await t.call('GET', '/zones', { auth: user, headers })).status, 200);
  });

  it('counts wrong keys against the account named in X-Auth-Email', async () => {
    for (let i = 1; i <= 3; i++) {
      const res = await t.call('GET', '/zones', { auth: { email: user.email, key: 'b'.repeat(37) }, headers: { 'x-forwarded-for': `198.51.100.${i}` } });
      assert.equal(res.status, 403);
    }
    const refused = await t.call('GET', '/zones', { auth: { email: user.email, key: 'b'.repeat(37) }, headers: { 'x-forwarded-for': '198.51.100.99' } });
    assert.equal(refused.status, 429);
  });
});
