import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAllServed, serveNode } from './support/served-node.ts';
import { commandUsage } from '../src/cli/command-usage.ts';
import { serverAvailable } from './support/services.ts';

const bin = fileURLToPath(new URL('../bin/logexport.mjs', import.meta.url));

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-cli-'));
const env = { ...process.env, LOGEXPORT_DATA_DIR: dataDir, LOGEXPORT_LOG_LEVEL: 'silent' };

interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers freely
  json: any;
}

/** Runs the command line with the shared data directory, or with other settings and spawn options. */
function cliWith(settings: Record<string, string>, options: SpawnSyncOptions, ...args: string[]): CliResult {
  const result = spawnSync(process.execPath, [bin, ...args], { env: { ...env, ...settings }, encoding: 'utf8', ...options });
  const stdout = String(result.stdout);
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { status: result.status, stdout, stderr: String(result.stderr), json };
}

function cli(...args: string[]): CliResult {
  return cliWith({}, {}, ...args);
}

describe('the logexport command line', () => {
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('creates a user and prints one JSON object with the API key', () => {
    const out = cli('users', 'create', '--email', 'Cli@Example.com', '--password', 'correct horse');
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stdout.trim().split('\n').length, 1);
    assert.equal(out.json?.email, 'cli@example.com');
    assert.match(out.json?.api_key ?? '', /^[0-9a-f]{37}$/);
  });

  it('creates a zone for a user and a token for the zone', () => {
    const zone = cli('zones', 'create', '--email', 'cli@example.com', '--name', 'cli.example.com');
    assert.equal(zone.status, 0, zone.stderr);
    assert.match(zone.json?.id ?? '', /^[0-9a-f]{32}$/);
    assert.equal(zone.json?.name, 'cli.example.com');
    const token = cli('tokens', 'create', '--email', 'cli@example.com', '--zone', zone.json?.id ?? '', '--permissions', 'logs:edit,logs:ingest');
    assert.equal(token.status, 0, token.stderr);
    assert.match(token.json?.token ?? '', /^[A-Za-z0-9_-]{40}$/);
    const byName = cli('tokens', 'create', '--email', 'cli@example.com', '--zone', 'cli.example.com', '--permissions', 'logs:read');
    assert.equal(byName.status, 0, byName.stderr);
  });

  it('lists the tokens of a user without their values, and revokes one', () => {
    const made = cli('tokens', 'create', '--email', 'cli@example.com', '--zone', 'cli.example.com', '--permissions', 'logs:read', '--name', 'to revoke');
    assert.equal(made.status, 0, made.stderr);
    const listed = spawnSync(process.execPath, [bin, 'tokens', 'list', '--email', 'cli@example.com'], { env, encoding: 'utf8' });
    assert.equal(listed.status, 0, listed.stderr);
    assert.equal(listed.stdout.trim().split('\n').length, 1);
    const tokens = (JSON.parse(listed.stdout) as { tokens: { id: string; name: string; status: string }[] }).tokens;
    assert.ok(!listed.stdout.includes(made.json?.token ?? '-'), 'no value is listed');
    const target = tokens.find((tok) => tok.name === 'to revoke');
    assert.equal(target?.status, 'active');
    const revoked = cli('tokens', 'revoke', '--email', 'cli@example.com', '--id', target?.id ?? '');
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.equal(revoked.json?.revoked, target?.id);
    const after = JSON.parse(spawnSync(process.execPath, [bin, 'tokens', 'list', '--email', 'cli@example.com'], { env, encoding: 'utf8' }).stdout) as { tokens: { id: string }[] };
    assert.ok(!after.tokens.some((tok) => tok.id === target?.id));
  });

  const failures: { name: string; args: string[]; status: number; message: RegExp }[] = [
    { name: 'a duplicate user', args: ['users', 'create', '--email', 'cli@example.com'], status: 1, message: /already exists/ },
    { name: 'a bad e-mail', args: ['users', 'create', '--email', 'nope'], status: 1, message: /not an e-mail address/ },
    { name: 'a short password', args: ['users', 'create', '--email', 'x@example.com', '--password', 'short'], status: 1, message: /at least 8/ },
    { name: 'an unknown user', args: ['zones', 'create', '--email', 'nobody@example.com', '--name', 'n.example.com'], status: 1, message: /no user with e-mail/ },
    { name: 'a duplicate zone name', args: ['zones', 'create', '--email', 'cli@example.com', '--name', 'CLI.example.com'], status: 1, message: /is taken/ },
    { name: 'a public suffix', args: ['zones', 'create', '--email', 'cli@example.com', '--name', 'co.uk'], status: 1, message: /public suffix/ },
    { name: 'revoking a token the user does not have', args: ['tokens', 'revoke', '--email', 'cli@example.com', '--id', 'f'.repeat(32)], status: 1, message: /has no API token/ },
    { name: 'a bad zone name', args: ['zones', 'create', '--email', 'cli@example.com', '--name', 'not a name'], status: 1, message: /not a domain name/ },
    { name: 'a bad permission', args: ['tokens', 'create', '--email', 'cli@example.com', '--zone', 'cli.example.com', '--permissions', 'logs:all'], status: 1, message: /unknown permission "logs:all"/ },
    { name: 'a zone of nobody', args: ['tokens', 'create', '--email', 'cli@example.com', '--zone', 'other.example.com', '--permissions', 'logs:read'], status: 1, message: /has no zone/ },
    { name: 'a missing option', args: ['zones', 'create', '--email', 'cli@example.com'], status: 2, message: /--name is required/ },
    { name: 'an unknown command', args: ['jobs', 'create'], status: 2, message: /unknown command/ },
    { name: 'a bad setting', args: ['users', 'create', '--email', 'y@example.com', '--port', 'abc'], status: 1, message: /LOGEXPORT_PORT="abc" is not valid/ },
  ];
  for (const f of failures) {
    it(`refuses ${f.name} with a clear line and exit ${f.status}`, () => {
      const out = cli(...f.args);
      assert.equal(out.status, f.status);
      assert.equal(out.stdout, '');
      assert.match(out.stderr, f.message);
      assert.match(out.stderr, /^logexport: /);
    });
  }

  it('serves until SIGTERM and then exits 0', async () => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'info'], { env: { ...env, LOGEXPORT_LOG_LEVEL: 'info' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start line in: ${output}`)), 20_000);
      child.stdout.on('data', () => {
        const m = /serving the API at (http:\/\/[^\s/]+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1] ?? '');
        }
      });
    });
    const res = await fetch(`${url}/client/v4/zones`);
    assert.equal(res.status, 400);
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exit, 0);
  });

  it('stops with one line naming the variable when a setting is bad', () => {
    const result = spawnSync(process.execPath, [bin, 'serve'], { env: { ...env, LOGEXPORT_DATABASE_URL: 'mysql://x' }, encoding: 'utf8' });
    assert.equal(result.status, 1);
    assert.equal(result.stderr.trim().split('\n').length, 1);
    assert.match(result.stderr, /LOGEXPORT_DATABASE_URL/);
  });
});

describe('logexport help', () => {
  const commands = ['serve', 'users', 'zones', 'tokens', 'secrets', 'sources', 'doctor', 'help'];

  it('prints the usage of every command on stdout and exits 0, for --help, -h and help', () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const out = cli(...args);
      assert.equal(out.status, 0, args.join(' '));
      assert.equal(out.stderr, '');
      assert.match(out.stdout, /^usage:\n/);
      for (const command of commands) assert.match(out.stdout, new RegExp(`^  logexport ${command}\\b`, 'm'), `${args.join(' ')} names ${command}`);
    }
  });

  it("prints one command's usage and what it does for help COMMAND and COMMAND --help", () => {
    for (const command of commands) {
      const usage = commandUsage(command) ?? assert.fail(`no help for ${command}`);
      assert.match(usage, new RegExp(`^usage:\\n  logexport ${command}\\b`), command);
      assert.ok(usage.split('\n').length >= 4, `${command} says what it does`);
    }
    const doctor = cli('help', 'doctor');
    assert.equal(doctor.status, 0);
    assert.equal(doctor.stdout, `${commandUsage('doctor')}\n`);
    const serve = cli('serve', '--help');
    assert.equal(serve.status, 0, 'serve --help prints and exits instead of starting a node');
    assert.equal(serve.stdout, `${commandUsage('serve')}\n`);
    assert.equal(cli('users', 'create', '--help').stdout, `${commandUsage('users')}\n`);
  });

  it('refuses help for a word that is no command, with exit 2', () => {
    const out = cli('help', 'jobs');
    assert.equal(out.status, 2);
    assert.match(out.stderr, /^logexport: no command "jobs"/);
  });
});

/** The finding of one check in a doctor report. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers freely
function finding(out: CliResult, check: string | RegExp): any {
  const found = (out.json?.checks as { check: string }[] | undefined)?.find((c) => (typeof check === 'string' ? c.check === check : check.test(c.check)));
  assert.ok(found, `no finding "${String(check)}" in ${out.stdout}${out.stderr}`);
  return found;
}

describe('logexport doctor', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-doctor-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    killAllServed();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A port nothing listens on now. */
  async function freePort(): Promise<number> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  it('finds nothing wrong on a fresh data directory and a free port, and says there is no zone yet', async () => {
    const out = cliWith({ LOGEXPORT_DATA_DIR: fresh() }, {}, 'doctor', '--port', String(await freePort()));
    assert.equal(out.status, 0, out.stdout + out.stderr);
    assert.equal(out.json.problems, 0);
    for (const check of ['data directory', 'export root', 'port', 'database', 'queue', 'secrets']) assert.equal(finding(out, check).status, 'ok', check);
    assert.equal(finding(out, 'tailed files').status, 'skipped');
    assert.deepEqual(finding(out, 'zones and jobs'), {
      check: 'zones and jobs',
      status: 'warning',
      detail: 'there is no zone yet: ingest has nowhere to put events',
      fix: 'create one: logexport zones create --email E --name example.com',
    });
    assert.equal(out.stdout.split('\n').length, out.json.checks.length + 3, 'one finding a line');
  });

  it('says the port is taken by another program, and how to fix it (exit 1)', async () => {
    const other = net.createServer((socket) => socket.end('not http\r\n'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const port = (other.address() as net.AddressInfo).port;
      const out = cliWith({ LOGEXPORT_DATA_DIR: fresh() }, {}, 'doctor', '--port', String(port));
      assert.equal(out.status, 1);
      assert.equal(out.json.problems, 1);
      const found = finding(out, 'port');
      assert.equal(found.status, 'problem');
      assert.equal(found.detail, `127.0.0.1:${port} is taken by another program`);
      assert.match(found.fix, /LOGEXPORT_PORT or --port/);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('says the data directory cannot be written, and how to fix it', () => {
    const file = path.join(fresh(), 'a-file');
    fs.writeFileSync(file, '');
    const out = cliWith({ LOGEXPORT_DATA_DIR: path.join(file, 'data') }, {}, 'doctor', '--port', '0');
    assert.equal(out.status, 1);
    const found = finding(out, 'data directory');
    assert.equal(found.status, 'problem');
    assert.match(found.detail, /a-file\/data cannot be written: ENOTDIR/);
    assert.match(found.fix, /LOGEXPORT_DATA_DIR/);
    assert.equal(finding(out, 'database').status, 'problem');
  });

  it('says PostgreSQL and NATS cannot be reached, without printing the password', async () => {
    const port = await freePort();
    const out = cliWith(
      { LOGEXPORT_DATA_DIR: fresh(), LOGEXPORT_DATABASE_URL: `postgres://logexport:hunter2secret@127.0.0.1:${port}/logexport`, LOGEXPORT_QUEUE_URL: `nats://127.0.0.1:${port}` },
      {},
      'doctor',
      '--port',
      '0',
    );
    assert.equal(out.status, 1);
    assert.doesNotMatch(out.stdout, /hunter2secret/);
    const database = finding(out, 'database');
    assert.equal(database.status, 'problem');
    assert.match(database.detail, new RegExp(`^PostgreSQL at postgres://logexport:\\*{4}@127\\.0\\.0\\.1:${port}/logexport cannot be opened: `));
    assert.match(database.fix, /LOGEXPORT_DATABASE_URL/);
    const queue = finding(out, 'queue');
    assert.equal(queue.status, 'problem');
    assert.match(queue.detail, new RegExp(`^NATS at nats://127\\.0\\.0\\.1:${port} cannot be reached`));
    assert.match(queue.fix, /nats-server -js/);
    assert.equal(finding(out, 'zones and jobs').status, 'skipped');
  });

  it('finds NATS with JetStream when it answers', async (t) => {
    if (!(await serverAvailable('NATS', '127.0.0.1', 4222))) {
      t.skip('no NATS');
      return;
    }
    const out = cliWith({ LOGEXPORT_DATA_DIR: fresh(), LOGEXPORT_QUEUE_URL: 'nats://127.0.0.1:4222' }, {}, 'doctor', '--port', '0');
    assert.deepEqual(finding(out, 'queue'), { check: 'queue', status: 'ok', detail: 'NATS at nats://127.0.0.1:4222 answers, with JetStream' });
  });

  it('says a tailed file cannot be read and how to fix it, and that a missing one is waited for', () => {
    const dir = fresh();
    fs.chmodSync(dir, 0o755);
    const unreadable = path.join(dir, 'access.log');
    fs.writeFileSync(unreadable, '');
    fs.chmodSync(unreadable, 0o600);
    const missing = path.join(dir, 'not-yet.log');
    const data = fresh();
    fs.chmodSync(data, 0o777);
    // Root reads every file: run the command as nobody then (the file stays root's, mode 600).
    const asOther: SpawnSyncOptions = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    if (process.getuid?.() !== 0) fs.chmodSync(unreadable, 0o000);
    const out = cliWith({ LOGEXPORT_DATA_DIR: data, LOGEXPORT_TAIL: `native:${unreadable};caddy:${missing}`, HOME: data }, asOther, 'doctor', '--port', '0');
    assert.equal(out.status, 1, out.stderr);
    const bad = finding(out, `tailed file ${unreadable}`);
    assert.equal(bad.status, 'problem');
    assert.match(bad.detail, /cannot be read: EACCES/);
    assert.match(bad.fix, /adm group/);
    const waiting = finding(out, `tailed file ${missing}`);
    assert.equal(waiting.status, 'warning');
    assert.match(waiting.detail, /does not exist yet; logexport waits for it/);
  });

  it('says secrets are missing when the node listens beyond loopback, and is content once they are set', () => {
    const data = fresh();
    const open = cliWith({ LOGEXPORT_DATA_DIR: data }, {}, 'doctor', '--host', '0.0.0.0', '--port', '0');
    const found = finding(open, 'secrets');
    assert.equal(found.status, 'problem');
    assert.match(found.detail, /listens on 0\.0\.0\.0, which other hosts reach, without LOGEXPORT_SECRET .* and LOGEXPORT_METRICS_TOKEN/);
    assert.match(found.fix, /openssl rand -hex 32/);
    const closed = cliWith({ LOGEXPORT_DATA_DIR: data, LOGEXPORT_SECRET: 'a-secret-of-sixteen-or-more', LOGEXPORT_METRICS_TOKEN: 'a-metrics-token-of-16-or-more' }, {}, 'doctor', '--host', '0.0.0.0', '--port', '0');
    assert.equal(finding(closed, 'secrets').status, 'ok');
  });

  it('names a zone whose events are dropped for want of an enabled job, as sources counts them', async () => {
    const data = fresh();
    const settings = { LOGEXPORT_DATA_DIR: data };
    const key = cliWith(settings, {}, 'users', 'create', '--email', 'drops@example.com').json.api_key as string;
    const zone = cliWith(settings, {}, 'zones', 'create', '--email', 'drops@example.com', '--name', 'drops.example.com').json as { id: string };
    const served = await serveNode(data);
    const port = new URL(served.url).port;

    const running = cliWith(settings, {}, 'doctor', '--port', port);
    assert.match(finding(running, 'port').detail, /is taken by a running logexport node/);
    assert.equal(finding(running, 'port').status, 'ok');
    const early = finding(running, 'zone drops.example.com');
    assert.equal(early.status, 'warning', 'nothing dropped yet');
    assert.match(early.fix, new RegExp(`POST /client/v4/zones/${zone.id}/logexport/jobs`));

    const response = await fetch(`${served.url}/ingest/zones/${zone.id}/http_requests`, {
      method: 'POST',
      headers: { 'x-auth-email': 'drops@example.com', 'x-auth-key': key },
      body: ['a', 'b', 'c'].map((id) => JSON.stringify({ RayID: id, EdgeResponseStatus: 200 })).join('\n'),
    });
    const answer = (await response.json()) as { messages: { code: number; message: string }[] };
    assert.equal(answer.messages[0]?.code, 12100);
    // The node writes its figures at the stop (and every few seconds while running).
    assert.equal((await served.kill('SIGTERM')).code, 0);

    const sources = cliWith(settings, {}, 'sources');
    assert.equal(sources.status, 0, sources.stderr);
    assert.deepEqual(sources.json.sources, []);
    const [figures] = sources.json.ingest.zones;
    assert.equal(figures.zone_id, zone.id);
    assert.equal(figures.zone, 'drops.example.com');
    assert.equal(figures.enabled_jobs, 0);
    assert.deepEqual(figures.dropped, { no_job: 3 });
    assert.equal(figures.requests, 1);
    assert.deepEqual(figures.way_in.http.dropped, { no_job: 3 });
    assert.equal(figures.way_in.otlp.requests, 0);
    assert.match(figures.way_in.http.last_event_at, /^\d{4}-\d\d-\d\dT/);

    const after = cliWith(settings, {}, 'doctor', '--port', port);
    assert.equal(after.status, 1);
    const dropped = finding(after, 'zone drops.example.com');
    assert.equal(dropped.status, 'problem');
    assert.equal(dropped.detail, `no enabled job exports the events of drops.example.com (${zone.id}): they are checked and dropped — 3 so far on this node`);
  });
});
