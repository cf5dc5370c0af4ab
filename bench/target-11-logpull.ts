/**
 * Target 11: `GET …/logs/received` for one hour holding 1,000,000 events, all fields, streamed to a client
 * (NDJSON, no gzip), at ≥ 2× the records/s of the minimal chain (JSON.parse → pick fields → JSON.stringify
 * → gzip, one thread) over the same records with the same fields — from the hot tier (the node compacts
 * nothing: LOGEXPORT_RETENTION_COMPACT_BUDGET=0) and from compacted segments (the same data directory, on a
 * node started again that compacts everything at once). The measured pull's client is a process of its own
 * (stream-client.ts), as a real one would be.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { httpRequests } from '../src/domain/datasets/http-requests.ts';
import type { BenchContext } from './bench-context.ts';
import { runBaseline } from './baseline.ts';
import { readStreamed, type Streamed } from './stream-client.ts';
import { nodeMetric, postLoad, startNodeUnderTest, type NodeUnderTest } from './node-under-test.ts';

const total = 1_000_000;
const perRequest = 2000;

/** Reads a streamed answer to the end in a client process of its own (stream-client.ts); answers what it read and the time it took. */
function streamInOwnProcess(url: string, headers: Readonly<Record<string, string>>): Promise<Streamed> {
  const client = fileURLToPath(new URL('./stream-client.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', client, url, JSON.stringify(headers)], { maxBuffer: 1024 * 1024 }, (error, stdout) => {
      if (error !== null) reject(error);
      else resolve(JSON.parse(stdout) as Streamed);
    });
  });
}

export async function targetLogpull(bench: BenchContext): Promise<void> {
  console.log(`11. Logpull: received, one hour holding ${total.toLocaleString('en')} events, all fields, streamed (hot tier, then compacted)`);
  const fields = httpRequests.fields.map((f) => f.name);
  const baseline = runBaseline(bench.lines, fields, 3);
  bench.line('baseline chain (1 thread), all fields', `${Math.round(baseline.recordsPerSecond)} records/s`);
  const node = await bench.setUp([], { LOGEXPORT_RETENTION_FLUSH: '2s', LOGEXPORT_RETENTION_COMPACT_BUDGET: '0' });
  let compactingNode: NodeUnderTest | undefined;
  try {
    await node.api('POST', `/zones/${node.zoneId}/logs/control/retention/flag`, { flag: true });
    const startS = Math.floor(Date.now() / 1000) - 1;
    let sent = 0;
    let accepted = 0;
    // Every request differs (one RayID per request), or the queue would store a repeated body once.
    const shared = Buffer.from(bench.lines.slice(1, perRequest).join('\n') + '\n');
    const body = (n: number): Buffer[] => [Buffer.from((bench.lines[0] ?? '').replace(/"RayID":"[^"]*"/, `"RayID":"logpull${n}"`) + '\n'), shared];
    const ingestStart = performance.now();
    await postLoad(node, () => (sent < total ? body((sent += perRequest)) : undefined), 4, (status, events) => {
      if (status === 200) accepted += events;
    });
    bench.line('ingested (retention on, no job)', `${accepted} events in ${((performance.now() - ingestStart) / 1000).toFixed(1)} s`);
    const measure = async (of: NodeUnderTest, tier: string): Promise<number> => {
      const base = `${of.url}/client/v4/zones/${of.zoneId}/logs/received?start=${startS}&end=${startS + 3600}`;
      // Segments close within the flush interval; wait until every event is readable.
      const until = Date.now() + 180_000;
      while ((await readStreamed(`${base}&fields=RayID`, of.auth)).lines < accepted && Date.now() < until) await new Promise((r) => setTimeout(r, 1000));
      const answer = await streamInOwnProcess(`${base}&fields=${fields.join(',')}`, of.auth);
      const secondsTaken = answer.seconds;
      const rate = answer.lines / secondsTaken;
      bench.line(`received from the ${tier}, streamed`, `${answer.lines} records, ${(answer.bytes / 1e6).toFixed(0)} MB in ${secondsTaken.toFixed(2)} s: ${Math.round(rate)} records/s (status ${answer.status})`);
      return answer.lines === accepted ? rate / baseline.recordsPerSecond : 0;
    };
    const hot = await measure(node, 'hot tier');
    await node.stop();
    // The same data directory, on a node that compacts every hot segment at once with a whole core.
    compactingNode = await startNodeUnderTest({ LOGEXPORT_DATA_DIR: node.dataDir, LOGEXPORT_RETENTION_FLUSH: '2s', LOGEXPORT_RETENTION_COMPACT_BUDGET: '1', LOGEXPORT_RETENTION_COMPACT_AFTER: '0s' }, [], { reuse: node });
    const compactStart = performance.now();
    await new Promise((r) => setTimeout(r, 2000));
    while ((await nodeMetric(compactingNode, 'logexport_retention_hot_segments')) > 0) await new Promise((r) => setTimeout(r, 500));
    bench.line('compaction of the hour (one DuckDB thread)', `${((performance.now() - compactStart) / 1000).toFixed(1)} s for ${accepted} events`);
    const compacted = await measure(compactingNode, 'compacted segments');
    bench.verdict('11', hot >= 2 && compacted >= 2, `hot tier ${hot.toFixed(2)}×, compacted ${compacted.toFixed(2)}× the baseline chain (target ≥ 2× from both; 0 means records were missing)`);
    await compactingNode.stop();
  } finally {
    compactingNode?.dispose();
    node.dispose();
  }
}
