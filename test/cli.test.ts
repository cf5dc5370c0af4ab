import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/logexport.mjs', import.meta.url));

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-cli-'));
const env = { ...process.env, LOGEXPORT_DATA_DIR: dataDir, LOGEXPORT_LOG_LEVEL: 'silent' };

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string; json: Record<string, string> | undefined } {
  const result = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  let json: Record<string, string> | undefined;
  try {
    json = JSON.parse(result.stdout) as Record<string, string>;
  } catch {
    json = undefined;
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, json };
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
