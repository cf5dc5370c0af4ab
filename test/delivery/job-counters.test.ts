/**
 * Job counters: values add up, the per-minute series of delivered records merges by minute and keeps one
 * hour, a node's counters survive a restart through the store, and the API's total sums this node's live
 * counters with the rows other nodes stored.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/core/clock.ts';
import { CounterRegistry } from '../../src/delivery/counter-registry.ts';
import { addCounterValues, emptyCounterValues, JobCounters, mergeSeries, seriesMinutes, type StoredCounters } from '../../src/delivery/job-counters.ts';
import type { JobCounterRow, Store } from '../../src/store/store.ts';

const minute = 60_000;
const t0 = Date.UTC(2026, 4, 2, 10, 0, 0);
const at = (ms: number): string => new Date(ms).toISOString();

/** The two store calls the registry makes, kept in memory. */
function counterStore(): { store: Store; rows: Map<string, JobCounterRow> } {
  const rows = new Map<string, JobCounterRow>();
  const partial: Pick<Store, 'putJobCounters' | 'listJobCounters'> = {
    async putJobCounters(row) {
      rows.set(`${row.jobId}/${row.node}`, row);
    },
    async listJobCounters(jobId) {
      return [...rows.values()].filter((r) => r.jobId === jobId);
    },
  };
  return { store: partial as Store, rows };
}

describe('counter values', () => {
  it('add every counter and every drop reason', () => {
    const a = { ...emptyCounterValues(), received: 5, delivered_records: 3, dropped: { unreadable: 1 } };
    const b = { ...emptyCounterValues(), received: 2, failures: 4, retries: 3, dropped: { unreadable: 2, missing_from_queue: 7 } };
    assert.deepEqual(addCounterValues(a, b), {
      ...emptyCounterValues(),
      received: 7,
      delivered_records: 3,
      failures: 4,
      retries: 3,
      dropped: { unreadable: 3, missing_from_queue: 7 },
    });
  });
});

describe('mergeSeries', () => {
  it('sums points of the same minute from several nodes and orders them oldest first', () => {
    const merged = mergeSeries(
      [
        [{ at: at(t0), delivered_records: 5 }, { at: at(t0 + 2 * minute), delivered_records: 1 }],
        [{ at: at(t0 + minute), delivered_records: 2 }, { at: at(t0), delivered_records: 10 }],
      ],
      t0 + 3 * minute,
    );
    assert.deepEqual(merged, [
      { at: at(t0), delivered_records: 15 },
      { at: at(t0 + minute), delivered_records: 2 },
      { at: at(t0 + 2 * minute), delivered_records: 1 },
    ]);
  });

  it('keeps the last hour only and ignores points it cannot read', () => {
    const now = t0 + 90 * minute;
    const merged = mergeSeries(
      [[{ at: at(t0), delivered_records: 1 }, { at: at(now - (seriesMinutes - 1) * minute), delivered_records: 2 }, { at: 'yesterday', delivered_records: 3 }]],
      now,
    );
    assert.deepEqual(merged, [{ at: at(now - (seriesMinutes - 1) * minute), delivered_records: 2 }]);
  });
});

describe('JobCounters', () => {
  it('counts deliveries into the totals and the minute they happened in', () => {
    const counters = new JobCounters();
    assert.equal(counters.dirty, false);
    counters.count('received', 10);
    counters.count('filtered_out', 4);
    counters.drop('unreadable');
    counters.delivered(6, 321, t0 + 5000);
    counters.delivered(2, 100, t0 + 20_000);
    counters.delivered(1, 50, t0 + minute);
    assert.equal(counters.dirty, true);
    const snapshot = counters.snapshot(t0 + minute);
    assert.deepEqual(snapshot.counters, {
      ...emptyCounterValues(),
      received: 10,
      filtered_out: 4,
      delivered_records: 9,
      delivered_bytes: 471,
      batches: 3,
      dropped: { unreadable: 1 },
    });
    assert.deepEqual(snapshot.series, [
      { at: at(t0), delivered_records: 8 },
      { at: at(t0 + minute), delivered_records: 1 },
    ]);
  });

  it('gives snapshots that later counting does not change', () => {
    const counters = new JobCounters();
    counters.count('received');
    const snapshot = counters.snapshot(t0);
    counters.count('received');
    counters.drop('x');
    assert.equal(snapshot.counters.received, 1);
    assert.deepEqual(snapshot.counters.dropped, {});
  });

  it('drops minutes older than an hour from its series', () => {
    const counters = new JobCounters();
    counters.delivered(1, 1, t0);
    counters.delivered(1, 1, t0 + 30 * minute);
    assert.deepEqual(counters.snapshot(t0 + 70 * minute).series, [{ at: at(t0 + 30 * minute), delivered_records: 1 }]);
    assert.equal(counters.snapshot(t0 + 70 * minute).counters.delivered_records, 2, 'totals are kept forever');
  });

  it('continues from stored counters', () => {
    const stored: StoredCounters = { counters: { ...emptyCounterValues(), received: 7, dropped: { unreadable: 1 } }, series: [{ at: at(t0), delivered_records: 3 }] };
    const counters = new JobCounters(stored);
    counters.count('received');
    counters.delivered(1, 1, t0 + 1000);
    const snapshot = counters.snapshot(t0 + 2000);
    assert.equal(snapshot.counters.received, 8);
    assert.deepEqual(snapshot.series, [{ at: at(t0), delivered_records: 4 }]);
    assert.equal(stored.counters.received, 7, 'the stored value is not changed');
  });
});

describe('CounterRegistry', () => {
  it('writes changed counters, one row per job and node, and continues from them after a restart', async () => {
    const { store, rows } = counterStore();
    const clock = new ManualClock(t0);
    const before = new CounterRegistry(store, clock, 'node-a');
    const counters = await before.forJob(1);
    assert.equal(await before.forJob(1), counters, 'one live object per job');
    counters.count('received', 3);
    counters.delivered(3, 99, t0);
    await before.flush();
    assert.equal(rows.size, 1);
    assert.equal(counters.dirty, false);
    const written = rows.get('1/node-a');
    await before.flush();
    assert.equal(rows.get('1/node-a'), written, 'an unchanged job is not written again');

    const after = new CounterRegistry(store, clock, 'node-a');
    const resumed = await after.forJob(1);
    resumed.count('received');
    assert.equal(resumed.values.received, 4);
    assert.equal(resumed.values.delivered_records, 3);
  });

  it("sums this node's live counters with other nodes' stored rows, counting its own stored row once", async () => {
    const { store } = counterStore();
    const clock = new ManualClock(t0 + 30_000);
    const other = new CounterRegistry(store, clock, 'node-b');
    const theirs = await other.forJob(5);
    theirs.count('received', 10);
    theirs.delivered(10, 1000, t0);
    await other.flush();

    const ours = new CounterRegistry(store, clock, 'node-a');
    const mine = await ours.forJob(5);
    mine.count('received', 4);
    mine.delivered(4, 400, t0 + 10_000);
    await ours.flush();
    mine.count('received', 1);

    const total = await ours.total(5);
    assert.equal(total.counters.received, 15, 'live values win over our own stored row');
    assert.equal(total.counters.delivered_records, 14);
    assert.equal(total.counters.batches, 2);
    assert.deepEqual(total.series, [{ at: at(t0), delivered_records: 14 }]);
    assert.deepEqual((await ours.total(6)).counters, { ...emptyCounterValues(), pending: 0 }, 'a job nothing was counted for');
  });

  it('shows the records of batches not done yet as received and pending, without storing them, until settled or released', async () => {
    const { store, rows } = counterStore();
    const registry = new CounterRegistry(store, new ManualClock(t0), 'node-a');
    const counters = await registry.forJob(3);
    const runner = {};
    const open = counters.openTally(runner);
    open.received += 10;
    open.filtered_out += 2;
    open.sampled_out += 1;
    const retried = counters.openTally(runner);
    retried.received += 5;
    retried.dropped.unreadable = 1;
    let total = await registry.total(3);
    assert.deepEqual([total.counters.received, total.counters.filtered_out, total.counters.sampled_out, total.counters.dropped.unreadable, total.counters.pending], [15, 2, 1, 1, 11]);
    await registry.flushJob(3);
    assert.equal(JSON.parse(rows.get('3/node-a')?.counters ?? '{}').counters.received, 0, 'records of open batches are never stored');

    counters.settle(retried, 'range-1');
    counters.delivered(4, 100, t0);
    total = await registry.total(3);
    assert.deepEqual([total.counters.received, total.counters.delivered_records, total.counters.pending], [15, 4, 7], 'a settled batch is counted once');

    const next = counters.openTally(runner);
    next.received += 3;
    counters.releaseAll(runner);
    total = await registry.total(3);
    assert.deepEqual([total.counters.received, total.counters.pending], [5, 0], 'a stopped runner leaves its open batches to be counted by whoever delivers them');
  });

  it('ignores a stored row it cannot read', async () => {
    const { store } = counterStore();
    await store.putJobCounters({ jobId: 2, node: 'broken', counters: 'not json', updatedAt: at(t0) });
    const registry = new CounterRegistry(store, new ManualClock(t0), 'node-a');
    (await registry.forJob(2)).count('received');
    assert.equal((await registry.total(2)).counters.received, 1);
  });

  it('remembers the range of the last batch it counted, across a restart with another node id', async () => {
    const { store } = counterStore();
    const clock = new ManualClock(t0);
    const before = new CounterRegistry(store, clock, 'node-a:1234');
    const counters = await before.forJob(9);
    counters.settle({ received: 5, filtered_out: 1, sampled_out: 1, dropped: { unreadable: 2 } }, 'range-1');
    await before.flushJob(9);
    assert.equal(await before.wasCounted(9, 'range-1'), true);

    const after = new CounterRegistry(store, clock, 'node-a:5678');
    assert.equal(await after.wasCounted(9, 'range-1'), true);
    assert.equal(await after.wasCounted(9, 'range-2'), false);
    const total = await after.total(9);
    assert.deepEqual([total.counters.received, total.counters.filtered_out, total.counters.sampled_out, total.counters.dropped.unreadable], [5, 1, 1, 2]);
  });
});
