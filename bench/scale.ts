/**
 * `npm run bench:scale`: ingest → delivery throughput of one node and of three nodes sharing one
 * PostgreSQL database and one NATS JetStream stream, on this machine. Needs both servers on 127.0.0.1.
 * Settings: BENCH_SECONDS (load per run, default 20), BENCH_WORKERS.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { postLoad, startNodeUnderTest, type NodeUnderTest } from './node-under-test.ts';
import { makeEventLines } from './records.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const workers = process.env.BENCH_WORKERS ?? '1';
const postgres = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const lines = makeEventLines(20_000);
const shared = Buffer.from(lines.slice(1, 2000).join('\n') + '\n');
let counter = 0;
const body = (): Buffer[] => [Buffer.from((lines[counter % lines.length] ?? '').replace(/"RayID":"[^"]*"/, `"RayID":"s${counter++}"`) + '\n'), shared];

async function run(nodeCount: number): Promise<number> {
  const suffix = randomBytes(4).toString('hex');
  const database = `logexport_scale_${suffix}`;
  const stream = `LOGEXPORT_SCALE_${suffix}`;
  const admin = new pg.Client({ connectionString: postgres });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const exportRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-scale-'));
  const env = {
    LOGEXPORT_DATABASE_URL: postgres.replace(/\/[^/]*$/, `/${database}`),
    LOGEXPORT_QUEUE_URL: 'nats://127.0.0.1:4222',
    LOGEXPORT_NATS_STREAM: stream,
    LOGEXPORT_EXPORT_ROOT: exportRoot,
    LOGEXPORT_WORKERS: workers,
  };
  const first = await startNodeUnderTest(env);
  const nodes: NodeUnderTest[] = [first];
  try {
    // The other nodes share the first one's store: same user, zone and key.
    for (let i = 1; i < nodeCount; i++) nodes.push(await startNodeUnderTest(env, [], { reuse: first }));
    await first.createJob('scale', { field_names: ['RayID', 'ClientIP', 'ClientCountry', 'EdgeResponseStatus', 'EdgeStartTimestamp'] }, '', { max_upload_records: 100_000 });
    await new Promise((r) => setTimeout(r, 2000));
    let accepted = 0;
    const start = performance.now();
    const until = start + seconds * 1000;
    await Promise.all(nodes.map((node) => postLoad(node, () => (performance.now() < until ? body() : undefined), 2, (status, events) => { if (status === 200) accepted += events; })));
    await Promise.all(nodes.map((node) => node.stop()));
    const elapsed = (performance.now() - start) / 1000;
    const delivered = first.deliveredLines('scale').length;
    console.log(`  ${nodeCount} node(s): ${accepted} events accepted, ${delivered} delivered, ${Math.round(accepted / elapsed)} events/s through delivery`);
    return accepted / elapsed;
  } finally {
    for (const node of nodes) node.dispose();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    const nc = await connect({ servers: '127.0.0.1:4222' });
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
    await nc.close();
    fs.rmSync(exportRoot, { recursive: true, force: true });
  }
}

console.log(`logexport scale-out — ${os.cpus().length} cores, Node ${process.version}, workers ${workers}, ${seconds} s of load per run`);
const one = await run(1);
const three = await run(3);
console.log(`  three nodes / one node: ${(three / one).toFixed(2)}× (every node on the same ${os.cpus().length} cores)`);
