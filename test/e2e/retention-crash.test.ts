/**
 * SIGKILL while retained segments are being written and compacted: a real `logexport serve` whose zone
 * retains its events writes a hot segment every 50 ms while clients post, and compacts each one as soon as
 * it is written, with a whole core; it is killed three times mid-run and restarted on the same data
 * directory. Afterwards Logpull returns every event that got a 200, each exactly once: a hot segment whose
 * range was recorded is written again under the same key (or only committed, when a compaction holds it),
 * nothing is committed before its segment is stored, and a compaction removes hot segments only after its
 * Parquet segment and the list of what it holds are stored. (test/retention/compactor.test.ts kills a
 * compaction at each of its steps.)
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUser, createZone } from '../../src/accounts/accounts.ts';
import { systemClock } from '../../src/core/clock.ts';
import { openEmbeddedQueue } from '../../src/queue/embedded/embedded-queue.ts';
import { retentionConsumer, retentionStreamOf } from '../../src/retention/retention-writer.ts';
import { openStore } from '../../src/store/open-store.ts';
import { retentionBody } from '../support/retention-events.ts';
import { killAllServed, serveNode, type ServedNode } from '../support/served-node.ts';

after(killAllServed);

function serve(dataDir: string): Promise<ServedNode> {
  return serveNode(dataDir, { LOGEXPORT_RETENTION_FLUSH: '50ms', LOGEXPORT_RETENTION_COMPACT_AFTER: '0s', LOGEXPORT_RETENTION_COMPACT_BUDGET: '1' });
}

describe('SIGKILL while retained segments are built', () => {
  it('loses no acknowledged event and retains none twice', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-retention-crash-'));
    const store = await openStore({ kind: 'sqlite', path: path.join(dataDir, 'logexport.db') });
    const { user, apiKey } = await createUser(store, systemClock, { email: 'crash@example.com' });
    const zone = await createZone(store, systemClock, user.id, `retention-crash-${process.pid}.example.com`);
    await store.setRetentionFlag(zone.id, true, new Date().toISOString());
    await store.close();
    const queue = await openEmbeddedQueue({ path: path.join(dataDir, 'queue.db'), replayWindowMs: 600_000 });
    await queue.resetConsumer(retentionStreamOf(zone.id), retentionConsumer);
    await queue.close();
    const auth = { 'x-auth-email': user.email, 'x-auth-key': apiKey };
    const startS = Math.floor(Date.now() / 1000) - 5;

    const acknowledged = new Set<string>();
    let next = 0;
    for (let round = 0; round < 3; round++) {
      const served = await serve(dataDir);
      // Killed once a few requests were answered (and some more are on their way), at a different moment each round.
      const killAt = Date.now() + 300 + round * 200;
      const giveUpAt = Date.now() + 15_000;
      let answered = 0;
      const posts: Promise<void>[] = [];
      while ((Date.now() < killAt || answered < 3) && Date.now() < giveUpAt) {
        const from = next;
        next += 200;
        posts.push(
          fetch(`${served.url}/ingest/zones/${zone.id}/http_requests`, { method: 'POST', headers: auth, body: retentionBody(from, from + 200, `r${round}`) })
            .then(async (response) => {
              await response.text();
              answered += 1;
              if (response.status === 200) for (let i = from; i < from + 200; i++) acknowledged.add(`r${round}${i.toString(16).padStart(7, '0')}`);
            })
            .catch(() => {}),
        );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      served.child.kill('SIGKILL');
      await served.exited;
      await Promise.all(posts);
    }
    assert.ok(acknowledged.size > 1000, `only ${acknowledged.size} events were acknowledged`);

    const served = await serve(dataDir);
    const endS = Math.floor(Date.now() / 1000) + 5;
    let ids: string[] = [];
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      const response = await fetch(`${served.url}/client/v4/zones/${zone.id}/logs/received?start=${startS}&end=${endS}&fields=RayID`, { headers: auth });
      const text = await response.text();
      assert.equal(response.status, 200, text);
      ids = text.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { RayID: string }).RayID);
      if ([...acknowledged].every((id) => ids.includes(id))) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const found = new Set(ids);
    const missing = [...acknowledged].filter((id) => !found.has(id));
    assert.deepEqual(missing.slice(0, 5), [], `${missing.length} acknowledged events are missing`);
    assert.equal(ids.length, found.size, 'an event was retained twice');
    // Both tiers were in use: compactions ran between the kills.
    const files = fs.readdirSync(path.join(dataDir, 'retained', zone.id), { recursive: true, encoding: 'utf8' });
    assert.ok(files.some((f) => f.endsWith('.parquet')), 'nothing was compacted');
    served.child.kill('SIGTERM');
    await served.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
