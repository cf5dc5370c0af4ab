/**
 * `npm run bench`: logexport's performance targets, each measured in this run against a baseline measured
 * in the same run on the same records, so the ratios hold on a noisy machine. Prints each figure and
 * whether its target holds. Settings: BENCH_SECONDS (load duration, default 30), BENCH_WORKERS
 * (LOGEXPORT_WORKERS of the node under test), BENCH_ONLY (comma-separated target numbers).
 */
import os from 'node:os';
import { runBaseline } from './baseline.ts';
import { postLoad, startNodeUnderTest, type NodeUnderTest } from './node-under-test.ts';
import { makeEventLines } from './records.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 30);
const workers = process.env.BENCH_WORKERS ?? String(Math.max(1, os.cpus().length - 1));
const only = (process.env.BENCH_ONLY ?? '').split(',').filter((s) => s !== '').map(Number);
const eventsPerRequest = 2000;
const concurrency = 4;

export const benchFields = [
  'RayID',
  'EdgeStartTimestamp',
  'EdgeEndTimestamp',
  'ClientIP',
  'ClientCountry',
  'ClientRequestHost',
  'ClientRequestMethod',
  'ClientRequestURI',
  'ClientRequestUserAgent',
  'EdgeResponseStatus',
  'EdgeResponseBytes',
  'CacheCacheStatus',
  'EdgeColoCode',
  'RequestHeaders',
  'Cookies',
];

const benchFilter = JSON.stringify({
  where: {
    and: [
      { key: 'EdgeResponseStatus', operator: 'lt', value: 500 },
      { key: 'ClientRequestMethod', operator: 'in', value: ['GET', 'POST'] },
      { key: 'ClientCountry', operator: '!eq', value: 'zz' },
    ],
  },
});

const customFields = {
  rules: [
    {
      action: 'log_custom_field',
      expression: 'true',
      action_parameters: {
        request_fields: [{ name: 'x-forwarded-for' }, { name: 'user-agent' }],
        response_fields: [{ name: 'server' }],
        cookie_fields: [{ name: 'session' }],
      },
    },
  ],
};

const lines = makeEventLines(100_000);
const shared = Buffer.from(lines.slice(1, eventsPerRequest).join('\n') + '\n');
let requestCounter = 0;

/** A request body: one line made unique per request (so no two requests are the same content) + shared lines. */
function uniqueBody(): Buffer {
  const first = lines[(requestCounter * 7) % lines.length] ?? '';
  const unique = first.replace(/"RayID":"[^"]*"/, `"RayID":"u${requestCounter++}"`);
  return Buffer.concat([Buffer.from(unique + '\n'), shared]);
}

interface LoadResult {
  readonly accepted: number;
  readonly refused: number;
  readonly seconds: number;
  readonly latencies: number[];
}

/** Loads a node for `durationS` seconds as fast as it accepts. */
async function load(node: NodeUnderTest, durationS: number, bodies: () => Buffer | undefined = uniqueBody): Promise<LoadResult> {
  const start = performance.now();
  const until = start + durationS * 1000;
  let accepted = 0;
  let refused = 0;
  const latencies: number[] = [];
  await postLoad(
    node,
    () => (performance.now() < until ? bodies() : undefined),
    concurrency,
    (status, events, latency) => {
      if (status === 200) accepted += events;
      else refused += 1;
      latencies.push(latency);
    },
  );
  return { accepted, refused, seconds: (performance.now() - start) / 1000, latencies };
}

async function setUp(jobs: { name: string; filter: string }[], extraEnv: Record<string, string> = {}): Promise<NodeUnderTest> {
  const node = await startNodeUnderTest({ LOGEXPORT_WORKERS: workers, ...extraEnv });
  await node.api('PUT', `/zones/${node.zoneId}/rulesets/phases/http_log_custom_fields/entrypoint`, customFields);
  for (const job of jobs) {
    await node.createJob(job.name, { field_names: benchFields }, job.filter, { max_upload_records: 100_000, max_upload_bytes: 5_000_000 });
  }
  return node;
}

function line(label: string, value: string): void {
  console.log(`  ${label.padEnd(44)} ${value}`);
}

const results: { target: string; holds: boolean }[] = [];

function verdict(target: string, holds: boolean, detail: string): void {
  results.push({ target, holds });
  console.log(`  => ${holds ? 'HOLDS' : 'DOES NOT HOLD'}: ${detail}\n`);
}

async function targetEndToEnd(): Promise<void> {
  console.log(`1. End to end: HTTP ingest → queue → 1 job (3-condition filter, ${benchFields.length} fields) → ndjson → gzip → file`);
  const baseline = runBaseline(lines, benchFields, 3);
  line('baseline chain (1 thread)', `${Math.round(baseline.recordsPerSecond)} records/s, ${baseline.inputMBps.toFixed(1)} MB/s in`);
  const node = await setUp([{ name: 'one', filter: benchFilter }]);
  try {
    const cpu0 = node.cpuSeconds();
    const start = performance.now();
    const result = await load(node, seconds);
    const exit = await node.stop();
    const total = (performance.now() - start) / 1000;
    const delivered = node.deliveredLines('one').length;
    const rate = result.accepted / total;
    line('events accepted', `${result.accepted} in ${result.seconds.toFixed(1)} s of load (${result.refused} requests refused)`);
    line('delivered records (filter keeps about half)', `${delivered}; exit code ${exit}`);
    line('end to end, through delivery', `${Math.round(rate)} events/s, ${((rate * 1300) / 1e6).toFixed(1)} MB/s in`);
    line('CPU of the node', `${(node.cpuSeconds() - cpu0).toFixed(1)} s (≈ ${((node.cpuSeconds() - cpu0) / total).toFixed(2)} cores)`);
    const ratio = rate / baseline.recordsPerSecond;
    verdict('1', ratio >= 1.5, `${ratio.toFixed(2)}× the baseline chain (target ≥ 1.5×)`);
  } finally {
    node.dispose();
  }
}

async function targetJobs(): Promise<void> {
  console.log('2. Work grows with matched records, not with jobs: CPU per ingested event, 4 jobs vs 1 job');
  const filters = [
    benchFilter,
    JSON.stringify({ where: { key: 'ClientCountry', operator: 'in', value: ['us', 'de'] } }),
    JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 400 } }),
    JSON.stringify({ where: { key: 'CacheCacheStatus', operator: 'eq', value: 'hit' } }),
  ];
  const measure = async (jobCount: number) => {
    const node = await setUp(filters.slice(0, jobCount).map((filter, i) => ({ name: `j${i}`, filter })));
    try {
      const cpu0 = node.cpuSeconds();
      const result = await load(node, Math.max(5, seconds / 3));
      await node.stop();
      return (node.cpuSeconds() - cpu0) / result.accepted;
    } finally {
      node.dispose();
    }
  };
  const one = await measure(1);
  const four = await measure(4);
  line('CPU per event, 1 job', `${(one * 1e6).toFixed(1)} µs`);
  line('CPU per event, 4 jobs', `${(four * 1e6).toFixed(1)} µs`);
  verdict('2', four <= 2 * one, `${(four / one).toFixed(2)}× (target ≤ 2×)`);
}

const targets: [number, () => Promise<void>][] = [
  [1, targetEndToEnd],
  [2, targetJobs],
];

console.log(`logexport bench — ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, workers ${workers}, load ${seconds} s\n`);
for (const [n, run] of targets) if (only.length === 0 || only.includes(n)) await run();
console.log('Summary:');
for (const r of results) console.log(`  target ${r.target}: ${r.holds ? 'holds' : 'does not hold'}`);
