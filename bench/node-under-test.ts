/**
 * A `logexport serve` process started for a benchmark: its own data directory, a user, a zone, jobs with
 * a file destination; helpers to load it over HTTP and to read what it delivered and how much CPU it used.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
// @ts-expect-error -- plain JavaScript without type declarations
import { buildBundle, isBundleFresh } from '../bin/server-bundle.mjs';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const bin = fileURLToPath(new URL('../bin/logexport.mjs', import.meta.url));

export interface NodeUnderTest {
  readonly url: string;
  readonly zoneId: string;
  readonly auth: Readonly<Record<string, string>>;
  readonly dataDir: string;
  readonly child: ChildProcess;
  /** CPU seconds the process has used so far (user + system). */
  cpuSeconds(): number;
  /** CPU seconds each of its threads has used so far, by thread id (the main thread's id is the process id). */
  threadCpuSeconds(): Map<number, number>;
  /** Resident memory in bytes. */
  rssBytes(): number;
  api(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Creates an enabled job writing to file:///<name> with the given output options and filter. */
  createJob(name: string, outputOptions: unknown, filter: string, extra?: Record<string, unknown>): Promise<number>;
  /** SIGTERM, then waits for the exit; resolves the exit code. */
  stop(): Promise<number | null>;
  /** Lines of every delivered object under file:///<name>. */
  deliveredLines(name: string): string[];
  dispose(): void;
}

const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

function readStat(pid: number): { cpu: number; rss: number } {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    const rssPages = Number(fields[21]);
    return { cpu: (utime + stime) / ticksPerSecond, rss: rssPages * 4096 };
  } catch {
    return { cpu: NaN, rss: NaN };
  }
}

function readThreadsCpu(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        threads.set(Number(tid), (Number(fields[11]) + Number(fields[12])) / ticksPerSecond);
      } catch {
        // The thread ended meanwhile.
      }
    }
  } catch {
    // The process ended.
  }
  return threads;
}

let built: Promise<void> | undefined;

/**
 * Nodes under test run the built server, as `npm start` does: an edit since the last build would otherwise
 * be measured through the TypeScript loader, a different and slower program. Built once per bench run.
 */
function ensureBuilt(): Promise<void> {
  if (built === undefined) built = isBundleFresh() === true ? Promise.resolve() : (buildBundle() as Promise<void>);
  return built;
}

/** Starts a node with `env` settings on a free port and sets up a user and a zone. */
export async function startNodeUnderTest(
  env: Record<string, string> = {},
  nodeArgs: readonly string[] = [],
  options: { readonly reuse?: NodeUnderTest } = {},
): Promise<NodeUnderTest> {
  await ensureBuilt();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-bench-'));
  const baseEnv = { ...process.env, LOGEXPORT_DATA_DIR: dataDir, LOGEXPORT_LOG_LEVEL: 'warn', ...env };
  const cli = (...args: string[]) => JSON.parse(spawnSync(process.execPath, [bin, ...args], { env: baseEnv, encoding: 'utf8' }).stdout) as Record<string, string>;
  // A node sharing another's store (PostgreSQL) shares its user and zone too.
  const user = options.reuse === undefined ? cli('users', 'create', '--email', 'bench@example.com') : { email: options.reuse.auth['x-auth-email'], api_key: options.reuse.auth['x-auth-key'] };
  const zone = options.reuse === undefined ? cli('zones', 'create', '--email', 'bench@example.com', '--name', 'bench.example.com') : { id: options.reuse.zoneId };
  // BENCH_NODE_ARGS adds Node flags to every node under test (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where its time goes).
  const extraArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...extraArgs, ...nodeArgs, bin, 'serve', '--port', '0', '--log-level', 'info'], { env: baseEnv, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the node did not start: ${out}`)), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /serving the API at (http:\/\/[^\s/]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] ?? '');
      }
    });
  });
  // BENCH_NODE_STDOUT keeps what each node writes (e.g. with BENCH_NODE_ARGS=--trace-gc) in a file of that name.
  if (process.env.BENCH_NODE_STDOUT !== undefined) child.stdout?.pipe(fs.createWriteStream(`${process.env.BENCH_NODE_STDOUT}.${child.pid ?? 0}`));
  else child.stdout?.resume();
  const auth = { 'x-auth-email': user.email ?? '', 'x-auth-key': user.api_key ?? '' };
  const api = async (method: string, urlPath: string, body?: unknown) => {
    const res = await fetch(`${url}/client/v4${urlPath}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const zoneId = zone.id ?? '';
  const exportRoot = env.LOGEXPORT_EXPORT_ROOT ?? path.join(dataDir, 'exports');
  // Sampled while the process lives, so the figures survive its exit (the last sample is ≤ 100 ms old).
  let last = readStat(child.pid ?? 0);
  const sampler = setInterval(() => {
    const now = readStat(child.pid ?? 0);
    if (!Number.isNaN(now.cpu)) last = now;
  }, 100);
  child.once('exit', () => clearInterval(sampler));
  return {
    url,
    zoneId,
    auth,
    dataDir,
    child,
    cpuSeconds: () => {
      const now = readStat(child.pid ?? 0);
      return Number.isNaN(now.cpu) ? last.cpu : now.cpu;
    },
    threadCpuSeconds: () => readThreadsCpu(child.pid ?? 0),
    rssBytes: () => {
      const now = readStat(child.pid ?? 0);
      return Number.isNaN(now.rss) ? last.rss : now.rss;
    },
    api,
    async createJob(name, outputOptions, filter, extra = {}) {
      const conf = `file:///${name}`;
      const own = await api('POST', `/zones/${zoneId}/logexport/ownership`, { destination_conf: conf });
      const token = fs.readFileSync(path.join(exportRoot, own.body.result.filename), 'utf8');
      const job = await api('POST', `/zones/${zoneId}/logexport/jobs`, {
        name,
        destination_conf: conf,
        ownership_challenge: token,
        enabled: true,
        output_options: outputOptions,
        filter,
        ...extra,
      });
      if (job.status !== 200) throw new Error(`job create failed: ${JSON.stringify(job.body)}`);
      return job.body.result.id as number;
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      });
    },
    deliveredLines(name) {
      const dir = path.join(exportRoot, name);
      const lines: string[] = [];
      const walk = (d: string) => {
        for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
          const full = path.join(d, entry.name);
          if (entry.isDirectory()) walk(full);
          else if (entry.name.endsWith('.log.gz')) {
            for (const line of zlib.gunzipSync(fs.readFileSync(full)).toString('utf8').split('\n')) if (line !== '') lines.push(line);
          }
        }
      };
      if (fs.existsSync(dir)) walk(dir);
      return lines;
    },
    dispose() {
      clearInterval(sampler);
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
      // What the node wrote, and the removal of it (a discard per file where the file system is mounted with
      // `discard`), is flushed now rather than during the next measurement: without this, a load run after
      // another ran ~20 % slower than the first.
      spawnSync('sync');
    },
  };
}

/** Where load is posted and how a 200 answer counts accepted events; the default is NDJSON ingest. */
export interface LoadEndpoint {
  readonly path: string;
  readonly contentType: string;
  eventsOf(answer: Buffer): number;
}

/**
 * A request body: one buffer, or parts sent one after the other (a unique first line and the body shared by
 * every request: no request copies the shared part, which at 2.6 MB a request made the sending process's
 * collector the load's bottleneck once its heap had grown).
 */
export type LoadBody = Buffer | readonly Buffer[];

/** The bytes of a body. */
export function loadBodyLength(body: LoadBody): number {
  return Buffer.isBuffer(body) ? body.length : body.reduce((sum, part) => sum + part.length, 0);
}

/** Writes a body's parts to the request and ends it. */
export function endWithBody(request: http.ClientRequest, body: LoadBody): void {
  if (Buffer.isBuffer(body)) return void request.end(body);
  for (const part of body.slice(0, -1)) request.write(part);
  request.end(body.at(-1));
}

/** Posts bodies (NDJSON unless `endpoint` says otherwise) to a node with `concurrency` requests in flight, one keep-alive connection each. */
export async function postLoad(
  node: NodeUnderTest,
  nextBody: () => LoadBody | undefined,
  concurrency: number,
  onAnswer: (status: number, events: number, latencyMs: number, retryAfter: string | undefined) => void,
  endpoint: LoadEndpoint = {
    path: `/ingest/zones/${node.zoneId}/http_requests`,
    contentType: 'application/x-ndjson',
    eventsOf: (answer) => (JSON.parse(answer.toString()) as { result: { accepted: number } }).result.accepted,
  },
): Promise<void> {
  const target = new URL(`${node.url}${endpoint.path}`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const send = (body: LoadBody) =>
    new Promise<void>((resolve, reject) => {
      const started = performance.now();
      const req = http.request(
        target,
        { method: 'POST', agent, headers: { ...node.auth, 'content-type': endpoint.contentType, 'content-length': loadBodyLength(body) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => {
            let events = 0;
            if (res.statusCode === 200) events = endpoint.eventsOf(Buffer.concat(chunks));
            onAnswer(res.statusCode ?? 0, events, performance.now() - started, res.headers['retry-after'] as string | undefined);
            resolve();
          });
        },
      );
      req.on('error', reject);
      endWithBody(req, body);
    });
  const loop = async () => {
    for (let body = nextBody(); body !== undefined; body = nextBody()) await send(body);
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  agent.destroy();
}

/** A value of a node's /metrics: the sum of its samples, whatever their labels. */
export async function nodeMetric(node: Pick<NodeUnderTest, 'url'>, name: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}
