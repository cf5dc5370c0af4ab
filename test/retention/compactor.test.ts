/**
 * The compaction of hot segments into Parquet: one Parquet segment per partition's worth of hot ones, the
 * same answers before and after; a duplicate key normalised on the way (the last value, as ingest's
 * JSON.parse and therefore every job saw it); a segment nothing can read quarantined while the rest goes on;
 * nothing started while ingest is saturated; and a SIGKILL at each step of a compaction loses and duplicates
 * nothing (a child process stopped dead at the step, then killed).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpRequests } from '../../src/domain/datasets/http-requests.ts';
import type { IngestLoad } from '../../src/retention/compactor.ts';
import { LocalSegmentStore } from '../../src/retention/local-segment-store.ts';
import { readRetained } from '../../src/retention/retained-reader.ts';
import { SegmentEngine } from '../../src/retention/segment-engine.ts';
import { hotAt, putHotSegment, rayLines, recordingLogger, retainedRayIds, testCompactor } from './support/hot-segments.ts';

const zone = 'c'.repeat(32);
const roots: string[] = [];
const engines: SegmentEngine[] = [];

function setUp() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-compact-'));
  roots.push(root);
  const engine = new SegmentEngine();
  engines.push(engine);
  const segments = new LocalSegmentStore(root);
  return { root, segments, source: { segments, engine, workDir: path.join(root, '.work') } };
}

after(() => {
  for (const engine of engines) engine.close();
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

async function keysOf(segments: LocalSegmentStore): Promise<string[]> {
  return (await segments.list(`${zone}/`)).map((e) => e.key.slice(e.key.lastIndexOf('/') + 1));
}

const sorted = (ids: readonly string[]) => [...ids].sort();

describe('the compaction', () => {
  it('turns a partition of hot segments into one Parquet segment with its covers list, and answers the same', async () => {
    const { root, segments, source } = setUp();
    await putHotSegment(segments, root, zone, 'a', rayLines('a', 0, 250));
    await putHotSegment(segments, root, zone, 'b', rayLines('b', 0, 250));
    const before = await retainedRayIds(source, zone);
    assert.equal(before.length, 500);
    const compactor = testCompactor(segments, source.workDir);
    await compactor.compactNow();
    const names = await keysOf(segments);
    assert.equal(names.filter((n) => n.endsWith('.parquet')).length, 1, names.join());
    assert.equal(names.filter((n) => n.endsWith('.covers.json')).length, 1, names.join());
    assert.equal(names.filter((n) => n.endsWith('.ndjson.zst')).length, 0, names.join());
    assert.deepEqual(sorted(await retainedRayIds(source, zone)), sorted(before));
    assert.deepEqual(compactor.backlog(), { hotSegments: 0, hotBytes: 0, oldestReceivedMs: undefined });
    assert.equal(compactor.compactions, 1);
    assert.equal(compactor.compactedHotSegments, 2);
  });

  it('keeps the last value of a key written twice, with its digits as sent, in both tiers', async () => {
    const { root, segments, source } = setUp();
    const poison = '{"RayID":"first","EdgeStartTimestamp":1790000000000000001,"RayID":"last","EdgeStartTimestamp":1790000000000000123}';
    await putHotSegment(segments, root, zone, 'p', [...rayLines('ok', 0, 10), poison]);
    const window = { startNs: BigInt(hotAt) * 1_000_000n, endNs: BigInt(hotAt + 1) * 1_000_000n };
    const fields = httpRequests.fields.filter((f) => f.name === 'RayID' || f.name === 'EdgeStartTimestamp');
    const read = async () => {
      const records: Record<string, unknown>[] = [];
      for await (const batch of readRetained(source, zone, window, httpRequests, fields)) records.push(...batch);
      return records.find((r) => r.RayID === 'last' || r.RayID === 'first');
    };
    // A reader meets the line first: the segment is normalised and the query answers.
    assert.deepEqual(await read(), { RayID: 'last', EdgeStartTimestamp: '1790000000000000123' });
    const log = recordingLogger();
    const compactor = testCompactor(segments, source.workDir, { log });
    await putHotSegment(segments, root, zone, 'q', [poison.replace('"last"', '"last2"')]);
    await compactor.compactNow();
    assert.deepEqual(await read(), { RayID: 'last', EdgeStartTimestamp: '1790000000000000123' });
    assert.equal((await retainedRayIds(source, zone)).length, 12);
    assert.ok((await retainedRayIds(source, zone)).includes('last2'));
    assert.deepEqual(compactor.quarantined, []);
    assert.equal((await keysOf(segments)).filter((n) => n.endsWith('.ndjson.zst')).length, 0);
  });

  it('quarantines a segment nothing can read, once, and goes on with the others', async () => {
    const { root, segments, source } = setUp();
    await putHotSegment(segments, root, zone, 'good', rayLines('g', 0, 20));
    // A line ingest would never have let through: a lone surrogate DuckDB cannot read.
    await putHotSegment(segments, root, zone, 'bad', ['{"RayID":"x\\ud800"}']);
    const log = recordingLogger();
    const compactor = testCompactor(segments, source.workDir, { log });
    await compactor.compactNow();
    assert.equal(compactor.quarantined.length, 1);
    assert.match(compactor.quarantined[0]?.key ?? '', new RegExp(`^${zone}/quarantine/20260502-10-\\d+-\\d+-[0-9a-f]{12}\\.ndjson\\.zst$`));
    assert.equal(log.lines.filter((l) => l.level === 'error' && l.msg.includes('quarantined')).length, 1);
    assert.deepEqual(sorted(await retainedRayIds(source, zone)), sorted(rayLines('g', 0, 20).map((l) => (JSON.parse(l) as { RayID: string }).RayID)));
    const names = (await segments.list(`${zone}/`)).map((e) => e.key);
    assert.ok(names.some((k) => k.includes('/quarantine/')));
    assert.equal(names.filter((k) => k.endsWith('.ndjson.zst') && !k.includes('/quarantine/')).length, 0);
  });

  it('names the quarantined segment in `logexport sources`, read from the data directory', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-compact-cli-'));
    roots.push(dataDir);
    const root = path.join(dataDir, 'retained');
    fs.mkdirSync(root);
    const segments = new LocalSegmentStore(root);
    await putHotSegment(segments, root, zone, 'bad', ['{"RayID":"x\\ud800"}']);
    await putHotSegment(segments, root, zone, 'later', rayLines('l', 0, 5), hotAt + 3_600_000);
    const compactor = testCompactor(segments, path.join(root, '.work'));
    await compactor.compactNow();
    const bin = fileURLToPath(new URL('../../bin/logexport.mjs', import.meta.url));
    const run = spawnSync(process.execPath, [bin, 'sources', '--data-dir', dataDir], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const printed = JSON.parse(run.stdout) as { retention: { zone_id: string; hot_segments: number; compacted_segments: number; quarantined: string[] }[] };
    assert.deepEqual(printed.retention, [{ zone_id: zone, hot_segments: 0, hot_bytes: 0, compacted_segments: 1, quarantined: [compactor.quarantined[0]?.key] }]);
  });

  /**
   * A compaction held back while `hold` says so: it starts nothing, shows its backlog, and catches up once
   * `release` is called. `load` and `spareCores` are what the compactor reads of ingest and of the machine.
   */
  async function holdsBackThenCatchesUp(load: () => IngestLoad, spareCores: () => number | undefined, release: () => void): Promise<void> {
    const { root, segments, source } = setUp();
    const compactor = testCompactor(segments, source.workDir, { load, spareCores });
    compactor.start();
    try {
      // Held back in every sample the compaction took.
      while (!compactor.saturated()) await new Promise((resolve) => setTimeout(resolve, 50));
      await putHotSegment(segments, root, zone, 'a', rayLines('a', 0, 10));
      compactor.added({ zoneId: zone, key: (await segments.list(`${zone}/`))[0]?.key ?? '', bytes: 100, events: 10 });
      for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(compactor.compactions, 0);
      assert.equal(compactor.backlog().hotSegments, 1);
      assert.equal(compactor.backlog().oldestReceivedMs, hotAt);
      release();
      while (compactor.compactions === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(compactor.backlog().hotSegments, 0);
    } finally {
      await compactor.stop();
    }
  }

  it('starts nothing while ingest is saturated, and catches up once it is not', async () => {
    let busy = true;
    await holdsBackThenCatchesUp(
      () => (busy ? 'saturated' : 'idle'),
      () => undefined,
      () => (busy = false),
    );
  });

  it('starts nothing while ingest works and the machine has less than its budget idle, and catches up once it has more', async () => {
    // Ingest's workers never all look busy (a machine shared with other work starves them instead), but no core is idle.
    let spare = 0;
    await holdsBackThenCatchesUp(
      () => 'working',
      () => spare,
      () => (spare = 2),
    );
  });
});

describe('SIGKILL during a compaction', () => {
  const fixture = fileURLToPath(new URL('./fixtures/compact-until-killed.ts', import.meta.url));
  for (const step of ['covers', 'parquet', 'delete'] as const) {
    it(`loses and duplicates nothing when killed once the ${step === 'delete' ? 'first hot segment is removed' : `${step} is stored`}`, async () => {
      const { root, segments, source } = setUp();
      const expected: string[] = [];
      for (const tag of ['a', 'b', 'c']) {
        const lines = rayLines(tag, 0, 300);
        await putHotSegment(segments, root, zone, tag, lines);
        expected.push(...lines.map((l) => (JSON.parse(l) as { RayID: string }).RayID));
      }
      const child = spawn(process.execPath, ['--import', 'tsx', fixture, root, step], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes(`paused ${step}`)) resolve();
        });
        child.on('exit', (code) => reject(new Error(`the child exited (${code}) before it reached ${step}: ${out}`)));
      });
      child.kill('SIGKILL');
      await exited;
      // Whatever the compaction left, every event is read once…
      assert.deepEqual(sorted(await retainedRayIds(source, zone)), sorted(expected));
      // …and the next compaction finishes the work.
      await testCompactor(segments, source.workDir).compactNow();
      assert.deepEqual(sorted(await retainedRayIds(source, zone)), sorted(expected));
      const names = await keysOf(segments);
      assert.equal(names.filter((n) => n.endsWith('.ndjson.zst')).length, 0, names.join());
      assert.equal(names.filter((n) => n.endsWith('.parquet')).length, 1, names.join());
    });
  }
});
