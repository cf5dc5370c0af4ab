/**
 * Private files (issue 23): started under a permissive umask, a node makes its data directory 0700 and every
 * file it writes there 0600 — the store, the queue with its WAL and SHM, retained segments, exports and their
 * temporary files — and tightens what an older version left world-readable.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createJob, ingestEvents, event, rayIds, startPlane } from './e2e/support/data-plane.ts';

/** Every entry under `dir` whose mode is not 0700 (folders) or 0600 (files), with its mode. */
function looseEntries(dir: string): string[] {
  const loose: string[] = [];
  const walk = (at: string) => {
    const mode = fs.statSync(at).mode & 0o777;
    if (mode !== 0o700) loose.push(`${path.relative(dir, at) || '.'}/ ${mode.toString(8)}`);
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && (fs.statSync(full).mode & 0o777) !== 0o600) loose.push(`${path.relative(dir, full)} ${(fs.statSync(full).mode & 0o777).toString(8)}`);
    }
  };
  walk(dir);
  return loose;
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('the data directory', () => {
  it('is 0700 with every file 0600, whatever the umask, for everything a node writes', async () => {
    const previous = process.umask(0o022);
    const h = await startPlane({ LOGEXPORT_RETENTION_FLUSH: '50ms' });
    const dataDir = h.t.dataDir;
    try {
      // What an older version left: world-readable.
      fs.mkdirSync(path.join(dataDir, 'old'), { mode: 0o755 });
      fs.writeFileSync(path.join(dataDir, 'old', 'leftover.db'), 'x', { mode: 0o644 });
      fs.chmodSync(path.join(dataDir, 'old'), 0o755);
      fs.chmodSync(path.join(dataDir, 'old', 'leftover.db'), 0o644);

      assert.equal((await h.t.call('POST', `/zones/${h.zone}/logs/control/retention/flag`, { body: { flag: true } })).status, 200);
      await createJob(h, { destination_conf: 'file:///private/{DATE}', output_options: { field_names: ['RayID'] } });
      await ingestEvents(h, rayIds('private', 0, 20).map((id) => event(id)));
      const retained = path.join(dataDir, 'retained');
      const until = Date.now() + 30_000;
      while (filesUnder(retained).length === 0) {
        assert.ok(Date.now() < until, 'no retained segment was written');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Stopping drains the job: its batch is written (a temporary name, then renamed) before the node stops.
      await h.t.app.stop();
      assert.ok(filesUnder(path.join(h.t.config.exportRoot, 'private')).length > 0, 'the job delivered');
      assert.ok(['logexport.db', 'queue.db'].every((name) => fs.existsSync(path.join(dataDir, name))));
      assert.deepEqual(looseEntries(dataDir).filter((e) => !e.startsWith('old')), []);

      // An older version's leftovers are tightened at the next start.
      fs.chmodSync(path.join(dataDir, 'old'), 0o755);
      fs.chmodSync(path.join(dataDir, 'old', 'leftover.db'), 0o644);
      fs.chmodSync(dataDir, 0o755);
      const again = await startPlane({ LOGEXPORT_DATA_DIR: dataDir });
      await again.t.app.stop();
      assert.deepEqual(looseEntries(dataDir), []);
    } finally {
      await h.t.app.stop();
      process.umask(previous);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
