/**
 * A real `logexport serve` tailing a file that is written while it runs, killed with SIGKILL in the middle
 * of the file (twice), and rotated by rename while written: after the last restart every complete line was
 * delivered exactly once — each record in one object, none twice — since the read position is committed
 * in the same transaction as the queue append.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readRecords, waitFor } from './support/data-plane.ts';
import { nativeLine, prepareTailNode } from '../sources/support/tail-node.ts';
import { killAllServed, serveNode } from '../support/served-node.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

after(killAllServed);

describe('a tailed file across SIGKILL and rotation', () => {
  it('delivers every complete line exactly once', async (t) => {
    const node = await prepareTailNode(['crash.example'], [{ zone: 'crash.example', dir: 'crash', fields: ['RayID'], maxRecords: 500 }]);
    const file = path.join(node.dataDir, 'access.log');
    const env = { LOGEXPORT_TAIL: `native:${file}`, LOGEXPORT_WORKERS: '0' };
    const total = 30_000;
    let written = 0;
    const write = (count: number): void => {
      let text = '';
      for (let i = 0; i < count && written < total; i++, written++) text += `${nativeLine(`r-${written}`, 'www.crash.example', { ClientRequestPath: `/${'p'.repeat(written % 200)}` })}\n`;
      fs.appendFileSync(file, text);
    };
    const delivered = (): string[] => readRecords(node.exportRoot, 'crash').map((r) => String(r.RayID));
    write(5000);
    let served = await serveNode(node.dataDir, env);
    const writer = setInterval(() => write(500), 20);
    try {
      for (let round = 0; round < 2; round++) {
        // Killed once some of the file is delivered and more is being read.
        const seen = delivered().length;
        await waitFor('more records delivered', () => (delivered().length > seen + 1000 ? true : undefined), 30_000, 20);
        assert.equal((await served.kill('SIGKILL')).signal, 'SIGKILL');
        if (round === 0) {
          // Rotated while the node is down and the writer goes on: the rest of the old file is read first.
          fs.renameSync(file, `${file}.1`);
        }
        served = await serveNode(node.dataDir, env);
      }
      await waitFor('the writer to finish', () => (written >= total ? true : undefined), 60_000, 50);
    } finally {
      clearInterval(writer);
    }
    // A partial line at the end is not a line yet.
    fs.appendFileSync(file, nativeLine('partial', 'www.crash.example').slice(0, 30));
    const ids = await waitFor(`${total} records delivered`, () => {
      const found = delivered();
      return found.length >= total ? found : undefined;
    }, 60_000, 200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const final = delivered();
    const unique = new Set(final);
    t.diagnostic(`${total} lines written across a rotation and two SIGKILLs: ${final.length} records delivered, ${unique.size} distinct`);
    assert.equal(unique.size, total);
    assert.equal(final.length, total, 'no record was delivered twice');
    assert.ok(ids.every((id) => id !== 'partial'));

    // `logexport sources` reads the status from the data directory, of a running node and of a stopped one.
    const expected = {
      source: `native:${file}`,
      format: 'native',
      file,
      configured: true,
      offset: fs.statSync(file).size - 30,
      bytes_behind: 30,
      lines_rejected: 0,
      lines_unknown_host: 0,
    };
    const sources = (): Record<string, unknown>[] => {
      const run = spawnSync(process.execPath, [path.join(root, 'bin/logexport.mjs'), 'sources', '--data-dir', node.dataDir], { env: { ...process.env, ...env }, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      return (JSON.parse(run.stdout) as { sources: Record<string, unknown>[] }).sources;
    };
    for (const state of ['running', 'stopped']) {
      if (state === 'stopped') assert.deepEqual((await served.kill('SIGTERM')).code, 0);
      const [status] = sources();
      assert.ok(status, state);
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(status[key], value, `${state}: ${key}`);
      assert.match(String(status.identity), /^\d+:\d+$/);
      // The counts are committed with the position: every line was counted once, across kills and the rotation.
      assert.equal(status.lines_read, total, state);
      assert.equal(status.lines_accepted, total, state);
    }
    fs.rmSync(node.dataDir, { recursive: true, force: true });
  });
});
