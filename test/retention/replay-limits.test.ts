/**
 * Replay within bounds: a window in the future (the year 9999) or longer than LOGEXPORT_REPLAY_MAX_WINDOW
 * is refused; replays beyond LOGEXPORT_REPLAYS_PER_NODE wait queued; `DELETE …/replay` cancels; progress is
 * kept in the store, so a node that stops ends its replays at once and resumes them when it starts again;
 * and a window before retention was on says so. The destination is a real HTTP server on loopback that
 * holds replay uploads until the test lets them through, so "running" is a state the test drives.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../src/core/clock.ts';
import { retentionBody } from '../support/retention-events.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const t0 = Date.UTC(2026, 4, 2, 10, 0, 0);

/** An HTTP destination that answers at once, except replay uploads while `holding`: those wait until released (or their client gives up). */
class HoldingServer {
  readonly server: http.Server;
  holding = true;
  /** Replay uploads seen, and those answered 200. */
  seen = 0;
  delivered = 0;
  private held: http.ServerResponse[] = [];
  private waiters: (() => void)[] = [];

  constructor() {
    this.server = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const batch = String(request.headers['x-logexport-batch'] ?? '');
        if (!batch.includes('replay_')) return void response.end();
        this.seen += 1;
        for (const wake of this.waiters.splice(0)) wake();
        if (!this.holding) {
          this.delivered += 1;
          return void response.end();
        }
        this.held.push(response);
      });
    });
  }

  get url(): string {
    const address = this.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/in`;
  }

  /** Resolves once `count` replay uploads arrived in all. */
  async seenAtLeast(count: number): Promise<void> {
    while (this.seen < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    this.holding = false;
    for (const response of this.held.splice(0)) {
      this.delivered += 1;
      if (!response.destroyed) response.end();
    }
  }
}

describe('replay limits, cancelling, queueing, stored progress and stopping', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-replay-limits-'));
  const env = {
    LOGEXPORT_DATA_DIR: dataDir,
    LOGEXPORT_RETENTION_FLUSH: '100ms',
    LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS: 'true',
    LOGEXPORT_REPLAYS_PER_NODE: '1',
    LOGEXPORT_REPLAY_MAX_WINDOW: '2h',
    LOGEXPORT_SHUTDOWN_TIMEOUT: '5s',
  };
  const clock = new ManualClock(t0);
  const destination = new HoldingServer();
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };
  let zoneId: string;
  const jobs: number[] = [];
  const window = { start: new Date(t0).toISOString(), end: new Date(t0 + 60_000).toISOString() };

  const replayOf = (jobId: number, body: unknown = window) => t.call('POST', `/zones/${zoneId}/logexport/jobs/${jobId}/replay`, { auth: owner, body });
  const progressOf = async (jobId: number): Promise<Record<string, unknown>> => (await t.call('GET', `/zones/${zoneId}/logexport/jobs/${jobId}/replay`, { auth: owner })).body.result as Record<string, unknown>;

  before(async () => {
    await new Promise<void>((resolve) => destination.server.listen(0, '127.0.0.1', resolve));
    t = await startTestApp(env, { clock });
    owner = await t.user();
    zoneId = await t.zone(owner, 'replay-limits.example');
    assert.equal((await t.call('POST', `/zones/${zoneId}/logs/control/retention/flag`, { body: { flag: true }, auth: owner })).status, 200);
    const response = await fetch(`${t.app.url}/ingest/zones/${zoneId}/http_requests`, { method: 'POST', headers: { 'x-auth-email': owner.email, 'x-auth-key': owner.key }, body: retentionBody(0, 300) });
    assert.equal(response.status, 200);
    clock.set(t0 + 1000);
    for (;;) {
      const answer = await t.call('GET', `/zones/${zoneId}/logs/received?start=${t0 / 1000}&end=${t0 / 1000 + 60}&fields=RayID`, { auth: owner });
      if (answer.text.split('\n').filter((l) => l !== '').length === 300) break;
      clock.advance(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const name of ['a', 'b']) {
      const job = await t.call('POST', `/zones/${zoneId}/logexport/jobs`, { auth: owner, body: { name, destination_conf: destination.url, output_options: { field_names: ['RayID'] } } });
      assert.equal(job.status, 200, job.text);
      jobs.push(job.body.result.id as number);
    }
    clock.set(t0 + 120_000);
  });
  after(async () => {
    destination.release();
    await t.stop();
    destination.server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a window in the future (the year 9999) or longer than LOGEXPORT_REPLAY_MAX_WINDOW, at once', async () => {
    const cases: [unknown, string][] = [
      [{ start: new Date(t0).toISOString(), end: '9999-12-31T00:00:00Z' }, 'must not be in the future'],
      [{ start: new Date(t0).toISOString(), end: new Date(t0 + 3 * 3_600_000).toISOString() }, 'at most 2 hours long'],
      [{ start: t0 / 1000 + 60, end: t0 / 1000 }, 'later than start'],
    ];
    for (const [body, says] of cases) {
      const answer = await replayOf(jobs[0] as number, body);
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.body.errors[0].code, 13402);
      assert.equal(answer.body.errors[0].source.pointer, '/end');
      assert.ok(answer.body.errors.some((e: { message: string }) => e.message.includes(says)), answer.text);
    }
    assert.equal((await t.call('GET', `/zones/${zoneId}/logexport/jobs/${jobs[0]}/replay`, { auth: owner })).status, 404);
  });

  it('queues a replay beyond LOGEXPORT_REPLAYS_PER_NODE, cancels a running one, then runs the queued one', async () => {
    const [a, b] = jobs as [number, number];
    destination.holding = true;
    const first = await replayOf(a);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.result.status, 'running');
    await destination.seenAtLeast(1);
    const second = await replayOf(b);
    assert.equal(second.body.result.status, 'queued');
    assert.equal((await progressOf(b)).status, 'queued');
    assert.equal((await replayOf(a)).status, 429);
    const cancelled = await t.call('DELETE', `/zones/${zoneId}/logexport/jobs/${a}/replay`, { auth: owner });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.result.status, 'cancelled');
    await t.app.retention.replays.settled(a);
    assert.equal((await progressOf(a)).status, 'cancelled');
    // The slot is free: the queued replay runs (and its upload is held too), then finishes once let through.
    await destination.seenAtLeast(2);
    assert.equal((await progressOf(b)).status, 'running');
    destination.release();
    await t.app.retention.replays.settled(b);
    const done = await progressOf(b);
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.equal(done.events_read, 300);
    assert.equal(done.exported, 300);
    const audit = await t.call('GET', '/user/audit_logs?action.type=job.replay.cancel', { auth: owner });
    assert.ok(audit.body.result.some((e: { zone: { id: string } | null }) => e.zone?.id === zoneId));
  });

  it('ends its replays at once when the node stops, and the next start resumes them from the store', async () => {
    const [a] = jobs as [number, number];
    destination.holding = true;
    const seen = destination.seen;
    assert.equal((await replayOf(a)).status, 200);
    await destination.seenAtLeast(seen + 1);
    // The upload is held: only the stop ends the replay, well within LOGEXPORT_SHUTDOWN_TIMEOUT.
    await t.app.stop();
    destination.release();
    t = await startTestApp(env, { clock });
    // Any node answers from the store; this one resumes it, being the node that ran it.
    await t.app.retention.replays.settled(a);
    const resumed = await progressOf(a);
    assert.equal(resumed.status, 'done', JSON.stringify(resumed));
    assert.equal(resumed.exported, 300);
    assert.match(String(resumed.message), /resumed/);
  });

  it('says that nothing was retained in a window before retention was on, and since when the zone keeps events', async () => {
    const [a] = jobs as [number, number];
    const answer = await replayOf(a, { start: new Date(t0 - 3_600_000).toISOString(), end: new Date(t0 - 1_800_000).toISOString() });
    assert.equal(answer.status, 200, answer.text);
    await t.app.retention.replays.settled(a);
    const progress = await progressOf(a);
    assert.equal(progress.status, 'done');
    assert.equal(progress.events_read, 0);
    assert.match(String(progress.message), new RegExp(`Nothing was retained in this window\\. The zone keeps its events since ${new Date(t0).toISOString().replace(/\./g, '\\.')}`));
  });
});
