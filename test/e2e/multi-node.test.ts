/**
 * Scale-out: three `logexport serve` processes against one PostgreSQL database and one NATS JetStream
 * server. Events are ingested through all three; one process is killed with SIGKILL mid-run; afterwards
 * every event that got a 200 is at the destination (counted by RayID) — nothing lost — and the duplicate
 * rate is reported.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { serverAvailable } from '../support/services.ts';
import { postgresUrl } from '../support/stores.ts';
import { connectViewer, sampledIn } from '../support/live-viewer.ts';

const bin = fileURLToPath(new URL('../../bin/logexport.mjs', import.meta.url));
const ready = (await serverAvailable('PostgreSQL', '127.0.0.1', 5432)) && (await serverAvailable('NATS', '127.0.0.1', 4222));

interface Node {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
}

function startNode(name: string, env: NodeJS.ProcessEnv): Promise<Node> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node ${name} did not start: ${log}`)), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      log += d.toString();
      const m = /serving the API at (http:\/\/[^\s/]+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve({ name, url: m[1] ?? '', child });
      }
    });
    child.once('exit', (code) => reject(new Error(`node ${name} exited with ${code}: ${log}`)));
  });
}

function stopNode(node: Node): Promise<void> {
  return new Promise((resolve) => {
    if (node.child.exitCode !== null || node.child.signalCode !== null) return resolve();
    node.child.once('exit', () => resolve());
    node.child.kill('SIGTERM');
  });
}

function deliveredRayIds(root: string): string[] {
  const ids: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.log.gz')) {
        for (const line of gunzipSync(fs.readFileSync(full)).toString('utf8').split('\n')) {
          if (line !== '') ids.push((JSON.parse(line) as { RayID: string }).RayID);
        }
      }
    }
  };
  if (fs.existsSync(root)) walk(root);
  return ids;
}

describe('three nodes on PostgreSQL and NATS JetStream', { skip: !ready }, () => {
  const suffix = randomBytes(4).toString('hex');
  const database = `logexport_multinode_${suffix}`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-multinode-'));
  const exportRoot = path.join(work, 'exports');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOGEXPORT_DATABASE_URL: postgresUrl.replace(/\/[^/]*$/, `/${database}`),
    LOGEXPORT_QUEUE_URL: 'nats://127.0.0.1:4222',
    LOGEXPORT_NATS_STREAM: `LOGEXPORT_TEST_${suffix}`,
    LOGEXPORT_EXPORT_ROOT: exportRoot,
    LOGEXPORT_LOG_LEVEL: 'info',
    LOGEXPORT_SHUTDOWN_TIMEOUT: '20s',
  };
  const nodes: Node[] = [];
  let auth: Record<string, string> = {};
  let zoneId = '';

  before(async () => {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const cli = (...args: string[]) => {
      const out = spawnSync(process.execPath, [bin, ...args, '--data-dir', path.join(work, 'cli')], { env, encoding: 'utf8' });
      assert.equal(out.status, 0, out.stderr);
      return JSON.parse(out.stdout) as Record<string, string>;
    };
    const user = cli('users', 'create', '--email', 'multi@example.com');
    zoneId = cli('zones', 'create', '--email', 'multi@example.com', '--name', `multi-${suffix}.example.com`).id ?? '';
    auth = { 'x-auth-email': 'multi@example.com', 'x-auth-key': user.api_key ?? '' };
    // The three nodes start together: migrations run once under a lock, the others wait.
    nodes.push(...(await Promise.all(['a', 'b', 'c'].map((name) => startNode(name, { ...env, LOGEXPORT_DATA_DIR: path.join(work, name) })))));
  });

  after(async () => {
    await Promise.all(nodes.map(stopNode));
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    // The stream and the job's consumer would otherwise stay on the shared NATS server.
    const nc = await connect({ servers: '127.0.0.1:4222' });
    await (await jetstreamManager(nc)).streams.delete(`LOGEXPORT_TEST_${suffix}`).catch(() => false);
    await nc.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  async function api(node: Node, method: string, urlPath: string, body?: unknown) {
    const res = await fetch(`${node.url}/client/v4${urlPath}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { result: Record<string, unknown> } };
  }

  it('shows a viewer on one node the live records ingested through the others (NATS core subjects)', async () => {
    const [a, b, c] = nodes as [Node, Node, Node];
    const filter = JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 500 } });
    const made = await api(a, 'POST', `/zones/${zoneId}/logexport/edge/jobs`, { fields: 'RayID,EdgeResponseStatus', filter, sample: 2 });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    // The session was made on node a; its viewer connects to node b.
    const address = new URL(String(made.body.result.destination_conf));
    address.host = new URL(b.url).host;
    const viewer = await connectViewer(address.href);
    try {
      const post = async (node: Node, events: readonly Record<string, unknown>[]) => {
        const res = await fetch(`${node.url}/ingest/zones/${zoneId}/http_requests`, { method: 'POST', headers: auth, body: events.map((e) => JSON.stringify(e)).join('\n') });
        assert.equal(res.status, 200, await res.text());
      };
      // Node c learns of the watched session from node b's announcement; until then it has nothing to send.
      for (let i = 0; viewer.records.length === 0; i++) {
        assert.ok(i < 100, 'a record ingested on node c reached the viewer on node b');
        await post(c, [{ RayID: `probe-${i}`, EdgeResponseStatus: 599 }, { RayID: `probe-${i}-b`, EdgeResponseStatus: 599 }]);
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 500));
      const seen = viewer.records.length;
      const events = Array.from({ length: 600 }, (_, i) => ({ RayID: `live-${i}`, EdgeResponseStatus: [200, 500, 503, 404][i % 4] ?? 0 }));
      await post(a, events.slice(0, 200));
      await post(c, events.slice(200, 400));
      await post(b, events.slice(400));
      const expected = events.filter((e) => e.EdgeResponseStatus >= 500 && sampledIn(e.RayID, 2)).map((e) => JSON.stringify(e));
      await viewer.until(`${expected.length} live records`, () => viewer.records.length - seen >= expected.length, 15_000);
      await new Promise((r) => setTimeout(r, 500));
      // Requests to different nodes may interleave on the way; each node's own records keep their order.
      assert.deepEqual(viewer.records.slice(seen).sort(), [...expected].sort());
      const listed = await api(c, 'GET', `/zones/${zoneId}/logexport/edge/jobs`);
      assert.deepEqual((listed.body.result as unknown as { session_id: string }[]).map((s) => s.session_id), [made.body.result.session_id]);
    } finally {
      await viewer.close();
    }
  });

  it('delivers every accepted event once a node is killed mid-run, and reports the duplicate rate', async () => {
    const [a, b, c] = nodes as [Node, Node, Node];
    const conf = 'file:///multi';
    const challenge = await api(a, 'POST', `/zones/${zoneId}/logexport/ownership`, { destination_conf: conf });
    assert.equal(challenge.status, 200);
    const token = fs.readFileSync(path.join(exportRoot, String(challenge.body.result.filename)), 'utf8');
    // The job is made through node b; node a and c learn of it from the store.
    const job = await api(b, 'POST', `/zones/${zoneId}/logexport/jobs`, {
      destination_conf: conf,
      ownership_challenge: token,
      enabled: true,
      max_upload_records: 1000,
      output_options: { field_names: ['RayID', 'ClientCountry'] },
    });
    assert.equal(job.status, 200, JSON.stringify(job.body));
    await new Promise((r) => setTimeout(r, 2500));

    const accepted = new Set<string>();
    let sent = 0;
    const requests = 60;
    const perRequest = 250;
    const post = async (node: Node, ids: string[]) => {
      const body = ids.map((id) => JSON.stringify({ RayID: id, ClientCountry: 'us', EdgeResponseStatus: 200 })).join('\n');
      try {
        const res = await fetch(`${node.url}/ingest/zones/${zoneId}/http_requests`, { method: 'POST', headers: auth, body });
        await res.text();
        return res.status === 200;
      } catch {
        return false;
      }
    };
    for (let r = 0; r < requests; r++) {
      const ids = Array.from({ length: perRequest }, (_, i) => `r${r}-${i}`);
      sent += ids.length;
      // Ingest is spread over the nodes; after a third of the run node c is killed. A client whose
      // request failed sends it again through another node.
      if (r === requests / 3) c.child.kill('SIGKILL');
      const order = [nodes[r % 3], nodes[(r + 1) % 3], nodes[(r + 2) % 3]] as Node[];
      for (const node of order) {
        if (node.child.signalCode !== null) continue;
        if (await post(node, ids)) {
          for (const id of ids) accepted.add(id);
          break;
        }
      }
    }
    assert.equal(accepted.size, sent, 'every request was accepted by some node');

    // Chunks the killed node held come back to the others once their acknowledgement deadline (30 s) has
    // passed; then the survivors stop with SIGTERM, which delivers every open batch.
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && new Set(deliveredRayIds(path.join(exportRoot, 'multi'))).size < accepted.size) {
      await new Promise((r) => setTimeout(r, 1000));
    }
    await stopNode(a);
    await stopNode(b);
    const delivered = deliveredRayIds(path.join(exportRoot, 'multi'));
    const unique = new Set(delivered);
    const missing = [...accepted].filter((id) => !unique.has(id));
    const duplicates = delivered.length - unique.size;
    console.log(
      `multi-node: ${accepted.size} events accepted, ${delivered.length} records delivered, ${missing.length} missing, ` +
        `${duplicates} duplicates (${((100 * duplicates) / accepted.size).toFixed(2)} %)`,
    );
    assert.deepEqual(missing.slice(0, 10), [], `${missing.length} accepted events were not delivered`);
  });
});
