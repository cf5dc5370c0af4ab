/**
 * Warm sandboxes, with real DuckDB instances: a zone's queries share one locked instance that reads only
 * the zone's directory, zones never share one, a connection whose query answered is lent again with its
 * view to a query over the same files, and an instance is closed when it is the least recently used beyond
 * the cap, when it has been idle long enough, when a query found it broken, and at shutdown — never while a
 * query holds it. Which instance a connection belongs to is told by a table made in it (a test may; a
 * query cannot).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { loadDuckDB } from '../../src/explorer/duckdb-module.ts';
import { SandboxPool, type SandboxLease } from '../../src/explorer/sandbox-pool.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-sandbox-pool-'));
const dirOf = (zone: string): string => {
  const dir = path.join(root, zone);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'rows.csv'), `zone\n${zone}\n`);
  return dir + path.sep;
};
const viewOf = (dir: string): string => `CREATE OR REPLACE TEMP VIEW http_requests AS SELECT zone FROM read_csv('${dir}rows.csv')`;
const limits = { memoryBytes: 64 * 1024 * 1024, threads: 1 };

async function one(connection: DuckDBConnection, sql: string): Promise<unknown> {
  const rows = (await connection.runAndReadAll(sql)).getRowObjectsJS();
  return Object.values(rows[0] ?? {})[0];
}

/** A lease of `directory`'s sandbox with `viewSql` made on its connection, as a query takes one. */
async function viewed(pool: SandboxPool, directory: string, viewSql: string): Promise<SandboxLease> {
  const lease = await pool.acquire(await loadDuckDB(), directory, viewSql);
  await lease.view(viewSql);
  return lease;
}

/** Whether the connection still runs statements. */
async function isOpen(connection: DuckDBConnection): Promise<boolean> {
  try {
    await connection.run('SELECT 1');
    return true;
  } catch {
    return false;
  }
}

/** Marks the lease's instance, and tells whether another lease's connection sees the mark. */
async function sameInstance(a: SandboxLease, b: SandboxLease): Promise<boolean> {
  const mark = `mark_${Math.random().toString(36).slice(2)}`;
  await a.connection.run(`CREATE TABLE ${mark} AS SELECT 1 AS x`);
  try {
    await b.connection.run(`SELECT * FROM ${mark}`);
    return true;
  } catch {
    return false;
  }
}

describe('warm Log Explorer sandboxes', () => {
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it("lends a zone's one instance to each of its queries, and another zone's to that zone", async () => {
    const pool = new SandboxPool(limits, { maxWarm: 4, idleMs: 60_000, now: () => 0 });
    const a = dirOf('a');
    const b = dirOf('b');
    const first = await viewed(pool, a, viewOf(a));
    const second = await viewed(pool, a, viewOf(a));
    const other = await viewed(pool, b, viewOf(b));
    assert.notEqual(first.connection, second.connection, 'queries at once get connections of their own');
    assert.equal(await sameInstance(first, second), true);
    assert.equal(await sameInstance(first, other), false);
    assert.equal(await one(first.connection, 'SELECT zone FROM http_requests'), 'a');
    assert.equal(await one(other.connection, 'SELECT zone FROM http_requests'), 'b');
    await assert.rejects(one(first.connection, `SELECT zone FROM read_csv('${b}rows.csv')`), /Permission Error/);
    await assert.rejects(one(first.connection, `SELECT zone FROM read_csv('${a}../b/rows.csv')`), /Permission Error/);
    await assert.rejects(first.connection.run(`SET allowed_directories = ['${root}']`), /locked/);
    for (const lease of [first, second, other]) lease.release('answered');
    pool.close();
  });

  it('gives every connection the instance-wide settings: UTC, and Parquet footers read once', async () => {
    const pool = new SandboxPool(limits, { maxWarm: 4, idleMs: 60_000, now: () => 0 });
    const a = dirOf('settings');
    const lease = await viewed(pool, a, viewOf(a));
    // Set on the connection that built the sandbox, these would hold for it alone (it is closed before any query).
    assert.equal(await one(lease.connection, "SELECT current_setting('TimeZone')"), 'UTC');
    assert.equal(await one(lease.connection, "SELECT current_setting('parquet_metadata_cache')"), true);
    assert.equal(await one(lease.connection, "SELECT strftime(TIMESTAMPTZ '2026-01-01 00:30:00+00', '%Y-%m-%d %H')"), '2026-01-01 00');
    lease.release('answered');
    pool.close();
  });

  it("lends an answered query's connection first to a query asking for its view, else to any query, which makes its own view on it", async () => {
    const pool = new SandboxPool(limits, { maxWarm: 4, idleMs: 60_000, now: () => 0 });
    const c = dirOf('c');
    const otherView = `CREATE OR REPLACE TEMP VIEW http_requests AS SELECT 'other files' AS zone`;
    const answered = await viewed(pool, c, viewOf(c));
    answered.release('answered');
    const again = await viewed(pool, c, viewOf(c));
    assert.equal(again.connection, answered.connection);
    const other = await viewed(pool, c, otherView);
    assert.notEqual(other.connection, answered.connection, 'a connection a query holds is lent to no other');
    assert.equal(await one(other.connection, 'SELECT zone FROM http_requests'), 'other files');
    other.release('answered');
    again.release('answered');
    const sameView = await viewed(pool, c, otherView);
    assert.equal(sameView.connection, other.connection, 'the idle connection with the view asked for, though another was used since');
    sameView.release('answered');
    const anyView = await viewed(pool, c, `CREATE OR REPLACE TEMP VIEW http_requests AS SELECT 'a third view' AS zone`);
    assert.equal(anyView.connection, other.connection, 'else the most recently used idle one');
    assert.equal(await one(anyView.connection, 'SELECT zone FROM http_requests'), 'a third view');
    anyView.release('failed');
    assert.equal(await isOpen(anyView.connection), false, 'a failed query leaves nothing behind');
    const last = await viewed(pool, c, viewOf(c));
    assert.equal(last.connection, answered.connection);
    assert.equal(await one(last.connection, 'SELECT zone FROM http_requests'), 'c');
    last.release('answered');
    pool.close();
    assert.equal(await isOpen(last.connection), false);
  });

  it('closes the least recently used idle instance beyond the cap, and never one a query holds', async () => {
    const pool = new SandboxPool(limits, { maxWarm: 2, idleMs: 60_000, now: () => 0 });
    const held = await viewed(pool, dirOf('d'), viewOf(dirOf('d')));
    const idle = await viewed(pool, dirOf('e'), viewOf(dirOf('e')));
    idle.release('answered');
    const third = await viewed(pool, dirOf('f'), viewOf(dirOf('f')));
    assert.equal(await isOpen(idle.connection), false, 'the idle one made room');
    assert.equal(await isOpen(held.connection), true);
    // Two held and a fourth asked for: the cap waits for a release rather than closing a held one.
    const fourth = await viewed(pool, dirOf('g'), viewOf(dirOf('g')));
    assert.equal(await isOpen(held.connection), true);
    assert.equal(await isOpen(third.connection), true);
    assert.equal(pool.size, 3);
    for (const lease of [held, third, fourth]) lease.release('answered');
    pool.close();
    for (const lease of [held, third, fourth]) assert.equal(await isOpen(lease.connection), false);
    assert.equal(pool.size, 0);
  });

  it('closes an instance idle for idleMs, one a query found broken, and the held ones at shutdown once released', async () => {
    let now = 0;
    const pool = new SandboxPool(limits, { maxWarm: 4, idleMs: 1000, now: () => now });
    const h = dirOf('h');
    const idle = await viewed(pool, h, viewOf(h));
    idle.release('answered');
    now = 999;
    pool.closeIdle();
    assert.equal(await isOpen(idle.connection), true);
    now = 1000;
    pool.closeIdle();
    assert.equal(await isOpen(idle.connection), false);

    const broken = await viewed(pool, h, viewOf(h));
    const beside = await viewed(pool, h, viewOf(h));
    broken.release('broken');
    assert.equal(await isOpen(broken.connection), false);
    assert.equal(await isOpen(beside.connection), true, 'a query still holds the broken instance: it ends first');
    const fresh = await viewed(pool, h, viewOf(h));
    assert.equal(await sameInstance(beside, fresh), false, 'the next query gets a new instance');
    beside.release('answered');
    assert.equal(await isOpen(beside.connection), false, 'the broken instance is closed, not kept');

    pool.close();
    assert.equal(await isOpen(fresh.connection), true, 'a query still holds it');
    fresh.release('answered');
    assert.equal(await isOpen(fresh.connection), false);
    assert.equal(pool.size, 0);
  });
});
