/**
 * The file tail inside a running node: lines routed by host to two zones and delivered, an unknown host and
 * bad lines counted and skipped, a partial line waiting for its newline, a file that appears later, rotation
 * by rename (the old file read to its end) and by copytruncate, a restart resuming exactly where it stopped,
 * and the status on /metrics.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import { readRecords, waitFor } from '../../e2e/support/data-plane.ts';
import { nativeLine, prepareTailNode, type TailNode } from '../support/tail-node.ts';
import { connectViewer } from '../../support/live-viewer.ts';

const running = new Set<TestApp>();
after(async () => {
  for (const t of running) await t.app.stop().catch(() => undefined);
});

async function start(node: TailNode, tail: string): Promise<TestApp> {
  const t = await startTestApp({ LOGEXPORT_DATA_DIR: node.dataDir, LOGEXPORT_TAIL: tail, LOGEXPORT_WORKERS: '0' }, { configPollMs: 100, countersFlushMs: 200 });
  running.add(t);
  return t;
}

async function stop(t: TestApp): Promise<void> {
  await t.app.stop();
  running.delete(t);
}

function rayIdsIn(node: TailNode, dir: string): string[] {
  return readRecords(node.exportRoot, dir).map((r) => String(r.RayID));
}

function waitForRayIds(node: TailNode, dir: string, count: number, timeoutMs = 15_000): Promise<string[]> {
  return waitFor(`${count} records in ${dir}`, () => {
    const ids = rayIdsIn(node, dir);
    return ids.length >= count ? ids : undefined;
  }, timeoutMs, 100);
}

function append(file: string, lines: readonly string[]): void {
  fs.appendFileSync(file, lines.map((l) => `${l}\n`).join(''));
}

async function metrics(t: TestApp): Promise<string> {
  return (await fetch(`${t.app.url}/metrics`)).text();
}

describe('the file tail', () => {
  it('shows a zone’s tailed lines to its Instant Logs viewers, filtered, once they are queued', async () => {
    const node = await prepareTailNode(['alpha.example', 'beta.example'], [{ zone: 'alpha.example', dir: 'alpha', fields: ['RayID'] }]);
    const file = path.join(node.dataDir, 'access.log');
    fs.writeFileSync(file, '');
    const t = await start(node, `native:${file}`);
    const auth = { email: node.auth.email, key: node.auth.key };
    const filter = JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 500 } });
    const made = await t.call('POST', `/zones/${node.zones['alpha.example']}/logexport/edge/jobs`, { body: { fields: 'RayID,EdgeResponseStatus', filter }, auth });
    assert.equal(made.status, 200, made.text);
    const viewer = await connectViewer(made.body.result.destination_conf);
    try {
      append(file, [
        nativeLine('ok-1', 'alpha.example'),
        nativeLine('err-1', 'www.alpha.example', { EdgeResponseStatus: 502 }),
        nativeLine('err-beta', 'beta.example', { EdgeResponseStatus: 503 }),
        nativeLine('err-2', 'alpha.example', { EdgeResponseStatus: 500 }),
      ]);
      await viewer.until('the two failing alpha requests', () => viewer.records.length >= 2);
      await waitForRayIds(node, 'alpha', 3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(viewer.records.map((r) => JSON.parse(r)), [
        { RayID: 'err-1', EdgeResponseStatus: 502 },
        { RayID: 'err-2', EdgeResponseStatus: 500 },
      ]);
    } finally {
      await viewer.close();
      await stop(t);
    }
  });

  it('routes lines by host to their zones, counts unknown hosts and bad lines, and resumes after a restart without repeating', async () => {
    const node = await prepareTailNode(['alpha.example', 'beta.example'], [
      { zone: 'alpha.example', dir: 'alpha', fields: ['RayID', 'ClientRequestHost'] },
      { zone: 'beta.example', dir: 'beta', fields: ['RayID', 'ClientRequestHost'] },
    ]);
    const file = path.join(node.dataDir, 'logs', 'access.log');
    const t = await start(node, `native:${file}`);
    // The file does not exist yet: it is waited for.
    await new Promise((resolve) => setTimeout(resolve, 300));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    append(file, [
      nativeLine('a-1', 'www.alpha.example'),
      nativeLine('b-1', 'beta.example:8443'),
      nativeLine('x-1', 'alpha.example.evil.net'),
      '{"not json',
      nativeLine('a-2', 'ALPHA.example', { Nope: 1 }),
      '',
      nativeLine('a-3', 'alpha.example'),
    ]);
    // A partial line waits for its newline.
    fs.appendFileSync(file, nativeLine('a-4', 'alpha.example').slice(0, 20));
    assert.deepEqual((await waitForRayIds(node, 'alpha', 2)).sort(), ['a-1', 'a-3']);
    assert.deepEqual(await waitForRayIds(node, 'beta', 1), ['b-1']);
    const status = await metrics(t);
    assert.match(status, /logexport_source_lines_read_total\{[^}]*format="native"[^}]*\} 6/);
    assert.match(status, /logexport_source_lines_accepted_total\{[^}]*\} 3/);
    assert.match(status, /logexport_source_lines_rejected_total\{[^}]*\} 2/);
    assert.match(status, /logexport_source_lines_unknown_host_total\{[^}]*\} 1/);
    assert.match(status, /logexport_ingest_dropped_events_total\{zone_id="",reason="unknown_host"\} 1/);
    fs.appendFileSync(file, `${nativeLine('a-4', 'alpha.example').slice(20)}\n`);
    await waitForRayIds(node, 'alpha', 3);
    await stop(t);

    // Written while the node is down, then read after the restart; nothing before is read again.
    append(file, [nativeLine('a-5', 'alpha.example'), nativeLine('b-2', 'beta.example')]);
    const again = await start(node, `native:${file}`);
    assert.deepEqual((await waitForRayIds(node, 'alpha', 4)).sort(), ['a-1', 'a-3', 'a-4', 'a-5']);
    assert.deepEqual((await waitForRayIds(node, 'beta', 2)).sort(), ['b-1', 'b-2']);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(rayIdsIn(node, 'alpha').length, 4);
    assert.equal(rayIdsIn(node, 'beta').length, 2);
    assert.match(await metrics(again), /logexport_source_lines_read_total\{[^}]*\} 9/);
    await stop(again);
  });

  it('reads a file rotated by rename to its end, then the new one; and a copytruncated file again from its start', async () => {
    const node = await prepareTailNode(['gamma.example'], [{ zone: 'gamma.example', dir: 'gamma', fields: ['RayID'], maxRecords: 1000 }]);
    const file = path.join(node.dataDir, 'access.log');
    append(file, [nativeLine('g-1', 'gamma.example')]);
    const t = await start(node, `native:${file}`);
    await waitForRayIds(node, 'gamma', 1);
    // Rename, then the writer still adds to the old file (as nginx does until it reopens), without a final newline.
    fs.renameSync(file, `${file}.1`);
    append(`${file}.1`, [nativeLine('g-2', 'gamma.example')]);
    fs.appendFileSync(`${file}.1`, nativeLine('g-3', 'gamma.example'));
    append(file, [nativeLine('g-4', 'gamma.example')]);
    assert.deepEqual((await waitForRayIds(node, 'gamma', 4)).sort(), ['g-1', 'g-2', 'g-3', 'g-4']);
    // copytruncate: the content is copied away and the file emptied in place.
    fs.copyFileSync(file, `${file}.2`);
    fs.truncateSync(file, 0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    append(file, [nativeLine('g-5', 'gamma.example')]);
    assert.deepEqual((await waitForRayIds(node, 'gamma', 5)).sort(), ['g-1', 'g-2', 'g-3', 'g-4', 'g-5']);
    await stop(t);
  });

  it('finishes a file rotated away while the node was down before the new one', async () => {
    const node = await prepareTailNode(['delta.example'], [{ zone: 'delta.example', dir: 'delta', fields: ['RayID'] }]);
    const file = path.join(node.dataDir, 'access.log');
    append(file, [nativeLine('d-1', 'delta.example')]);
    const t = await start(node, `native:${file}`);
    await waitForRayIds(node, 'delta', 1);
    await stop(t);
    append(file, [nativeLine('d-2', 'delta.example')]);
    fs.renameSync(file, `${file}.1`);
    append(file, [nativeLine('d-3', 'delta.example')]);
    const again = await start(node, `native:${file}`);
    assert.deepEqual((await waitForRayIds(node, 'delta', 3)).sort(), ['d-1', 'd-2', 'd-3']);
    await stop(again);
  });

  it('refuses a bad LOGEXPORT_TAIL with one line naming it', async () => {
    await assert.rejects(startTestApp({ LOGEXPORT_TAIL: 'apache:/var/log/x.log' }), /^ConfigError: LOGEXPORT_TAIL="apache:\/var\/log\/x.log" is not valid: .*FORMAT:PATH/);
  });
});
