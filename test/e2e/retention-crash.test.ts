/**
 * SIGKILL while retained segments are being built: a real `logexport serve` whose zone retains its events
 * writes a segment every 50 ms while clients post; it is killed three times mid-run and restarted on the
 * same data directory. Afterwards Logpull returns every event that got a 200, each exactly once: a segment
 * whose range was recorded is written again under the same key, and nothing is committed before its
 * segment is stored.
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
  return serveNode(dataDir, { LOGEXPORT_RETENTION_FLUSH: '50ms' });
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
    served.child.kill('SIGTERM');
    await served.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
