/**
 * `GET …/logexport/sources`: a zone's own ingest figures and, node-wide, the tailed files' status — through
 * a global key, a token with logs:read and a dashboard session; never another zone's figures, and never
 * the text of a tailed file's last error (it can quote another zone's line).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nativeLine } from '../sources/support/tail-node.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

describe('the sources route', () => {
  let t: TestApp;
  let file: string;
  let alice: { email: string; key: string; userId: string };
  let bob: { email: string; key: string; userId: string };
  let alpha: string;
  let beta: string;
  const password = 'a long enough password';

  /** The route's answer for `zoneId`, waiting (by polling the route) until `ready` holds. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers freely
  async function sourcesOf(zoneId: string, ready: (result: any) => boolean = () => true, auth = alice) {
    for (let tries = 0; ; tries++) {
      const answer = await t.call('GET', `/zones/${zoneId}/logexport/sources`, { auth });
      assert.equal(answer.status, 200, answer.text);
      if (ready(answer.body.result)) return answer.body.result;
      assert.ok(tries < 400, `the tailed file's status did not arrive: ${answer.text}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  before(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-sources-route-'));
    file = path.join(dir, 'access.log');
    fs.writeFileSync(file, '');
    t = await startTestApp({ LOGEXPORT_TAIL: `native:${file}` });
    alice = await t.user('alice-sources@example.com', password);
    bob = await t.user('bob-sources@example.com');
    alpha = await t.zone(alice, 'alpha.example');
    beta = await t.zone(bob, 'beta.example');
    // Zones made straight in the store reach host routing at its next read: read them now.
    await t.app.zoneDirectory.refresh();
    // No job is enabled: alpha's events are checked and dropped, and counted as such.
    fs.appendFileSync(file, [nativeLine('a-1', 'alpha.example'), nativeLine('b-1', 'beta.example'), '{"a line that is not JSON, with a secret', nativeLine('x-1', 'nobody.example'), ''].join('\n'));
    const ingest = await t.call('POST', `${t.app.url}/ingest/zones/${alpha}/http_requests`, { raw: [nativeLine('a-2', 'alpha.example'), nativeLine('a-3', 'alpha.example')].join('\n'), auth: alice });
    assert.equal(ingest.status, 200, ingest.text);
  });
  after(async () => {
    await t?.stop();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it("answers the zone's own ingest counters, as /metrics reads them, and the tailed file's figures", async () => {
    // The tail commits a line's position and hands it to ingest one after the other: wait for both.
    const result = await sourcesOf(alpha, (r) => r.tailed_files[0]?.lines_read === 4 && r.ingest?.dropped?.no_job === 3);
    assert.equal(result.zone_id, alpha);
    assert.equal(result.ingest.requests, 1);
    assert.equal(result.ingest.dropped.no_job, 3, 'two ingested events and one tailed line, with no enabled job');
    const metrics = await (await fetch(`${t.app.url}/metrics`)).text();
    assert.match(metrics, new RegExp(`logexport_ingest_dropped_events_total\\{zone_id="${alpha}",reason="no_job"\\} 3`));

    assert.equal(result.tailed_files.length, 1);
    const [tailed] = result.tailed_files;
    assert.equal(tailed.format, 'native');
    assert.equal(tailed.path, file);
    assert.equal(tailed.lines_read, 4);
    assert.equal(tailed.lines_accepted, 2);
    assert.equal(tailed.lines_rejected, 1);
    assert.equal(tailed.lines_unknown_host, 1);
    assert.equal(tailed.bytes_behind, 0);
    assert.equal(tailed.paused, false);
    assert.ok(typeof tailed.last_error_at === 'string' && !Number.isNaN(Date.parse(tailed.last_error_at)), 'when the bad line was met');
  });

  it("never shows a tailed file's error text or identity, which are the operator's", async () => {
    const [tailed] = (await sourcesOf(alpha, (r) => r.tailed_files[0]?.lines_read === 4)).tailed_files;
    assert.equal('last_error' in tailed, false);
    assert.equal('file_id' in tailed, false);
    const text = JSON.stringify(await sourcesOf(alpha));
    assert.doesNotMatch(text, /secret/);
  });

  it("answers another user's zone with the zone's own figures only", async () => {
    const result = await sourcesOf(beta, (r) => r.ingest !== null, bob);
    assert.equal(result.zone_id, beta);
    // beta got one tailed line and no request: its figures say so, and nothing of alpha's.
    assert.equal(result.ingest.requests, 0);
    assert.equal(result.ingest.dropped.no_job, 1);
    const refused = await t.call('GET', `/zones/${alpha}/logexport/sources`, { auth: bob });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errors[0].code, 10000);
  });

  it('is read through a token with logs:read (under both path words), and refused to a token that may only ingest or is for another zone', async () => {
    const reader = await t.token(alice, [alpha], ['logs:read']);
    for (const word of ['logexport', 'logpush']) {
      const answer = await t.call('GET', `/zones/${alpha}/${word}/sources`, { auth: { token: reader } });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.result.zone_id, alpha);
    }
    const ingester = await t.token(alice, [alpha], ['logs:ingest']);
    assert.equal((await t.call('GET', `/zones/${alpha}/logexport/sources`, { auth: { token: ingester } })).status, 403);
    assert.equal((await t.call('GET', `/zones/${beta}/logexport/sources`, { auth: { token: reader } })).status, 403);
  });

  it('is read through a dashboard session', async () => {
    const signIn = await t.call('POST', '/session', { body: { email: alice.email, password }, auth: null });
    assert.equal(signIn.status, 200, signIn.text);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const answer = await t.call('GET', `/zones/${alpha}/logexport/sources`, { auth: { headers: { cookie } } });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.result.ingest.requests, 1);
  });
});
