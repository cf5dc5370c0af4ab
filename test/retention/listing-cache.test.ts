/**
 * Kept listings: a listing is read once while it is young, read again once it is old or once a change under
 * (or above) its prefix was made through the store, never kept when a change happened while it was read;
 * and the local store answers its own puts and removals at once however often it was listed before.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListingCache } from '../../src/retention/listing-cache.ts';
import { LocalSegmentStore } from '../../src/retention/local-segment-store.ts';

/** A cache over a lister that counts its reads and answers `version` of what it lists. */
function counted(maxAgeMs: number) {
  let nowMs = 0;
  let reads = 0;
  const cache = new ListingCache<string>(maxAgeMs, () => nowMs);
  const get = (prefix: string, during?: () => void): Promise<string> =>
    cache.get(prefix, async () => {
      reads += 1;
      during?.();
      return `${prefix}#${reads}`;
    });
  return { cache, get, reads: () => reads, advance: (ms: number) => (nowMs += ms) };
}

describe('kept segment listings', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-listings-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('reads a listing once while it is young, and again once it is old', async () => {
    const c = counted(1000);
    assert.equal(await c.get('z/'), 'z/#1');
    c.advance(999);
    assert.equal(await c.get('z/'), 'z/#1');
    c.advance(1);
    assert.equal(await c.get('z/'), 'z/#2');
    assert.equal(c.reads(), 2);
  });

  it('reads again the listings a change is under or holds, and only those', async () => {
    const c = counted(60_000);
    for (const prefix of ['', 'a/', 'a/20260501/', 'a/20260501/10/', 'a/20260501/11/', 'b/']) await c.get(prefix);
    assert.equal(c.reads(), 6);
    c.cache.changed('a/20260501/10/1-2-0123456789ab.parquet');
    for (const prefix of ['', 'a/', 'a/20260501/', 'a/20260501/10/']) assert.match(await c.get(prefix), /#(7|8|9|10)$/, prefix);
    assert.equal(c.reads(), 10, 'the four prefixes above the key are read again');
    await c.get('a/20260501/11/');
    await c.get('b/');
    assert.equal(c.reads(), 10, 'the neighbouring hour and the other zone are kept');
    c.cache.changed('a/');
    await c.get('a/20260501/11/');
    assert.equal(c.reads(), 11, 'a removed prefix takes what is under it');
  });

  it('does not keep a listing that a change happened during', async () => {
    const c = counted(60_000);
    assert.equal(await c.get('a/', () => c.cache.changed('a/x')), 'a/#1');
    assert.equal(await c.get('a/'), 'a/#2');
    assert.equal(await c.get('a/'), 'a/#2');
  });

  it("answers the local store's own puts and removals at once", async () => {
    const store = new LocalSegmentStore(path.join(root, 'store'));
    const put = async (key: string): Promise<void> => {
      const file = path.join(root, 'store', '.tmp');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, 'x');
      await store.put(key, file);
    };
    assert.deepEqual(await store.listPartitions(''), []);
    await put('z/20260501/10/1-2-0123456789ab.ndjson.zst');
    assert.deepEqual(await store.listPartitions(''), ['z']);
    assert.deepEqual(await store.listPartitions('z/20260501/'), ['10']);
    assert.deepEqual(await store.listKeys('z/20260501/10/'), ['z/20260501/10/1-2-0123456789ab.ndjson.zst']);
    await put('z/20260501/10/1-2-0123456789ab.parquet');
    await store.delete(['z/20260501/10/1-2-0123456789ab.ndjson.zst']);
    assert.deepEqual(await store.listKeys('z/'), ['z/20260501/10/1-2-0123456789ab.parquet']);
    assert.deepEqual(await store.list('z/'), [{ key: 'z/20260501/10/1-2-0123456789ab.parquet', bytes: 1 }]);
    await store.deletePrefix('z/20260501/');
    assert.deepEqual(await store.listPartitions('z/'), []);
    assert.deepEqual(await store.listKeys('z/'), []);
  });
});
