/**
 * Measures the embedded queue's append cost with synchronous=FULL and NORMAL: big appends (64 chunks of
 * 16 KB) and small ones (one chunk of 16 KB), one at a time and several at once (sharing transactions),
 * then reading them back through a consumer. The figures in docs/queue.md come from here.
 * Run: node --import tsx test/queue/measure-append.ts [appends]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEmbeddedQueue } from '../../src/queue/embedded/embedded-queue.ts';
import type { QueueSynchronous } from '../../src/queue/embedded/queue-db.ts';
import type { ChunkInput, StreamKey } from '../../src/queue/queue.ts';
import { batchOf } from './queue-contract.ts';

const appends = Number(process.argv[2] ?? 400);
const chunkBytes = 16 * 1024;
const stream: StreamKey = { zoneId: 'f'.repeat(32), dataset: 'http_requests' };

function chunk(i: number): ChunkInput {
  const line = `${JSON.stringify({ RayID: String(i), pad: 'x'.repeat(1000) })}\n`;
  const count = Math.floor(chunkBytes / line.length);
  return { payload: Buffer.from(line.repeat(count), 'utf8'), count };
}


function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function measure(synchronous: QueueSynchronous, chunksPerAppend: number, inFlight: number): Promise<void> {
  const body = Array.from({ length: chunksPerAppend }, (_, i) => chunk(i));
  const appendMiB = body.reduce((sum, c) => sum + c.payload.byteLength, 0) / 2 ** 20;
  const records = body.reduce((sum, c) => sum + c.count, 0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-measure-'));
  const queue = await openEmbeddedQueue({ path: path.join(dir, 'queue.db'), replayWindowMs: 0, synchronous });
  await queue.resetConsumer(stream, 'job');
  const times: number[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < appends) {
        next++;
        const t = performance.now();
        await queue.append(stream, body);
        times.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);

  const consumer = await queue.openConsumer(stream, 'job');
  const readStart = performance.now();
  let read = 0;
  for (;;) {
    const chunks = await consumer.fetch({ maxChunks: 256, maxBytes: 4 * 2 ** 20, maxWaitMs: 0 });
    if (chunks.length === 0) break;
    await consumer.commit(batchOf(chunks, chunks.map((c) => [c, 0, c.count] as const)));
    read += chunks.length;
  }
  const readSeconds = (performance.now() - readStart) / 1000;
  await queue.close();
  fs.rmSync(dir, { recursive: true, force: true });

  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(
    [
      `${String(chunksPerAppend).padStart(2)} x 16 KB, synchronous=${synchronous.padEnd(6)} ${String(inFlight).padStart(2)} in flight:`,
      `append mean ${mean.toFixed(2)} ms, p50 ${percentile(times, 0.5).toFixed(2)} ms, p99 ${percentile(times, 0.99).toFixed(2)} ms;`,
      `${((appends * appendMiB) / elapsed).toFixed(0)} MiB/s, ${Math.round((appends * records) / elapsed / 1000)}k records/s;`,
      `fetch+commit ${Math.round((read * chunkBytes) / 2 ** 20 / readSeconds)} MiB/s`,
    ].join(' '),
  );
}

console.log(`${appends} appends of each shape, records of ~1 KB, ${os.cpus().length} CPUs`);
for (const [chunksPerAppend, inFlights] of [[64, [1, 8]], [1, [1, 64]]] as const) {
  for (const synchronous of ['full', 'normal'] as const) {
    for (const inFlight of inFlights) await measure(synchronous, chunksPerAppend, inFlight);
  }
}
