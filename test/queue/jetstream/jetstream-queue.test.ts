/**
 * The JetStream queue against the NATS server at 127.0.0.1:4222: the queue contract (declaring that a
 * restart does not resume exactly, see QueueCapabilities), then what only a shared consumer does —
 * dedupe by message id, several nodes sharing one consumer, a dead node's chunks going to another node
 * after the acknowledgement deadline, concurrent resets, retention by interest, and appends failing
 * (not hanging) while NATS is unreachable. Every queue uses a stream name and subject prefix of its own,
 * deleted afterwards, so runs never meet each other or a running node.
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { openJetStreamQueue, type JetStreamQueue, type JetStreamQueueOptions } from '../../../src/queue/jetstream/jetstream-queue.ts';
import type { QueueChunk, QueueConsumer, StreamKey } from '../../../src/queue/queue.ts';
import { serverAvailable } from '../../support/services.ts';
import { batchOf, chunkOf, describeQueueContract, drain, openRecords } from '../queue-contract.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const natsUrl = 'nats://127.0.0.1:4222';
const natsAnswers = await serverAvailable('NATS (JetStream)', '127.0.0.1', 4222);

/** A stream name and subject prefix nobody else uses. */
function uniqueNames(): { streamName: string; subjectPrefix: string } {
  const id = randomBytes(6).toString('hex');
  return { streamName: `LOGEXPORT_TEST_${id}`, subjectPrefix: `logexport-test.${id}` };
}

function zone(): StreamKey {
  return { zoneId: randomBytes(16).toString('hex'), dataset: 'http_requests' };
}

if (natsAnswers) {
  let admin: NatsConnection;
  let jsm: JetStreamManager;
  before(async () => {
    admin = await connect({ servers: [natsUrl] });
    jsm = await jetstreamManager(admin);
  });
  after(async () => admin.close());

  const deleteStream = (name: string): Promise<unknown> => jsm.streams.delete(name).catch(() => false);

  describeQueueContract(
    'the JetStream queue',
    async () => {
      const names = uniqueNames();
      const checkpointsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-checkpoints-'));
      const options: JetStreamQueueOptions = {
        servers: [natsUrl],
        nodeId: 'contract',
        replayWindowMs: 600_000,
        ackWaitMs: 5_000,
        sourceCheckpointsPath: path.join(checkpointsDir, 'source-checkpoints.db'),
        ...names,
      };
      let current = await openJetStreamQueue(options);
      return {
        queue: current,
        reopen: async () => {
          await current.close();
          current = await openJetStreamQueue(options);
          return current;
        },
        dispose: async () => {
          await current.close();
          await deleteStream(names.streamName);
          fs.rmSync(checkpointsDir, { recursive: true, force: true });
        },
      };
    },
    { resumesExactlyAfterRestart: false },
  );

  describe('the JetStream queue', () => {
    let names: { streamName: string; subjectPrefix: string };
    let opened: JetStreamQueue[];
    let stream: StreamKey;

    const open = async (options: Partial<JetStreamQueueOptions> = {}): Promise<JetStreamQueue> => {
      const queue = await openJetStreamQueue({ servers: [natsUrl], nodeId: `node-${opened.length}`, replayWindowMs: 600_000, ...names, ...options });
      opened.push(queue);
      return queue;
    };
    const stored = async (): Promise<number> => (await jsm.streams.info(names.streamName)).state.messages;

    beforeEach(() => {
      names = uniqueNames();
      opened = [];
      stream = zone();
    });
    afterEach(async () => {
      for (const queue of opened) await queue.close();
      await deleteStream(names.streamName);
    });

    describe('appends', () => {
      it('store an append repeated with the same dedupe key once, per stream, and appends without a key every time, saying how many events each stored', async () => {
        const queue = await open();
        const other = zone();
        await queue.resetConsumer(stream, 'job');
        await queue.resetConsumer(other, 'job');
        const request = [chunkOf('x', 2), chunkOf('y', 1)];
        const both = await Promise.all([queue.append(stream, request, 'key-1'), queue.append(stream, request, 'key-1')]);
        assert.deepEqual(both, [3, 0], 'the copy stored nothing');
        assert.equal(await queue.append(stream, request, 'key-1'), 0);
        assert.equal(await queue.append(other, request, 'key-1'), 3);
        assert.equal(await queue.append(stream, [chunkOf('plain', 1)]), 1);
        assert.equal(await queue.append(stream, [chunkOf('plain', 1)]), 1);
        const mine = (await drain(await queue.openConsumer(stream, 'job'))).flatMap(openRecords);
        assert.deepEqual(mine, ['{"RayID":"x-0"}', '{"RayID":"x-1"}', '{"RayID":"y-0"}', '{"RayID":"plain-0"}', '{"RayID":"plain-0"}']);
        assert.equal((await drain(await queue.openConsumer(other, 'job'))).length, 2);
      });

      it('split a chunk larger than the server takes in one message at record boundaries, keeping every record', async () => {
        const queue = await open();
        await queue.resetConsumer(stream, 'job');
        const big = chunkOf('big', 5, 300 * 1024);
        await queue.append(stream, [big], 'big-request');
        await queue.append(stream, [big], 'big-request');
        const chunks = await drain(await queue.openConsumer(stream, 'job'));
        assert.ok(chunks.length > 1, 'the chunk became several messages');
        assert.deepEqual(
          chunks.flatMap(openRecords).map((line) => line.slice(0, 16)),
          Array.from({ length: 5 }, (_, i) => `{"RayID":"big-${i}"`),
          'every record once, in order, also after the retried append',
        );
      });

      it('are not stored for a stream that has no consumer, and leave the stream once every consumer acknowledged them', async () => {
        const queue = await open();
        await queue.append(stream, [chunkOf('nobody-reads-this', 1)]);
        assert.equal(await stored(), 0);
        await queue.resetConsumer(stream, 'one');
        await queue.resetConsumer(stream, 'two');
        await queue.append(stream, [chunkOf('a', 2)]);
        assert.equal(await stored(), 1);
        const one = await queue.openConsumer(stream, 'one');
        const two = await queue.openConsumer(stream, 'two');
        const [a] = await drain(one);
        assert.ok(a);
        await one.commit(batchOf([a], [[a, 0, 2]]));
        assert.equal(await stored(), 1, 'job two still needs it');
        await drain(two);
        await two.commit(batchOf([a], [[a, 0, 1]]));
        assert.equal(await stored(), 1, 'a chunk committed in part is not acknowledged');
        await two.commit(batchOf([a], [[a, 1, 2]]));
        assert.equal(await stored(), 0);
        assert.equal(queue.pendingBytes(), 0);
      });

      it('fail within the publish timeout while NATS is unreachable, and work again once it is back', async () => {
        const proxy = await startProxy(4222);
        try {
          const queue = await open({ servers: [`nats://127.0.0.1:${proxy.port}`], publishTimeoutMs: 1_000 });
          await queue.resetConsumer(stream, 'job');
          await queue.append(stream, [chunkOf('before', 1)]);
          await proxy.cut();
          const started = performance.now();
          await assert.rejects(queue.append(stream, [chunkOf('during', 1)], 'outage'), /could not store events/);
          assert.ok(performance.now() - started < 5_000, 'the append gave up instead of hanging');
          await proxy.resume();
          await waitFor(async () => {
            try {
              await queue.append(stream, [chunkOf('during', 1)], 'outage');
              return true;
            } catch {
              return false;
            }
          });
          const records = (await drain(await queue.openConsumer(stream, 'job'))).flatMap(openRecords);
          assert.equal(records[0], '{"RayID":"before-0"}');
          assert.deepEqual(new Set(records.slice(1)), new Set(['{"RayID":"during-0"}']), 'the retried append is stored once');
        } finally {
          await proxy.close();
        }
      });
    });

    describe('a consumer shared by two nodes', () => {
      it('hands each chunk to one node, and the two nodes together get every chunk', async () => {
        const [one, two] = [await open(), await open()];
        await one.resetConsumer(stream, 'job');
        const input = Array.from({ length: 40 }, (_, i) => chunkOf(`c${i}`, 1));
        await one.append(stream, input.slice(0, 20));
        await two.append(stream, input.slice(20));
        const onOne = await one.openConsumer(stream, 'job');
        const onTwo = await two.openConsumer(stream, 'job');
        const seen: [QueueChunk[], QueueChunk[]] = [[], []];
        for (;;) {
          const [a, b] = await Promise.all([onOne.fetch({ maxChunks: 3, maxBytes: 1 << 20, maxWaitMs: 100 }), onTwo.fetch({ maxChunks: 3, maxBytes: 1 << 20, maxWaitMs: 100 })]);
          seen[0].push(...a);
          seen[1].push(...b);
          if (a.length === 0 && b.length === 0) break;
        }
        assert.ok(seen[0].length > 0 && seen[1].length > 0, 'both nodes got work');
        const seqsOne = new Set(seen[0].map((c) => c.seq));
        assert.ok(seen[1].every((c) => !seqsOne.has(c.seq)), 'no chunk went to both');
        assert.deepEqual([...seen[0], ...seen[1]].flatMap(openRecords).sort(), input.map((_, i) => `{"RayID":"c${i}-0"}`).sort());
        await onOne.commit(batchOf(seen[0], seen[0].map((c) => [c, 0, 1] as const)));
        await onTwo.commit(batchOf(seen[1], seen[1].map((c) => [c, 0, 1] as const)));
        assert.equal(await stored(), 0);
      });

      it("gives a dead node's chunks to the other node once the acknowledgement deadline has passed", async () => {
        const ackWaitMs = 3_000;
        const survivor = await open({ ackWaitMs });
        await survivor.resetConsumer(stream, 'job');
        await survivor.append(stream, Array.from({ length: 6 }, (_, i) => chunkOf(`c${i}`, 2)));
        const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/queue/fixtures/jetstream-hold-then-wait.ts'), names.streamName, names.subjectPrefix, stream.zoneId, '4', String(ackWaitMs)], {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
        const heldByChild = await new Promise<number[]>((resolve, reject) => {
          createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line) as number[]));
          child.once('exit', (code) => reject(new Error(`the child exited early with ${code}: ${stderr}`)));
        });
        assert.equal(heldByChild.length, 4);
        const consumer = await survivor.openConsumer(stream, 'job');
        const rest = await drain(consumer, 100);
        assert.equal(rest.length, 2, 'the other chunks are free');
        await sleep(ackWaitMs * 2);
        assert.deepEqual(await drain(consumer, 100), [], 'a live node keeps its chunks past the deadline by heartbeats');

        child.removeAllListeners('exit');
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
        const started = performance.now();
        const redelivered: QueueChunk[] = [];
        while (redelivered.length < heldByChild.length && performance.now() - started < ackWaitMs * 4) {
          redelivered.push(...(await consumer.fetch({ maxChunks: 10, maxBytes: 1 << 20, maxWaitMs: 500 })));
        }
        assert.deepEqual(redelivered.map((c) => c.seq).sort((a, b) => a - b), [...heldByChild].sort((a, b) => a - b));
        assert.ok(redelivered.every((c) => c.firstRecord === 0), 'handed out again whole');
        const all = [...rest, ...redelivered];
        await consumer.commit(batchOf(all, all.map((c) => [c, 0, 2] as const)));
        assert.equal(await stored(), 0);
      });

      it('gives the chunks of a node that closes to the other node at once', async () => {
        const [leaving, staying] = [await open({ ackWaitMs: 60_000 }), await open({ ackWaitMs: 60_000 })];
        await leaving.resetConsumer(stream, 'job');
        await leaving.append(stream, [chunkOf('a', 3), chunkOf('b', 1)]);
        const consumer = await leaving.openConsumer(stream, 'job');
        const [a, b] = await drain(consumer);
        assert.ok(a && b);
        await consumer.commit(batchOf([a], [[a, 0, 1]]));
        await leaving.close();
        const started = performance.now();
        const other = await staying.openConsumer(stream, 'job');
        const got = await drain(other, 500);
        assert.ok(performance.now() - started < 10_000, 'long before the 60 s deadline');
        assert.deepEqual(got.map((c) => [c.seq, c.firstRecord]), [[a.seq, 0], [b.seq, 0]], 'a partly committed chunk comes back whole');
      });

      it('keeps one working consumer when two nodes reset it at the same time', async () => {
        const [one, two] = [await open(), await open()];
        for (let round = 0; round < 10; round++) {
          await Promise.all([one.resetConsumer(stream, 'job'), two.resetConsumer(stream, 'job'), one.resetConsumer(stream, 'job'), two.resetConsumer(stream, 'job')]);
        }
        const consumers = [];
        for await (const info of jsm.consumers.list(names.streamName)) consumers.push(info.name);
        assert.equal(consumers.length, 1);
        await one.append(stream, [chunkOf('a', 1), chunkOf('b', 1)]);
        const got = [...(await drain(await one.openConsumer(stream, 'job'))), ...(await drain(await two.openConsumer(stream, 'job')))];
        assert.deepEqual(got.flatMap(openRecords), ['{"RayID":"a-0"}', '{"RayID":"b-0"}']);
      });
    });

    describe('within one node', () => {
      it('a new consumer object takes over the in-flight batch and partly committed chunks exactly', async () => {
        const queue = await open();
        await queue.resetConsumer(stream, 'job');
        await queue.append(stream, [chunkOf('a', 3), chunkOf('b', 4), chunkOf('c', 2)]);
        let consumer: QueueConsumer = await queue.openConsumer(stream, 'job');
        const [a, b, c] = await drain(consumer);
        assert.ok(a && b && c);
        await consumer.commit(batchOf([a, b], [[a, 0, 3], [b, 0, 2]]));
        const inflight = batchOf([b, c], [[b, 2, 4], [c, 0, 1]]);
        await consumer.saveInflight(inflight);
        await consumer.close();

        consumer = await queue.openConsumer(stream, 'job');
        assert.deepEqual(await consumer.loadInflight(), inflight);
        const reread = await consumer.readChunks([b.seq, c.seq]);
        assert.deepEqual(reread.map((chunk) => [chunk.seq, chunk.firstRecord, chunk.appendedAtMs]), [[b.seq, 0, b.appendedAtMs], [c.seq, 0, c.appendedAtMs]]);
        await consumer.commit(inflight);
        const next = await drain(consumer);
        assert.deepEqual(next.flatMap(openRecords), ['{"RayID":"c-1"}'], 'fetch continues right after the in-flight batch');
      });

      it('hands out a chunk that arrived after its fetch gave up waiting with the next fetch, not after the deadline', async () => {
        const queue = await open({ ackWaitMs: 60_000 });
        await queue.resetConsumer(stream, 'job');
        const consumer = await queue.openConsumer(stream, 'job');
        const controller = new AbortController();
        const fetching = consumer.fetch({ maxChunks: 10, maxBytes: 1 << 20, maxWaitMs: 10_000, signal: controller.signal });
        await sleep(100);
        controller.abort();
        assert.deepEqual(await fetching, []);
        await queue.append(stream, [chunkOf('late', 1)]);
        await sleep(100);
        const chunks = await consumer.fetch({ maxChunks: 10, maxBytes: 1 << 20, maxWaitMs: 0 });
        assert.deepEqual(chunks.flatMap(openRecords), ['{"RayID":"late-0"}']);
      });

      it('reads a chunk it does not hold back from the stream, with the same append time', async () => {
        const queue = await open();
        await queue.resetConsumer(stream, 'job');
        await queue.resetConsumer(stream, 'other-job');
        await queue.append(stream, [chunkOf('a', 2)]);
        const [a] = await drain(await queue.openConsumer(stream, 'job'));
        assert.ok(a);
        const [again] = await (await queue.openConsumer(stream, 'other-job')).readChunks([a.seq]);
        assert.ok(again);
        const fields = (c: QueueChunk) => [c.seq, c.appendedAtMs, c.count, c.firstRecord, Buffer.from(c.payload).toString('hex')];
        assert.deepEqual(fields(again), fields(a));
      });

      it('refuses a commit of chunks it does not hold or that goes back over committed records', async () => {
        const queue = await open();
        await queue.resetConsumer(stream, 'job');
        await queue.append(stream, [chunkOf('a', 3)]);
        const consumer = await queue.openConsumer(stream, 'job');
        const [a] = await drain(consumer);
        assert.ok(a);
        await assert.rejects(consumer.commit(batchOf([a], [[{ ...a, seq: a.seq + 100 }, 0, 1]])), /not held by this node/);
        await assert.rejects(consumer.commit(batchOf([a], [[a, 0, 4]])), /runs past/);
        await consumer.commit(batchOf([a], [[a, 0, 2]]));
        await assert.rejects(consumer.commit(batchOf([a], [[a, 1, 3]])), /goes back over committed records/);
        await consumer.commit(batchOf([a], [[a, 2, 3]]));
      });

      it('refuses saving or committing once the consumer was deleted, and its fetches return []', async () => {
        const queue = await open();
        await queue.resetConsumer(stream, 'job');
        await queue.append(stream, [chunkOf('a', 1)]);
        const consumer = await queue.openConsumer(stream, 'job');
        const [a] = await drain(consumer);
        assert.ok(a);
        await queue.deleteConsumer(stream, 'job');
        const batch = batchOf([a], [[a, 0, 1]]);
        await assert.rejects(consumer.saveInflight(batch), /deleted/);
        await assert.rejects(consumer.commit(batch), /deleted/);
        assert.deepEqual(await consumer.fetch({ maxChunks: 1, maxBytes: 1, maxWaitMs: 0 }), []);
        assert.equal(await stored(), 0);
      });
    });

    it('refuses to open on a stream of the same name that was not made for it', async () => {
      await jsm.streams.add({ name: names.streamName, subjects: [`${names.subjectPrefix}.>`] });
      await assert.rejects(open(), /limits retention/);
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error('gave up waiting');
    await sleep(100);
  }
}

interface Proxy {
  readonly port: number;
  /** Drops every connection and refuses new ones, as a NATS server that went away. */
  cut(): Promise<void>;
  /** Accepts connections again on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

/** A TCP proxy in front of the NATS server, to take it away from one client and give it back. */
async function startProxy(targetPort: number): Promise<Proxy> {
  const sockets = new Set<net.Socket>();
  const serve = (): net.Server =>
    net.createServer((client) => {
      const upstream = net.connect({ host: '127.0.0.1', port: targetPort });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  const listen = (server: net.Server, port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });
  let server = serve();
  const port = await listen(server, 0);
  const stop = async (): Promise<void> => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    cut: stop,
    resume: async () => {
      server = serve();
      await listen(server, port);
    },
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}
