/**
 * The embedded (SQLite) queue: the queue contract, then what only it promises — retention by the replay
 * window, exact pending bytes, refused commits, dedupe, the single-process lock, and durability across
 * SIGKILL of a child process that appends or holds a batch in flight.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { ManualClock } from '../../../src/core/clock.ts';
import { openEmbeddedQueue, type EmbeddedQueue, type EmbeddedQueueOptions } from '../../../src/queue/embedded/embedded-queue.ts';
import type { EventQueue, InflightBatch, QueueChunk, StreamKey } from '../../../src/queue/queue.ts';
import { durabilityStream, numberedChunks } from '../fixtures/numbered-appends.ts';
import { batchOf, chunkOf, describeQueueContract, drain, openRecords } from '../queue-contract.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-queue-'));
}

describeQueueContract('the embedded queue', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'queue.db');
  let current: EventQueue = await openEmbeddedQueue({ path: file, replayWindowMs: 3_600_000 });
  return {
    queue: current,
    reopen: async () => {
      await current.close();
      current = await openEmbeddedQueue({ path: file, replayWindowMs: 3_600_000 });
      return current;
    },
    dispose: async () => {
      await current.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('the embedded queue', () => {
  let dir: string;
  let file: string;
  let clock: ManualClock;
  let queue: EmbeddedQueue;
  const stream: StreamKey = { zoneId: 'a'.repeat(32), dataset: 'http_requests' };
  const minute = 60_000;

  const open = (options: Partial<EmbeddedQueueOptions> = {}): Promise<EmbeddedQueue> =>
    openEmbeddedQueue({ path: file, replayWindowMs: 10 * minute, clock, ...options });
  const reopen = async (options: Partial<EmbeddedQueueOptions> = {}): Promise<EmbeddedQueue> => {
    await queue.close();
    queue = await open(options);
    return queue;
  };
  /** Whether chunk `seq` is still stored; the probe consumer it uses starts at the end, holding nothing back. */
  const present = async (seq: number): Promise<boolean> => {
    await queue.resetConsumer(stream, 'probe');
    const probe = await queue.openConsumer(stream, 'probe');
    return probe.readChunks([seq]).then(
      () => true,
      () => false,
    );
  };

  beforeEach(async () => {
    dir = tempDir();
    file = path.join(dir, 'queue.db');
    clock = new ManualClock();
    queue = await open();
  });
  afterEach(async () => {
    await queue.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('retention', () => {
    it('keeps chunks while a consumer has not committed them or they are inside the replay window, and removes them after', async () => {
      await queue.resetConsumer(stream, 'job');
      await queue.append(stream, [chunkOf('old', 2)]);
      clock.advance(5 * minute);
      await queue.append(stream, [chunkOf('newer', 2)]);
      const consumer = await queue.openConsumer(stream, 'job');
      const [old, newer] = await drain(consumer);
      assert.ok(old && newer);

      clock.advance(20 * minute);
      assert.equal(await queue.sweep(), 0, 'nothing is committed yet');
      await consumer.commit(batchOf([old], [[old, 0, 2]]));
      clock.set(old.appendedAtMs + 10 * minute - 1);
      assert.equal(await queue.sweep(), 0, 'committed but still inside the window');
      clock.set(old.appendedAtMs + 10 * minute + 1);
      assert.equal(await queue.sweep(), 1);
      assert.equal(await present(old.seq), false);
      assert.equal(await present(newer.seq), true, 'older than the window but not committed');

      await consumer.commit(batchOf([newer], [[newer, 0, 1]]));
      clock.advance(60 * minute);
      assert.equal(await queue.sweep(), 0, 'a chunk committed in part stays');
      await consumer.commit(batchOf([newer], [[newer, 1, 2]]));
      assert.equal(await queue.sweep(), 1);
      assert.equal(await present(newer.seq), false);
    });

    it('keeps chunks of a stream without consumers for the replay window only, and sweeps when it opens', async () => {
      const lonely: StreamKey = { zoneId: 'b'.repeat(32), dataset: 'http_requests' };
      await queue.append(lonely, [chunkOf('one', 1)]);
      clock.advance(6 * minute);
      await queue.append(lonely, [chunkOf('two', 1)]);
      clock.advance(5 * minute);
      assert.equal(await queue.sweep(), 1, 'the first chunk left the window');
      clock.advance(10 * minute);
      await reopen();
      assert.equal(await queue.sweep(), 0, 'the sweep on open removed the second chunk');
      await queue.resetConsumer(lonely, 'late');
      await queue.append(lonely, [chunkOf('three', 1)]);
      assert.deepEqual((await drain(await queue.openConsumer(lonely, 'late'))).flatMap(openRecords), ['{"RayID":"three-0"}']);
    });

    it('a deleted consumer no longer holds chunks back', async () => {
      await queue.resetConsumer(stream, 'fast');
      await queue.resetConsumer(stream, 'stalled');
      await queue.append(stream, [chunkOf('a', 1)]);
      const fast = await queue.openConsumer(stream, 'fast');
      const [a] = await drain(fast);
      assert.ok(a);
      await fast.commit(batchOf([a], [[a, 0, 1]]));
      clock.advance(11 * minute);
      assert.equal(await queue.sweep(), 0);
      await queue.deleteConsumer(stream, 'stalled');
      assert.equal(await queue.sweep(), 1);
    });

    it('removes a large backlog in several steps without losing a chunk inside the window', async () => {
      await queue.resetConsumer(stream, 'job');
      for (let i = 0; i < 12; i++) await queue.append(stream, Array.from({ length: 100 }, (_, j) => chunkOf(`${i}-${j}`, 1)));
      clock.advance(minute);
      await queue.append(stream, [chunkOf('recent', 1)]);
      const consumer = await queue.openConsumer(stream, 'job');
      const chunks = await drain(consumer);
      await consumer.commit(batchOf(chunks, chunks.map((c) => [c, 0, 1] as const)));
      clock.advance(9 * minute + 1);
      assert.equal(await queue.sweep(), 1200);
      assert.equal(await present(chunks.at(-1)!.seq), true);
    });
  });

  describe('pending bytes', () => {
    it('are the exact payload bytes some consumer has not committed past, kept across a restart', async () => {
      await queue.append(stream, [chunkOf('before-any-consumer', 3)]);
      assert.equal(queue.pendingBytes(), 0, 'a stream nobody reads holds nothing back');
      await queue.resetConsumer(stream, 'one');
      await queue.resetConsumer(stream, 'two');
      const input = [chunkOf('a', 3, 100), chunkOf('b', 2, 50)];
      const [sizeA, sizeB] = input.map((c) => c.payload.byteLength) as [number, number];
      await queue.append(stream, input);
      assert.equal(queue.pendingBytes(), sizeA + sizeB);
      const one = await queue.openConsumer(stream, 'one');
      const [a, b] = await drain(one);
      assert.ok(a && b);
      await one.commit(batchOf([a, b], [[a, 0, 3], [b, 0, 2]]));
      assert.equal(queue.pendingBytes(), sizeA + sizeB);
      const two = await queue.openConsumer(stream, 'two');
      await two.commit(batchOf([a, b], [[a, 0, 3], [b, 0, 1]]));
      assert.equal(queue.pendingBytes(), sizeB, 'a chunk committed in part counts whole');
      await reopen();
      assert.equal(queue.pendingBytes(), sizeB);
      await queue.deleteConsumer(stream, 'two');
      assert.equal(queue.pendingBytes(), 0);
    });
  });

  describe('commits', () => {
    let chunks: QueueChunk[];
    beforeEach(async () => {
      await queue.resetConsumer(stream, 'job');
      await queue.append(stream, [chunkOf('a', 3), chunkOf('b', 3), chunkOf('c', 3)]);
      chunks = await drain(await queue.openConsumer(stream, 'job'));
    });

    const cases: readonly { readonly name: string; readonly parts: (c: QueueChunk[]) => (readonly [QueueChunk, number, number])[]; readonly error: RegExp }[] = [
      { name: 'one that skips the first records', parts: ([a]) => [[a!, 1, 3]], error: /skips records/ },
      { name: 'one that skips a chunk', parts: ([a, , c]) => [[a!, 0, 3], [c!, 0, 3]], error: /skips records/ },
      { name: 'one that leaves records out of a chunk before the next', parts: ([a, b]) => [[a!, 0, 2], [b!, 0, 3]], error: /skips records/ },
      { name: 'one that runs past the records of a chunk', parts: ([a]) => [[a!, 0, 4]], error: /runs past/ },
      { name: 'an empty segment', parts: ([a]) => [[a!, 0, 0]], error: /empty/ },
    ];
    for (const { name, parts, error } of cases) {
      it(`refuses ${name}`, async () => {
        const consumer = await queue.openConsumer(stream, 'job');
        await assert.rejects(consumer.commit(batchOf(chunks, parts(chunks))), error);
      });
    }

    it('refuses a commit that goes back over committed records, such as the same batch twice', async () => {
      const consumer = await queue.openConsumer(stream, 'job');
      const [a, b] = chunks as [QueueChunk, QueueChunk];
      const batch = batchOf(chunks, [[a, 0, 3], [b, 0, 1]]);
      await consumer.commit(batch);
      await assert.rejects(consumer.commit(batch), /goes back over committed records/);
      await assert.rejects(consumer.commit(batchOf(chunks, [[b, 0, 3]])), /goes back over committed records/);
      await consumer.commit(batchOf(chunks, [[b, 1, 3]]));
    });

    it('refuses saving or committing for a consumer that was deleted', async () => {
      const consumer = await queue.openConsumer(stream, 'job');
      await queue.deleteConsumer(stream, 'job');
      const batch = batchOf(chunks, [[chunks[0]!, 0, 3]]);
      await assert.rejects(consumer.saveInflight(batch), /deleted/);
      await assert.rejects(consumer.commit(batch), /deleted/);
      assert.deepEqual(await consumer.fetch({ maxChunks: 1, maxBytes: 1, maxWaitMs: 0 }), []);
    });
  });

  describe('appends', () => {
    it('stores an append repeated with the same dedupe key once within the dedupe window, per stream, and says how many events it stored', async () => {
      const other: StreamKey = { zoneId: 'c'.repeat(32), dataset: 'http_requests' };
      await queue.resetConsumer(stream, 'job');
      await queue.resetConsumer(other, 'job');
      const both = await Promise.all([queue.append(stream, [chunkOf('x', 1)], 'key-1'), queue.append(stream, [chunkOf('x', 1)], 'key-1')]);
      assert.deepEqual(both, [1, 0], 'the copy stored nothing');
      assert.equal(await queue.append(stream, [chunkOf('x', 1)], 'key-1'), 0);
      assert.equal(await queue.append(other, [chunkOf('x', 1)], 'key-1'), 1);
      clock.advance(3 * minute);
      assert.equal(await queue.append(stream, [chunkOf('x', 1), chunkOf('y', 1)], 'key-1'), 2);
      assert.equal((await drain(await queue.openConsumer(stream, 'job'))).length, 3, 'once, and again after the window');
      assert.equal((await drain(await queue.openConsumer(other, 'job'))).length, 1);
    });

    it('writes concurrent appends in call order, every one of them', async () => {
      await queue.resetConsumer(stream, 'job');
      await Promise.all(Array.from({ length: 50 }, (_, i) => queue.append(stream, [chunkOf(`n${i}`, 1), chunkOf(`m${i}`, 1)])));
      const records = (await drain(await queue.openConsumer(stream, 'job'))).flatMap(openRecords);
      assert.deepEqual(
        records,
        Array.from({ length: 50 }, (_, i) => [`{"RayID":"n${i}-0"}`, `{"RayID":"m${i}-0"}`]).flat(),
      );
    });

    it('refuses a chunk without records', async () => {
      await assert.rejects(queue.append(stream, [{ payload: new Uint8Array(0), count: 0 }]), /at least one record/);
    });

    it('stamps chunks with the injected clock', async () => {
      await queue.resetConsumer(stream, 'job');
      await queue.append(stream, [chunkOf('a', 1)]);
      const [chunk] = await drain(await queue.openConsumer(stream, 'job'));
      assert.equal(chunk?.appendedAtMs, clock.now());
    });
  });

  describe('reading what was just appended', () => {
    it('hands out the newest payloads from memory and the older ones from the database, every one exact, to each consumer', async () => {
      await queue.resetConsumer(stream, 'job');
      await queue.resetConsumer(stream, 'retention');
      // 12 MiB in chunks of 1 MiB: more than the newest payloads kept in memory (8 MiB).
      const appended: Uint8Array[] = [];
      for (let i = 0; i < 12; i++) {
        const chunk = chunkOf(`c${i}`, 2, 512 * 1024);
        appended.push(chunk.payload);
        await queue.append(stream, [chunk]);
      }
      for (const name of ['job', 'retention']) {
        const chunks = await drain(await queue.openConsumer(stream, name));
        assert.equal(chunks.length, 12);
        chunks.forEach((chunk, i) => assert.ok(Buffer.from(appended[i] as Uint8Array).equals(chunk.payload), `chunk ${i} read by ${name} is not what was appended`));
        // The oldest came back from the database (a copy); the newest is the appended memory itself.
        assert.notEqual(chunks[0]?.payload.buffer, (appended[0] as Uint8Array).buffer);
        assert.equal(chunks[11]?.payload.buffer, (appended[11] as Uint8Array).buffer);
      }
      // After a restart every payload comes from the database.
      await reopen();
      const again = await drain(await queue.openConsumer(stream, 'job'));
      assert.equal(again.length, 12);
      assert.ok(Buffer.from(appended[11] as Uint8Array).equals((again[11] as QueueChunk).payload));
    });
  });

  describe('closing', () => {
    it('writes appends still waiting for their transaction before it closes', async () => {
      await queue.resetConsumer(stream, 'job');
      const appending = queue.append(stream, [chunkOf('last', 1)]);
      await queue.close();
      await appending;
      queue = await open();
      assert.deepEqual((await drain(await queue.openConsumer(stream, 'job'))).flatMap(openRecords), ['{"RayID":"last-0"}']);
    });
  });

  describe('the database file', () => {
    it('is refused when a newer release wrote it', async () => {
      await queue.close();
      const db = new SqliteDatabase(file);
      db.pragma('user_version = 99');
      db.close();
      await assert.rejects(open(), /schema version 99/);
      queue = await open({ path: path.join(dir, 'other.db') });
    });

    it('is refused to a second queue of the same process while the first is open', async () => {
      await assert.rejects(open(), /locked by another process or connection/);
    });

    it('gets the log copied into it while the queue stays open, by the checkpointer thread', async () => {
      await queue.resetConsumer(stream, 'job');
      const before = fs.statSync(file).size;
      const expected = before + 4 * 1024 * 1024;
      // 4 MiB of appends: past the 1 MiB that starts the checkpointer. The commits themselves never
      // checkpoint, so only the thread can grow the database file.
      for (let i = 0; i < 8; i++) await queue.append(stream, [chunkOf(`big${i}`, 1, 512 * 1024)]);
      const until = Date.now() + 10_000;
      while (fs.statSync(file).size < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      assert.ok(fs.statSync(file).size >= expected, `queue.db grew from ${before} to ${fs.statSync(file).size} bytes only`);
      assert.equal((await drain(await queue.openConsumer(stream, 'job'))).flatMap(openRecords).length, 8);
    });
  });

  describe('across SIGKILL', () => {
    it('keeps every append that was acknowledged, with its exact payload, after the appending process is killed', async () => {
      const zones = ['1'.repeat(32), '2'.repeat(32), '3'.repeat(32)];
      await queue.close();
      for (const zoneId of zones) {
        const child = startChild('append-until-killed.ts', [file, zoneId]);
        const acknowledged: number[] = [];
        await new Promise<void>((resolve, reject) => {
          child.lines.on('line', (line) => {
            acknowledged.push(Number(line));
            if (acknowledged.length === 300) setTimeout(resolve, Math.random() * 20);
          });
          child.process.once('exit', (code) => reject(new Error(`the child exited early with ${code}: ${child.stderr()}`)));
        });
        await child.kill();
        queue = await open();
        const stream = durabilityStream(zoneId);
        const stored = groupByAppend(await drain(await queue.openConsumer(stream, 'check'), 0));
        for (const n of acknowledged) {
          assert.deepEqual(stored.get(n), numberedChunks(n).map((c) => Buffer.from(c.payload).toString('utf8')), `append ${n} was acknowledged`);
        }
        for (const [n, payloads] of stored) {
          assert.equal(payloads.length, numberedChunks(n).length, `append ${n} is stored whole or not at all`);
        }
        await queue.close();
      }
      queue = await open();
    });

    it('keeps the in-flight batch of a process killed before it committed, and refuses a second process meanwhile', async () => {
      await queue.close();
      const zoneId = '4'.repeat(32);
      const child = startChild('save-inflight-then-wait.ts', [file, zoneId]);
      const line = await new Promise<string>((resolve, reject) => {
        child.lines.once('line', resolve);
        child.process.once('exit', (code) => reject(new Error(`the child exited early with ${code}: ${child.stderr()}`)));
      });
      const saved = JSON.parse(line) as InflightBatch;
      await assert.rejects(open(), /locked by another process/);
      await child.kill();

      queue = await open();
      const stream = durabilityStream(zoneId);
      const consumer = await queue.openConsumer(stream, 'job');
      assert.deepEqual(await consumer.loadInflight(), saved);
      const reread = await consumer.readChunks(saved.segments.map((s) => s.seq));
      assert.deepEqual(
        reread.map((c) => Buffer.from(c.payload).toString('utf8')),
        [...numberedChunks(0), ...numberedChunks(1)].slice(0, 2).map((c) => Buffer.from(c.payload).toString('utf8')),
      );
      await consumer.commit(saved);
      const next = await drain(consumer, 0);
      assert.equal(next[0]?.seq, saved.segments[1]?.seq);
      assert.equal(next[0]?.firstRecord, 1);
    });
  });
});

/** Chunk payloads by the append number their RayIDs carry (`<n>-<chunk>-<record>`). */
function groupByAppend(chunks: readonly QueueChunk[]): Map<number, string[]> {
  const byAppend = new Map<number, string[]>();
  for (const chunk of chunks) {
    const text = Buffer.from(chunk.payload).toString('utf8');
    const first: unknown = JSON.parse(text.slice(0, text.indexOf('\n')));
    const rayId = typeof first === 'object' && first !== null && 'RayID' in first ? String(first.RayID) : '';
    const n = Number(rayId.split('-')[0]);
    byAppend.set(n, [...(byAppend.get(n) ?? []), text]);
  }
  return byAppend;
}

interface Child {
  readonly process: ChildProcess;
  readonly lines: ReturnType<typeof createInterface>;
  stderr(): string;
  /** SIGKILL, then wait until it is gone. */
  kill(): Promise<void>;
}

function startChild(script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/queue/fixtures', script), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString('utf8');
  });
  if (child.stdout === null) throw new Error('the child has no stdout');
  const lines = createInterface({ input: child.stdout });
  return {
    process: child,
    lines,
    stderr: () => stderr,
    kill: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
