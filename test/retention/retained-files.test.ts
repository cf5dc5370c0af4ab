/**
 * Which files hold a window's events: only the hour partitions that exist are visited (a window of
 * centuries costs what is stored, not one listing per hour), a file outside the window is skipped by its
 * name, and a hot segment a compacted one already holds is left out.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalSegmentStore } from '../../src/retention/local-segment-store.ts';
import { partitionsOfWindow, segmentsOfWindow } from '../../src/retention/retained-files.ts';
import { compactedSegmentKey, coversKeyOf, parseSegmentKey } from '../../src/retention/segment-names.ts';
import type { SegmentStore } from '../../src/retention/segment-store.ts';
import { hotAt, putHotSegment, rayLines } from './support/hot-segments.ts';

const zone = 'f'.repeat(32);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-files-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** The store, counting its listings. */
function counting(inner: SegmentStore): SegmentStore & { listings: number } {
  const store = {
    listings: 0,
    put: (key: string, file: string) => inner.put(key, file),
    list: (prefix: string) => {
      store.listings += 1;
      return inner.list(prefix);
    },
    listKeys: (prefix: string) => {
      store.listings += 1;
      return inner.listKeys(prefix);
    },
    listPartitions: (prefix: string) => {
      store.listings += 1;
      return inner.listPartitions(prefix);
    },
    open: (key: string) => inner.open(key),
    delete: (keys: readonly string[]) => inner.delete(keys),
    deletePrefix: (prefix: string) => inner.deletePrefix(prefix),
    zoneDirectory: (zoneId: string) => inner.zoneDirectory(zoneId),
    close: () => inner.close(),
  };
  return store;
}

describe("a window's files", () => {
  const inner = new LocalSegmentStore(root);
  const store = counting(inner);

  it('visits only the partitions that exist, however long the window', async () => {
    await putHotSegment(inner, root, zone, 'a', rayLines('a', 0, 3));
    await putHotSegment(inner, root, zone, 'b', rayLines('b', 0, 3), hotAt + 2 * 3_600_000);
    await putHotSegment(inner, root, zone, 'c', rayLines('c', 0, 3), hotAt + 30 * 86_400_000);
    store.listings = 0;
    const years = { startMs: Date.UTC(2000, 0, 1), endMs: Date.UTC(9999, 11, 31) };
    assert.deepEqual(await partitionsOfWindow(store, zone, years), ['20260502/10', '20260502/12', '20260601/10']);
    // The zone's days, then the hours of each of its two days.
    assert.equal(store.listings, 3);
    const found = await segmentsOfWindow(store, zone, years);
    assert.equal(found.hot.length, 3);
    assert.deepEqual(await partitionsOfWindow(store, zone, { startMs: hotAt + 3_600_000, endMs: hotAt + 3 * 3_600_000 }), ['20260502/12']);
    assert.deepEqual(await partitionsOfWindow(store, zone, { startMs: hotAt, endMs: hotAt }), []);
  });

  it('skips a segment whose receive times lie outside the window, by its name', async () => {
    const found = await segmentsOfWindow(store, zone, { startMs: hotAt + 1, endMs: hotAt + 3_600_000 });
    assert.deepEqual([...found.hot, ...found.compacted], []);
  });

  it('leaves out a hot segment that a compacted segment holds, but only while that segment exists', async () => {
    const hot = (await inner.list(`${zone}/20260502/10/`)).flatMap((e) => parseSegmentKey(e.key) ?? []);
    const compacted = compactedSegmentKey(hot);
    const file = path.join(root, '.covers');
    fs.writeFileSync(file, JSON.stringify({ hot: hot.map((h) => h.key.slice(h.key.lastIndexOf('/') + 1)) }));
    await inner.put(coversKeyOf(compacted), file);
    const window = { startMs: hotAt, endMs: hotAt + 1 };
    // A covers list without its segment (a compaction that died before storing it) covers nothing.
    assert.deepEqual((await segmentsOfWindow(store, zone, window)).hot.map((h) => h.key), hot.map((h) => h.key));
    fs.writeFileSync(file, 'parquet');
    await inner.put(compacted, file);
    const found = await segmentsOfWindow(store, zone, window);
    assert.deepEqual(found.hot, []);
    assert.deepEqual(found.compacted.map((c) => c.key), [compacted]);
  });
});
