/**
 * Warm sandboxes, with real DuckDB instances: a zone's queries share one locked instance that reads only
 * the zone's directory, zones never share one, and an instance is closed when it is the least recently
 * used beyond the cap, when it has been idle long enough, when a query found it broken, and at shutdown —
 * never while a query holds it.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadDuckDB } from '../../src/explorer/duckdb-module.ts';
import { SandboxPool } from '../../src/explorer/sandbox-pool.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-sandbox-pool-'));
const dirOf = (zone: string): string => {
  const dir = path.join(root, zone);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'rows.csv'), `zone\n${zone}\n`);
  return dir + path.sep;
};
const limits = { memoryBytes: 64 * 1024 * 1024, threads: 1 };

/** Whether the instance still takes connections. */
async function isOpen(instance: { connect(): Promise<{ closeSync(): void }> }): Promise<boolean> {
  try {
    (await instance.connect()).closeSync();
    return true;
  } catch {
    return false;
  }
}

/** What a query of the instance reads from a file. */
async function readZone(instance: Awaited<ReturnType<SandboxPool['acquire']>>['instance'], file: string): Promise<string> {
  const connection = await instance.connect();
  try {
    const rows = (await connection.runAndReadAll(`SELECT zone FROM read_csv('${file}')`)).getRowObjectsJS();
    return String(rows[0]?.zone);
  } finally {
    connection.closeSync();
  }
}

describe('warm Log Explorer sandboxes', () => {
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it("lends a zone's one instance to each of its queries, and another zone's to that zone", async () => {
    const duck = await loadDuckDB();
    const pool = new SandboxPool(limits, { maxWarm: 4, idleMs: 60_000, now: () => 0 });
    const a = dirOf('a');
    const b = dirOf('b');
    const first = await pool.acquire(duck, a);
    const second = await pool.acquire(duck, a);
    const other = await pool.acquire(duck, b);
    assert.equal(first.instance, second.instance);
    assert.notEqual(first.instance, other.instance);
    assert.equal(await readZone(first.instance, `${a}rows.csv`), 'a');
    await assert.rejects(readZone(first.instance, `${b}rows.csv`), /Permission Error/);
    await assert.rejects(readZone(first.instance, `${a}../b/rows.csv`), /Permission Error/);
    assert.equal(await readZone(other.instance, `${b}rows.csv`), 'b');
    for (const lease of [first, second, other]) lease.release(false);
    assert.equal((await pool.acquire(duck, a)).instance, first.instance, 'kept warm after its queries');
    pool.close();
  });

  it('closes the least recently used idle instance beyond the cap, and never one a query holds', async () => {
    const duck = await loadDuckDB();
    const pool = new SandboxPool(limits, { maxWarm: 2, idleMs: 60_000, now: () => 0 });
    const held = await pool.acquire(duck, dirOf('c'));
    const idle = await pool.acquire(duck, dirOf('d'));
    idle.release(false);
    const third = await pool.acquire(duck, dirOf('e'));
    assert.equal(await isOpen(idle.instance), false, 'the idle one made room');
    assert.equal(await isOpen(held.instance), true);
    // Two held and a third asked for: the cap waits for a release rather than closing a held one.
    const fourth = await pool.acquire(duck, dirOf('f'));
    assert.equal(await isOpen(held.instance), true);
    assert.equal(await isOpen(third.instance), true);
    assert.equal(pool.size, 3);
    for (const lease of [held, third, fourth]) lease.release(false);
    pool.close();
    for (const lease of [held, third, fourth]) assert.equal(await isOpen(lease.instance), false);
  });

  it('closes an instance idle for idleMs, one a query found broken, and the held ones at shutdown once released', async () => {
    const duck = await loadDuckDB();
    let now = 0;
    const pool = new SandboxPool(limits, { maxWarm: 4, idleMs: 1000, now: () => now });
    const idle = await pool.acquire(duck, dirOf('g'));
    idle.release(false);
    now = 999;
    pool.closeIdle();
    assert.equal(await isOpen(idle.instance), true);
    now = 1000;
    pool.closeIdle();
    assert.equal(await isOpen(idle.instance), false);

    const broken = await pool.acquire(duck, dirOf('h'));
    broken.release(true);
    assert.equal(await isOpen(broken.instance), false);
    const fresh = await pool.acquire(duck, dirOf('h'));
    assert.notEqual(fresh.instance, broken.instance);

    pool.close();
    assert.equal(await isOpen(fresh.instance), true, 'a query still holds it');
    fresh.release(false);
    assert.equal(await isOpen(fresh.instance), false);
    assert.equal(pool.size, 0);
  });
});
