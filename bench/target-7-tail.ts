/**
 * Target 7: a 1,000,000-line `native` file tailed → delivered, against the minimal chain of target 1
 * (baseline.ts) reading the same file in the same run: ≥ 1.5× events/s. The `caddy` format's figure (the
 * same requests as Caddy would log them) is reported beside it. BENCH_TAIL_LINES changes the line count.
 *
 * The node is started with the file absent (the tail waits for it) and its zone, custom fields and job set
 * up; the complete file is then renamed into place, and the clock runs until every line was read (from
 * /metrics) and the node, stopped with SIGTERM, has delivered what it queued — as target 1 measures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBaseline, type BaselineResult } from './baseline.ts';
import { startNodeUnderTest, type NodeUnderTest } from './node-under-test.ts';
import { makeEvent, seededRandom } from './records.ts';

/** What run.ts passes in: the job as target 1 runs it. */
export interface TailBenchSetup {
  readonly fields: readonly string[];
  readonly filter: string;
  readonly customFields: unknown;
  readonly workersEnv: Readonly<Record<string, string>>;
  readonly line: (label: string, value: string) => void;
  readonly verdict: (target: string, holds: boolean, detail: string) => void;
}

const lineCount = Number(process.env.BENCH_TAIL_LINES ?? 1_000_000);
/** The zone the bench node creates; the events' host is under it so they route there. */
const host = 'www.bench.example.com';

/** The request of event `i` as Caddy 2.6 logs it. */
function caddyEntry(event: Record<string, unknown>): Record<string, unknown> {
  const headers: Record<string, string[]> = {};
  for (const [name, value] of event.RawRequestHeaders as [string, string][]) if (name !== 'Host') (headers[name] ??= []).push(value);
  const respHeaders: Record<string, string[]> = {};
  for (const [name, value] of event.RawResponseHeaders as [string, string][]) (respHeaders[name] ??= []).push(value);
  const endNs = BigInt(String(event.EdgeEndTimestamp));
  return {
    level: 'info',
    ts: Number(endNs / 1000n) / 1e6,
    logger: 'http.log.access.log0',
    msg: 'handled request',
    request: {
      remote_ip: event.ClientIP,
      remote_port: String(event.ClientSrcPort),
      proto: 'HTTP/2.0',
      method: event.ClientRequestMethod,
      host,
      uri: event.ClientRequestURI,
      headers,
      tls: { resumed: false, version: 772, cipher_suite: 4865, proto: 'h2', server_name: host },
    },
    user_id: '',
    duration: 0.012,
    size: event.EdgeResponseBytes,
    status: event.EdgeResponseStatus,
    resp_headers: respHeaders,
  };
}

/** Writes `count` lines of the format to `file` (in blocks, so no string ever holds the whole file). */
function writeFile(file: string, count: number, format: 'native' | 'caddy'): number {
  const fd = fs.openSync(file, 'w');
  const random = seededRandom(42);
  let bytes = 0;
  try {
    for (let i = 0; i < count; ) {
      const block: string[] = [];
      for (let j = 0; j < 20_000 && i < count; j++, i++) {
        const event = makeEvent(i, random);
        event.ClientRequestHost = host;
        event.RawRequestHeaders = (event.RawRequestHeaders as [string, string][]).map(([name, value]) => [name, name === 'Host' ? host : value]);
        block.push(JSON.stringify(format === 'native' ? event : caddyEntry(event)));
      }
      const text = Buffer.from(block.join('\n') + '\n');
      fs.writeSync(fd, text);
      bytes += text.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}

/** Target 1's chain over the file, read in 4 MiB blocks. */
function baselineOverFile(file: string, fields: readonly string[]): BaselineResult {
  const start = performance.now();
  const fd = fs.openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
  let carry = '';
  let records = 0;
  let kept = 0;
  let gzipBytes = 0;
  let inputBytes = 0;
  try {
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      inputBytes += read;
      const text = carry + buffer.toString('utf8', 0, read);
      const end = text.lastIndexOf('\n');
      carry = text.slice(end + 1);
      const lines = text.slice(0, end).split('\n');
      const result = runBaseline(lines, fields, 1);
      records += result.records;
      kept += result.kept;
      gzipBytes += result.gzipBytes;
    }
  } finally {
    fs.closeSync(fd);
  }
  const seconds = (performance.now() - start) / 1000;
  return { records, kept, seconds, recordsPerSecond: records / seconds, inputMBps: inputBytes / 1e6 / seconds, gzipBytes };
}

async function metricSum(node: NodeUnderTest, names: readonly string[]): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    for (const name of names) if (line.startsWith(`${name}{`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Tails `file` (renamed into place at `LOGEXPORT_TAIL`'s path) through a node until every line is done; events/s. */
async function tailThrough(source: string, format: 'native' | 'caddy', setup: TailBenchSetup, expectedKept: number): Promise<{ rate: number; cpu: number; seconds: number; readSeconds: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-tail-bench-'));
  const target = path.join(dir, 'access.log');
  const node = await startNodeUnderTest({ ...setup.workersEnv, LOGEXPORT_TAIL: `${format}:${target}` });
  try {
    await node.api('PUT', `/zones/${node.zoneId}/rulesets/phases/http_log_custom_fields/entrypoint`, setup.customFields);
    await node.createJob('tail', { field_names: setup.fields }, setup.filter, { max_upload_records: 100_000, max_upload_bytes: 5_000_000 });
    // The node sees its own changes at once; give the tail's zone directory its first refresh.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const cpu0 = node.cpuSeconds();
    const start = performance.now();
    fs.renameSync(source, target);
    for (;;) {
      const read = await metricSum(node, ['logexport_source_lines_read_total']);
      if (read >= lineCount) break;
      const rejected = await metricSum(node, ['logexport_source_lines_rejected_total', 'logexport_source_lines_unknown_host_total']);
      if (rejected > 0) throw new Error(`the tail rejected ${rejected} lines of the bench file`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const readSeconds = (performance.now() - start) / 1000;
    // Stopping delivers what is queued (the open batch included), as target 1 measures it.
    const cpu = node.cpuSeconds() - cpu0;
    await node.stop();
    const seconds = (performance.now() - start) / 1000;
    const delivered = node.deliveredLines('tail').length;
    if (delivered !== expectedKept) throw new Error(`the job delivered ${delivered} records, the baseline chain kept ${expectedKept}`);
    fs.renameSync(target, source);
    return { rate: lineCount / seconds, cpu, seconds, readSeconds };
  } finally {
    await node.stop();
    node.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs target 7. */
export async function targetTail(setup: TailBenchSetup): Promise<void> {
  console.log(`7. A ${lineCount.toLocaleString('en')}-line file tailed → delivered (the job of target 1), against target 1's chain reading the same file`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-tail-file-'));
  try {
    const native = path.join(dir, 'native.log');
    const caddy = path.join(dir, 'caddy.log');
    const nativeBytes = writeFile(native, lineCount, 'native');
    const caddyBytes = writeFile(caddy, lineCount, 'caddy');
    setup.line('files', `native ${(nativeBytes / 1e6).toFixed(0)} MB, caddy ${(caddyBytes / 1e6).toFixed(0)} MB`);
    const before = baselineOverFile(native, setup.fields);
    setup.line('baseline chain (1 thread) over the file, before', `${Math.round(before.recordsPerSecond)} records/s, ${before.inputMBps.toFixed(1)} MB/s in`);
    const tailed = await tailThrough(native, 'native', setup, before.kept);
    setup.line('native: tailed → delivered', `${Math.round(tailed.rate)} events/s (${tailed.seconds.toFixed(1)} s, all read after ${tailed.readSeconds.toFixed(1)} s, ${(tailed.cpu / tailed.seconds).toFixed(2)} cores)`);
    const caddyTailed = await tailThrough(caddy, 'caddy', setup, before.kept);
    setup.line('caddy: tailed → delivered', `${Math.round(caddyTailed.rate)} events/s (${caddyTailed.seconds.toFixed(1)} s, all read after ${caddyTailed.readSeconds.toFixed(1)} s, ${(caddyTailed.cpu / caddyTailed.seconds).toFixed(2)} cores)`);
    const after = baselineOverFile(native, setup.fields);
    const baseline = (before.recordsPerSecond + after.recordsPerSecond) / 2;
    setup.line('baseline chain (1 thread) over the file, after', `${Math.round(after.recordsPerSecond)} records/s; mean ${Math.round(baseline)} records/s`);
    setup.line('caddy against the baseline', `${(caddyTailed.rate / baseline).toFixed(2)}×`);
    const ratio = tailed.rate / baseline;
    setup.verdict('7', ratio >= 1.5, `native ${ratio.toFixed(2)}× the baseline chain's mean (target ≥ 1.5×); caddy ${(caddyTailed.rate / baseline).toFixed(2)}×`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
