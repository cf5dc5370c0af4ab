/**
 * The walk-throughs, run as written: the README's quick start (user and zone from the command line, the
 * custom-fields ruleset, the ownership challenge — asked for twice, as a user trying again would — the job,
 * two events, the delivered file), and docs/sources.md's "From a fresh clone to a delivered file" with real
 * Caddy and real nginx configured from the document's own blocks. Each statement is read from the Markdown
 * and typed into one bash session; the test only starts the node (as `npm start` would), puts in the values
 * a user copies from an answer, and uses ports and paths of its own. Outputs the documents show are
 * compared with what the commands printed.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { binaryAvailable } from '../support/services.ts';
import { killAllServed, serveNode, type ServedNode } from '../support/served-node.ts';
import { caddyBinary, freePort, nginxBinary, njsModule, startOrigin } from '../sources/support/web-servers.ts';
import { portAnswers } from '../support/services.ts';
import { codeBlocks, shellStatements, ShellSession, type ShellStatement } from './support/walk-through.ts';
import { waitFor } from './support/data-plane.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = path.join(root, 'README.md');
const sourcesDoc = path.join(root, 'docs/sources.md');
const bin = path.join(root, 'bin/logexport.mjs');

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  killAllServed();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A directory to work in, as a user's checkout would be: `./data` is the node's data directory. */
function workDir(): { dir: string; data: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-walk-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return { dir, data: path.join(dir, 'data') };
}

/** A bash session in `dir` where `npx logexport …` runs this checkout's command line (nothing is fetched). */
function session(dir: string): ShellSession {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8' };
  const shell = new ShellSession(dir, env, `npx() { if [ "$1" = logexport ]; then shift; "${process.execPath}" "${bin}" "$@"; else echo "npx $1: not expected in the walk-through" >&2; return 127; fi; }`);
  cleanups.push(() => shell.close());
  return shell;
}

/** The statements of one code block. */
function statementsOf(file: string, heading: string, index: number): ShellStatement[] {
  const block = codeBlocks(file, heading)[index];
  assert.ok(block, `${path.basename(file)} "${heading}" has a code block ${index}`);
  return shellStatements(block.text);
}

/** The values a user copies from answers into later commands, and the node's address instead of 8787. */
class Copied {
  readonly values = new Map<string, string>();

  /** The node's address, where the documents say http://127.0.0.1:8787. */
  serving(url: string): void {
    this.values.set('http://127.0.0.1:8787', url);
  }

  fill(text: string): string {
    let filled = text;
    for (const [placeholder, value] of this.values) filled = filled.replaceAll(placeholder, value);
    // A placeholder in a trailing comment (`# → {"api_key":"<KEY>"}`) is what the command prints, not typed.
    const typed = filled.split('\n').map((line) => line.replace(/\s#\s.*$/, '')).join('\n');
    const left = /<(KEY|ZONE_ID|id from the answer)>/.exec(typed);
    assert.equal(left, null, `a value to copy is not known yet: ${left?.[0]}`);
    return filled;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers freely
function json(output: string): any {
  try {
    return JSON.parse(output);
  } catch {
    assert.fail(`not JSON: ${output}`);
  }
}

/** Runs a statement (values filled in) and asserts it succeeded. */
async function type(shell: ShellSession, copied: Copied, statement: ShellStatement): Promise<string> {
  const { output, status } = await shell.run(copied.fill(statement.text));
  assert.equal(status, 0, `${statement.text}\n→ ${output}\n${shell.stderr()}`);
  return output.trim();
}

/** The README's "Create a user and a zone" block: the user and zone from the command line, then BASE, ZONE_ID and AUTH. */
async function readmeSetup(shell: ShellSession, copied: Copied, only: 'all' | 'variables' = 'all'): Promise<void> {
  const [user, zone, exports, auth, ...rest] = statementsOf(readme, '## Custom log fields in three calls', 0);
  assert.ok(user && zone && exports && auth && rest.length === 0, 'the setup block: users create, zones create, export, AUTH');
  if (only === 'all') {
    assert.match(user.text, /^npx logexport users create/);
    const created = json(await type(shell, copied, user));
    assert.equal(created.email, 'you@example.com');
    assert.match(created.api_key, /^[0-9a-f]{37}$/);
    copied.values.set('<KEY>', created.api_key);
    assert.match(zone.text, /^npx logexport zones create/);
    const made = json(await type(shell, copied, zone));
    assert.deepEqual(Object.keys(made), ['id', 'name']);
    assert.equal(made.name, 'example.com');
    copied.values.set('<ZONE_ID>', made.id);
  }
  await type(shell, copied, exports);
  await type(shell, copied, auth);
}

/** The README's steps 1 to 4: the ruleset looked for, created, its rule put; the ownership challenge (asked for twice) and the job. */
async function readmeStepsOneToFour(shell: ShellSession, copied: Copied, data: string): Promise<void> {
  const heading = '## Custom log fields in three calls';
  const [look] = statementsOf(readme, heading, 1);
  const found = json(await type(shell, copied, look ?? assert.fail('step 1')));
  assert.equal(found.success, true);
  assert.deepEqual(found.result, [], 'no ruleset yet');
  const [create, note] = statementsOf(readme, heading, 2);
  const ruleset = json(await type(shell, copied, create ?? assert.fail('step 2')));
  assert.equal(ruleset.result.phase, 'http_log_custom_fields');
  copied.values.set('<id from the answer>', ruleset.result.id);
  await type(shell, copied, note ?? assert.fail('step 2: export RULESET_ID'));
  const [put] = statementsOf(readme, heading, 3);
  const updated = json(await type(shell, copied, put ?? assert.fail('step 3')));
  assert.equal(updated.result.version, '2', 'the answer the README describes');
  for (const key of ['id', 'version', 'ref', 'enabled', 'last_updated']) assert.ok(key in updated.result.rules[0], key);

  const step4 = statementsOf(readme, '## Export the logs: a job, events, files', 0);
  const challenge = step4[0];
  assert.match(challenge?.text ?? '', /\/logexport\/ownership"/, 'step 4 starts with the ownership challenge');
  // A user who asked for the challenge before: another challenge file lies beside the one step 4 gets.
  await type(shell, copied, challenge ?? assert.fail());
  let last = '';
  for (const statement of step4) {
    last = await type(shell, copied, statement);
    if (statement.text.startsWith('echo "$FILE"')) assert.match(last, /^example\.com\/ownership-challenge-[0-9a-f]{8}\.txt$/, 'the file the answer names');
  }
  assert.equal(fs.readdirSync(path.join(data, 'exports/example.com')).filter((name) => name.startsWith('ownership-challenge-')).length, 2);
  const created = json(last);
  assert.equal(created.success, true, JSON.stringify(created));
  assert.equal(created.result.enabled, true);
}

/** The JSON a document shows over several comment lines, with `…` standing for any value. */
function shownRecord(shown: readonly string[]): Record<string, unknown> {
  return json(shown.join('')) as Record<string, unknown>;
}

function assertLike(actual: Record<string, unknown>, shown: Record<string, unknown>): void {
  const expected = Object.fromEntries(Object.entries(shown).map(([key, value]) => [key, value === '…' ? actual[key] : value]));
  assert.deepEqual(actual, expected);
}

describe("the README's quick start, typed as written", () => {
  it('ends with the file the README shows, whatever challenges were asked for before', async () => {
    const { dir, data } = workDir();
    const node = await serveNode(data);
    const shell = session(dir);
    const copied = new Copied();
    copied.serving(node.url);
    await readmeSetup(shell, copied);
    await readmeStepsOneToFour(shell, copied, data);

    const [events] = statementsOf(readme, '## Export the logs: a job, events, files', 1);
    assert.ok(events);
    assert.equal(await type(shell, copied, events), events.shown.join(''), 'the answer the README shows');

    // Step 6 waits for the batch's 30 s; stopping the node delivers the open batch at once instead.
    assert.equal((await node.kill('SIGTERM')).code, 0);
    const [zcat] = statementsOf(readme, '## Export the logs: a job, events, files', 2);
    assert.ok(zcat);
    assert.deepEqual(json(await type(shell, copied, zcat)), shownRecord(zcat.shown), 'the record the README shows');
  });
});

/** Waits until the node has read `lines` lines of its tailed file. */
async function waitForTail(node: ServedNode, lines: number): Promise<void> {
  await waitFor(
    `${lines} tailed line(s) accepted`,
    async () => {
      const metrics = await (await fetch(`${node.url}/metrics`)).text();
      const accepted = [...metrics.matchAll(/^logexport_source_lines_accepted_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
      return accepted >= lines ? true : undefined;
    },
    30_000,
    100,
  );
}

const webServersAvailable = binaryAvailable('caddy', caddyBinary) && binaryAvailable('nginx', nginxBinary) && binaryAvailable('the njs module of nginx', njsModule);

describe("docs/sources.md's walk-through from a fresh clone to a delivered file", { skip: !webServersAvailable }, () => {
  const heading = '### From a fresh clone to a delivered file';

  /** Creates the user and zone as the document says, and starts the node tailing `log` (the document's `npm start` line). */
  async function start(shell: ShellSession, copied: Copied, data: string, tail: (documented: string) => string): Promise<ServedNode> {
    const [ci, user, zone, serve, ...rest] = statementsOf(sourcesDoc, heading, 0);
    assert.ok(ci && user && zone && serve && rest.length === 0);
    assert.equal(ci.text, 'npm ci', 'the checkout is installed already');
    copied.values.set('<KEY>', json(await type(shell, copied, user)).api_key);
    copied.values.set('<ZONE_ID>', json(await type(shell, copied, zone)).id);
    const m = /^LOGEXPORT_TAIL='([^']+)' npm start\s/.exec(serve.text);
    assert.ok(m?.[1], serve.text);
    const node = await serveNode(data, { LOGEXPORT_TAIL: tail(m[1]) });
    copied.serving(node.url);
    return node;
  }

  /** Sends the document's request through the web server at `port`, and reads the delivered record once the node stopped. */
  async function requestAndRecord(shell: ShellSession, copied: Copied, node: ServedNode, port: number): Promise<{ record: Record<string, unknown>; shown: Record<string, unknown> }> {
    const [curl] = statementsOf(sourcesDoc, heading, 1);
    assert.ok(curl !== undefined && curl.text.includes('http://127.0.0.1/'), 'the request goes to port 80');
    const answered = await type(shell, copied, { text: curl.text.replace('http://127.0.0.1/', `http://127.0.0.1:${port}/`), shown: curl.shown });
    assert.equal(answered, (curl.shown[0] ?? '').split(/\s/)[0], 'the status the document shows');
    await waitForTail(node, 1);
    // The batch waits for its 30 s; stopping the node delivers it at once instead.
    assert.equal((await node.kill('SIGTERM')).code, 0);
    const [zcat] = statementsOf(sourcesDoc, heading, 2);
    assert.ok(zcat);
    return { record: json(await type(shell, copied, zcat)) as Record<string, unknown>, shown: shownRecord(zcat.shown) };
  }

  it('delivers the request through Caddy, configured as the document shows, with the captured headers and cookies', async () => {
    const { dir, data } = workDir();
    const origin = await startOrigin();
    cleanups.push(() => origin.close());
    const log = path.join(dir, 'caddy', 'access.log');
    fs.mkdirSync(path.dirname(log), { recursive: true });
    const port = await freePort();
    const [caddyfile] = codeBlocks(sourcesDoc, '### Caddy');
    assert.equal(caddyfile?.lang, 'caddyfile');
    // The test's own: the log's path, the app behind Caddy, the port, and no admin endpoint.
    const config = caddyfile.text
      .replace('/var/log/caddy/access.log', log)
      .replace('127.0.0.1:8080', `127.0.0.1:${origin.port}`)
      .replace(/^\{\n/, `{\n\tadmin off\n\thttp_port ${port}\n`);
    assert.match(config, /^http:\/\/example\.com, http:\/\/www\.example\.com \{$/m);
    const caddyDir = path.join(dir, 'caddy');
    fs.writeFileSync(path.join(caddyDir, 'Caddyfile'), config);
    const caddy = spawn(caddyBinary, ['run', '--config', path.join(caddyDir, 'Caddyfile'), '--adapter', 'caddyfile'], {
      cwd: caddyDir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: caddyDir, XDG_CONFIG_HOME: path.join(caddyDir, 'config'), XDG_DATA_HOME: path.join(caddyDir, 'data') },
      stdio: 'ignore',
    });
    cleanups.push(() => {
      caddy.kill('SIGTERM');
    });
    await waitFor('Caddy to listen', async () => ((await portAnswers('127.0.0.1', port, 200)) ? true : undefined), 20_000, 100);

    const shell = session(dir);
    const copied = new Copied();
    const node = await start(shell, copied, data, (documented) => {
      assert.equal(documented, 'caddy:/var/log/caddy/access.log');
      return `caddy:${log}`;
    });
    // "In another shell, set BASE, ZONE_ID and AUTH" — the README's lines for them.
    await readmeSetup(shell, copied, 'variables');
    await readmeStepsOneToFour(shell, copied, data);
    const { record, shown } = await requestAndRecord(shell, copied, node, port);
    assertLike(record, shown);
  });

  it('delivers the request through nginx run with -p and -c, configured from the document’s blocks', async () => {
    const { dir, data } = workDir();
    const origin = await startOrigin();
    cleanups.push(() => origin.close());
    const prefix = path.join(dir, 'nginx');
    fs.mkdirSync(path.join(prefix, 'tmp'), { recursive: true });
    const log = path.join(prefix, 'logexport.log');
    const port = await freePort();
    const [httpBlock, serverBlock] = codeBlocks(sourcesDoc, '### nginx').filter((b) => b.lang === 'nginx');
    const loadModule = codeBlocks(sourcesDoc, '### nginx').filter((b) => b.lang === 'nginx').find((b) => b.text.startsWith('load_module'));
    assert.ok(httpBlock && serverBlock && loadModule, 'the http {} lines, the server {} line and the load_module line');
    const conf = `${loadModule.text}
daemon off;
master_process off;
error_log ${prefix}/error.log warn;
pid ${prefix}/nginx.pid;
events {}
http {
${httpBlock.text.replaceAll('<checkout>', root)}
    client_body_temp_path ${prefix}/tmp/body;
    proxy_temp_path ${prefix}/tmp/proxy;
    fastcgi_temp_path ${prefix}/tmp/fastcgi;
    uwsgi_temp_path ${prefix}/tmp/uwsgi;
    scgi_temp_path ${prefix}/tmp/scgi;
    access_log off;
    server {
        listen 127.0.0.1:${port};
        ${serverBlock.text.replace('/var/log/nginx/logexport.log', log)}
        location / {
            proxy_pass http://127.0.0.1:${origin.port};
            proxy_set_header Host $host;
        }
    }
}
`;
    fs.writeFileSync(path.join(prefix, 'nginx.conf'), conf);
    let stderr = '';
    const nginx = spawn(nginxBinary, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    nginx.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    cleanups.push(() => {
      nginx.kill('SIGTERM');
    });
    await waitFor('nginx to listen', async () => {
      if (nginx.exitCode !== null) assert.fail(`nginx exited: ${stderr}`);
      return (await portAnswers('127.0.0.1', port, 200)) ? true : undefined;
    }, 20_000, 100);

    const shell = session(dir);
    const copied = new Copied();
    // The document's line tails Caddy's log, "or native:/var/log/nginx/logexport.log".
    const node = await start(shell, copied, data, (documented) => {
      assert.match(documented, /^caddy:/);
      return `native:${log}`;
    });
    await readmeSetup(shell, copied, 'variables');
    await readmeStepsOneToFour(shell, copied, data);
    const { record, shown } = await requestAndRecord(shell, copied, node, port);
    // nginx sends its Server header after the log line is written: the document says ResponseHeaders is null then.
    assertLike(record, { ...shown, ResponseHeaders: null });
  });
});
