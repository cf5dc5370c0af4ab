/**
 * Replay over a past window, through the API: exactly the retained records the job's filter keeps (checked
 * against a count made independently from the events sent), split by the job's record limit, and the same
 * objects again when the replay runs a second time.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ManualClock } from '../../src/core/clock.ts';
import { retentionBody, retentionEvent } from '../support/retention-events.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const t0 = Date.UTC(2026, 4, 2, 10, 0, 0);
const events = 2500;

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.log.gz')).sort();
}

describe('replaying a job over a retained window', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };
  let zoneId: string;
  let jobId: number;
  const clock = new ManualClock(t0);
  const dir = 'replayed/{DATE}';

  before(async () => {
    t = await startTestApp({ LOGEXPORT_RETENTION_FLUSH: '100ms' }, { clock });
    owner = await t.user();
    zoneId = await t.zone(owner, 'replay.example');
    assert.equal((await t.call('POST', `/zones/${zoneId}/logs/control/retention/flag`, { body: { flag: true }, auth: owner })).status, 200);
    const response = await fetch(`${t.app.url}/ingest/zones/${zoneId}/http_requests`, {
      method: 'POST',
      headers: { 'x-auth-email': owner.email, 'x-auth-key': owner.key },
      body: retentionBody(0, events),
    });
    assert.equal(response.status, 200);
    clock.set(t0 + 5000);
    const until = Date.now() + 60_000;
    for (;;) {
      const answer = await t.call('GET', `/zones/${zoneId}/logs/received?start=${t0 / 1000}&end=${t0 / 1000 + 60}&fields=RayID`, { auth: owner });
      if (answer.text.split('\n').filter((l) => l !== '').length === events) break;
      assert.ok(Date.now() < until, 'the events were not retained in time');
      // The writer closes a segment by the node's clock, which only moves when the test moves it.
      clock.advance(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const conf = `file:///${dir}`;
    const challenge = await t.call('POST', `/zones/${zoneId}/logexport/ownership`, { body: { destination_conf: conf }, auth: owner });
    const token = fs.readFileSync(path.join(t.config.exportRoot, challenge.body.result.filename), 'utf8');
    const job = await t.call('POST', `/zones/${zoneId}/logexport/jobs`, {
      auth: owner,
      body: {
        destination_conf: conf,
        ownership_challenge: token,
        filter: JSON.stringify({ where: { and: [{ key: 'EdgeResponseStatus', operator: 'eq', value: 200 }, { key: 'ClientRequestMethod', operator: 'eq', value: 'GET' }] } }),
        output_options: { field_names: ['RayID', 'EdgeResponseStatus', 'ClientRequestMethod'] },
        max_upload_records: 1000,
      },
    });
    assert.equal(job.status, 200, job.text);
    jobId = job.body.result.id;
  });
  after(async () => t.stop());

  const replay = async (): Promise<Record<string, unknown>> => {
    // The window has passed (a replay reads what was retained, never the future).
    clock.set(Math.max(clock.now(), t0 + 61_000));
    const started = await t.call('POST', `/zones/${zoneId}/logexport/jobs/${jobId}/replay`, { auth: owner, body: { start: new Date(t0).toISOString(), end: t0 / 1000 + 60 } });
    assert.equal(started.status, 200, started.text);
    assert.equal(started.body.result.status, 'running');
    await t.app.retention.replays.settled(jobId);
    const progress = await t.call('GET', `/zones/${zoneId}/logpush/jobs/${jobId}/replay`, { auth: owner });
    assert.equal(progress.status, 200);
    return progress.body.result as Record<string, unknown>;
  };

  it('exports exactly the records the filter keeps, split by the record limit, and overwrites on a second run', async () => {
    const expected: string[] = [];
    for (let i = 0; i < events; i++) {
      const e = retentionEvent(i);
      if (e.EdgeResponseStatus === 200 && e.ClientRequestMethod === 'GET') expected.push(e.RayID as string);
    }
    const progress = await replay();
    assert.equal(progress.status, 'done', JSON.stringify(progress));
    assert.equal(progress.events_read, events);
    assert.equal(progress.exported, expected.length);
    assert.equal(progress.objects_written, Math.ceil(expected.length / 1000));
    const audit = await t.call('GET', '/user/audit_logs?action.type=job.replay', { auth: owner });
    assert.equal(audit.status, 200, audit.text);
    assert.ok(audit.body.result.some((e: { zone: { id: string } | null }) => e.zone?.id === zoneId), 'the replay is in the audit log');
    const root = path.join(t.config.exportRoot, 'replayed');
    const files = filesUnder(root);
    assert.equal(files.length, Math.ceil(expected.length / 1000));
    assert.match(files[0] ?? '', /^20260502\/replay_20260502T100000Z_20260502T100100Z_[0-9a-f]{8}_00000\.log\.gz$/);
    const seen = files.flatMap((f) => zlib.gunzipSync(fs.readFileSync(path.join(root, f))).toString('utf8').split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { RayID: string }).RayID));
    assert.deepEqual(seen.sort(), expected.sort());

    const again = await replay();
    assert.equal(again.exported, expected.length);
    assert.deepEqual(filesUnder(root), files);
  });

  it('refuses a bad window and a second replay while one runs', async () => {
    clock.set(Math.max(clock.now(), t0 + 61_000));
    const bad = await t.call('POST', `/zones/${zoneId}/logexport/jobs/${jobId}/replay`, { auth: owner, body: { start: t0 / 1000 + 60, end: t0 / 1000 } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].source.pointer, '/end');
    // Sent together: the second arrives while the first replay is still reading its segments.
    const post = () => t.call('POST', `/zones/${zoneId}/logexport/jobs/${jobId}/replay`, { auth: owner, body: { start: t0 / 1000, end: t0 / 1000 + 60 } });
    const answers = await Promise.all([post(), post()]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 429]);
    assert.equal(answers.find((a) => a.status === 429)?.body.errors[0].code, 13429);
    await t.app.retention.replays.settled(jobId);
  });
});
