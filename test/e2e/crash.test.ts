/**
 * Crashes of a real `logexport serve` process. It is killed with SIGKILL while clients post events, and
 * again while batches are on their way to a slow destination; after a restart on the same data directory
 * every event that got a 200 reaches the destination at least once, and a batch that was in flight is sent
 * again under its own name (so an object store overwrites it) rather than landing twice under a new one.
 * SIGTERM stops ingest (503), delivers what was queued and exits 0.
 */
import { after, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUser, createZone } from '../../src/accounts/accounts.ts';
import { systemClock } from '../../src/core/clock.ts';
import { consumerNameOf, streamOf } from '../../src/delivery/job-runner.ts';
import { openEmbeddedQueue } from '../../src/queue/embedded/embedded-queue.ts';
import { openStore } from '../../src/store/open-store.ts';
import { event, ndjson, startReceiver, waitFor, type Receiver } from './support/data-plane.ts';
import { killAllServed, serveNode, type ServedNode } from '../support/served-node.ts';

after(killAllServed);

/** A data directory holding a user, a zone and one enabled job that posts to `destination`. */
interface Setup {
  readonly dataDir: string;
  readonly zoneId: string;
  readonly auth: Record<string, string>;
}

/**
 * Prepares a data directory the way the API would, but with batch limits below the API's minimums
 * (interval 1 s) so batches close quickly, and the job's queue consumer in place before the first start.
 */
async function prepare(destination: string, limits: { records: number; intervalSeconds: number }): Promise<Setup> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-crash-'));
  const store = await openStore({ kind: 'sqlite', path: path.join(dataDir, 'logexport.db') });
  try {
    const { user, apiKey } = await createUser(store, systemClock, { email: 'crash@example.com' });
    const zone = await createZone(store, systemClock, user.id, `crash-${process.pid}.example.com`);
    const job = await store.createJob(
      zone.id,
      {
        dataset: 'http_requests',
        kind: '',
        enabled: true,
        name: 'crash',
        destinationConf: destination,
        filter: null,
        outputOptions: JSON.stringify({ field_names: ['RayID', 'ClientIP'] }),
        logpullOptions: null,
        frequency: null,
        maxUploadBytes: null,
        maxUploadRecords: limits.records,
        maxUploadIntervalSeconds: limits.intervalSeconds,
      },
      new Date().toISOString(),
      4,
    );
    assert.ok(job);
    const queue = await openEmbeddedQueue({ path: path.join(dataDir, 'queue.db'), replayWindowMs: 600_000 });
    await queue.resetConsumer(streamOf(job), consumerNameOf(job));
    await queue.close();
    return { dataDir, zoneId: zone.id, auth: { 'x-auth-email': user.email, 'x-auth-key': apiKey } };
  } finally {
    await store.close();
  }
}

type Served = ServedNode;

/** A node on the data directory, allowed to deliver to the receiver on loopback. */
function serve(dataDir: string, env: Record<string, string> = {}): Promise<Served> {
  return serveNode(dataDir, { LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS: 'true', ...env });
}

async function kill(served: Served, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  served.child.kill(signal);
  return served.exited;
}

async function post(served: Served, setup: Setup, events: readonly unknown[]): Promise<Response> {
  return fetch(`${served.url}/ingest/zones/${setup.zoneId}/http_requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', ...setup.auth },
    body: ndjson(events),
  });
}

/** The batch POSTs (not the validation probe) a receiver got, with their names. */
function batches(receiver: Receiver): { name: string; rayIds: string[] }[] {
  return receiver.requests
    .filter((r) => typeof r.headers['x-logexport-batch'] === 'string')
    .map((r) => ({ name: String(r.headers['x-logexport-batch']), rayIds: r.lines.map((l) => String((JSON.parse(l) as { RayID: unknown }).RayID)) }));
}

/** Every RayID in `acknowledged` arrived; returns how many arrived more than once. */
function assertAllArrived(receiver: Receiver, acknowledged: readonly string[]): { duplicates: number } {
  const counts = new Map<string, number>();
  for (const batch of batches(receiver)) for (const id of batch.rayIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  const missing = acknowledged.filter((id) => !counts.has(id));
  assert.deepEqual(missing.slice(0, 10), [], `${missing.length} acknowledged events never arrived`);
  return { duplicates: [...counts.values()].filter((n) => n > 1).length };
}

/** Each RayID arrived under one batch name only, however often that batch was sent. */
function assertOneNamePerRecord(receiver: Receiver): void {
  const names = new Map<string, Set<string>>();
  for (const batch of batches(receiver)) {
    for (const id of batch.rayIds) {
      const set = names.get(id) ?? new Set<string>();
      set.add(batch.name);
      names.set(id, set);
    }
  }
  const twice = [...names.entries()].filter(([, set]) => set.size > 1);
  assert.deepEqual(twice.slice(0, 5).map(([id, set]) => `${id}: ${[...set].join(', ')}`), [], 'no record lands under two names');
}

function report(t: TestContext, what: string, acknowledged: number, duplicates: number): void {
  t.diagnostic(`${what}: ${acknowledged} events acknowledged, ${duplicates} delivered more than once (${((100 * duplicates) / Math.max(1, acknowledged)).toFixed(2)}%)`);
}

/**
 * A receiver answering after `delayMs` and a data directory whose job posts to it, for `work`; both are
 * removed afterwards.
 */
async function withDestination(limits: { records: number; intervalSeconds: number }, delayMs: number, work: (receiver: Receiver, setup: Setup) => Promise<void>): Promise<void> {
  const receiver = await startReceiver();
  if (delayMs > 0) receiver.fallback = { kind: 'status', status: 200, delayMs };
  const setup = await prepare(receiver.url, limits);
  try {
    await work(receiver, setup);
  } finally {
    await receiver.close();
    fs.rmSync(setup.dataDir, { recursive: true, force: true });
  }
}

/**
 * Starts logexport again on the data directory, waits until every acknowledged event arrived, checks that
 * no record landed under two names (and `check`), reports the duplicates, and stops it with SIGTERM.
 */
async function restartAndCheck(t: TestContext, what: string, setup: Setup, receiver: Receiver, acknowledged: readonly string[], check?: () => void): Promise<void> {
  const second = await serve(setup.dataDir);
  try {
    await waitFor('every acknowledged event at the destination', () => {
      const arrived = new Set(batches(receiver).flatMap((b) => b.rayIds));
      return acknowledged.every((id) => arrived.has(id)) ? true : undefined;
    }, 30_000, 100);
    check?.();
    const { duplicates } = assertAllArrived(receiver, acknowledged);
    assertOneNamePerRecord(receiver);
    report(t, what, acknowledged.length, duplicates);
  } finally {
    assert.deepEqual(await kill(second, 'SIGTERM'), { code: 0, signal: null });
  }
}

describe('a logexport process that is killed', () => {
  it('delivers every event that got a 200 after SIGKILL during ingest and a restart', async (t) => {
    await withDestination({ records: 500, intervalSeconds: 1 }, 0, async (receiver, setup) => {
      const first = await serve(setup.dataDir);
      const acknowledged: string[] = [];
      let next = 0;
      let stop = false;
      const client = async (): Promise<void> => {
        while (!stop) {
          const n = next++;
          const ids = Array.from({ length: 50 }, (_, i) => `ingest-${n}-${i}`);
          try {
            const res = await post(first, setup, ids.map((id) => event(id)));
            if (res.status === 200) acknowledged.push(...ids);
            else await res.text();
          } catch {
            // The server died with this request in flight; it was not acknowledged.
          }
        }
      };
      const clients = Array.from({ length: 4 }, () => client());
      await waitFor('some acknowledged requests', () => (acknowledged.length >= 50 * 40 ? true : undefined), 20_000, 5);
      const killed = await kill(first, 'SIGKILL');
      stop = true;
      await Promise.all(clients);
      assert.equal(killed.signal, 'SIGKILL');
      assert.ok(next * 50 > acknowledged.length, 'requests were in flight when it died');
      await restartAndCheck(t, 'SIGKILL during ingest', setup, receiver, acknowledged);
    });
  });

  it('re-sends the batch in flight under the same name after SIGKILL during delivery, and loses nothing', async (t) => {
    // Every batch takes 400 ms to be answered, so a batch is on its way most of the time.
    await withDestination({ records: 200, intervalSeconds: 1 }, 400, async (receiver, setup) => {
      const first = await serve(setup.dataDir);
      const acknowledged: string[] = [];
      for (let n = 0; n < 10; n++) {
        const ids = Array.from({ length: 200 }, (_, i) => `deliver-${n}-${i}`);
        const res = await post(first, setup, ids.map((id) => event(id)));
        assert.equal(res.status, 200, await res.text());
        acknowledged.push(...ids);
      }
      await waitFor('the third batch to reach the destination', () => (batches(receiver).length >= 3 ? true : undefined), 20_000, 5);
      const inFlight = batches(receiver).at(-1) ?? assert.fail('no batch');
      await kill(first, 'SIGKILL');
      await restartAndCheck(t, 'SIGKILL during delivery', setup, receiver, acknowledged, () => {
        const resent = batches(receiver).filter((b) => b.name === inFlight.name);
        assert.ok(resent.length >= 2, `the batch in flight (${inFlight.name}) was sent again`);
        for (const copy of resent) assert.deepEqual(copy.rayIds, inFlight.rayIds, 'with exactly the same records');
      });
    });
  });
});

describe('a logexport process that gets SIGTERM', () => {
  it('answers ingest with 503, delivers what was queued before the signal, and exits 0 within the deadline', async () => {
    // The batch stays open (30 s): only the shutdown sends it, to a destination that takes a second.
    await withDestination({ records: 100_000, intervalSeconds: 30 }, 1000, async (receiver, setup) => {
      const served = await serve(setup.dataDir, { LOGEXPORT_SHUTDOWN_TIMEOUT: '10s' });
      const ids = Array.from({ length: 300 }, (_, i) => `term-${i}`);
      for (let n = 0; n < 3; n++) {
        const res = await post(served, setup, ids.slice(n * 100, n * 100 + 100).map((id) => event(id)));
        assert.equal(res.status, 200);
      }
      const started = performance.now();
      served.child.kill('SIGTERM');
      let late = 0;
      const lateAcknowledged: string[] = [];
      const refused = await waitFor('a 503', async () => {
        const id = `late-${late++}`;
        const res = await post(served, setup, [event(id)]);
        if (res.status === 200) lateAcknowledged.push(id);
        return res.status === 503 ? res : undefined;
      }, 5000, 20);
      assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
      const exit = await served.exited;
      const took = performance.now() - started;
      assert.deepEqual(exit, { code: 0, signal: null });
      assert.ok(took < 10_000, `exited after ${Math.round(took)} ms`);
      const delivered = receiver.deliveredRayIds();
      assert.deepEqual(
        delivered.filter((id) => id.startsWith('term-')).sort(),
        [...ids].sort(),
        'everything queued before the signal, once',
      );
      // A request that raced the signal may have been acknowledged after the runner drained: it stays
      // queued, and the next start delivers it.
      const waiting = lateAcknowledged.filter((id) => !delivered.includes(id));
      if (waiting.length > 0) {
        const again = await serve(setup.dataDir);
        await waitFor('the late events after a restart', () => (waiting.every((id) => receiver.deliveredRayIds().includes(id)) ? true : undefined), 10_000);
        assert.deepEqual(await kill(again, 'SIGTERM'), { code: 0, signal: null });
      }
    });
  });
});
