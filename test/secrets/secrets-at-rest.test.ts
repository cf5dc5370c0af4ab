import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { startApp } from '../../src/app.ts';
import { toConfig } from '../../src/config/config.ts';
import { SecretBox } from '../../src/secrets/secret-box.ts';
import { WrongSecretError } from '../../src/secrets/open-secrets.ts';
import { openStore } from '../../src/store/open-store.ts';
import { serverAvailable } from '../support/services.ts';
import { postgresUrl } from '../support/stores.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const knownSecret = `K${randomBytes(12).toString('hex')}`;
const knownHeader = `H${randomBytes(12).toString('hex')}`;
const nodeSecret = 'node secret number one, long enough';

interface Receiver {
  readonly url: string;
  readonly requests: { headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const requests: { headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests.push({ headers: request.headers });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Creates an HTTP job whose destination carries both secrets; answers its id and the full conf. */
async function createSecretJob(t: TestApp, receiver: Receiver): Promise<{ zone: string; id: number; conf: string }> {
  const user = await t.user();
  const zone = await t.zone(user);
  const conf = `${receiver.url}/in?tag=plain&header_Authorization=Bearer%20${knownHeader}&header_X-Api-Key=${knownSecret}`;
  const res = await t.call('POST', `/zones/${zone}/logpush/jobs`, {
    body: { destination_conf: conf, output_options: { field_names: ['RayID'] }, enabled: true },
  });
  assert.equal(res.status, 200, res.text);
  assert.doesNotMatch(res.text, new RegExp(`${knownSecret}|${knownHeader}`));
  return { zone, id: res.body.result.id as number, conf };
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

// Asked before any suite is declared: once the SQLite suite runs, its synchronous work could hold the
// event loop past the probe's timeout.
const postgresReady = await serverAvailable('PostgreSQL', '127.0.0.1', 5432);

describe('secrets at rest on SQLite', () => {
  let t: TestApp;
  let receiver: Receiver;
  let job: { zone: string; id: number; conf: string };

  before(async () => {
    receiver = await startReceiver();
    t = await startTestApp({ LOGEXPORT_SECRET: nodeSecret, LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS: 'true' });
    job = await createSecretJob(t, receiver);
  });
  after(async () => {
    await receiver.close();
  });

  it('still delivers with the secret header, and the API still masks it', async () => {
    const ingested = await t.call('POST', `${t.app.url}/ingest/zones/${job.zone}/http_requests`, { raw: '{"RayID":"r1","EdgeStartTimestamp":1790000000000000000}\n' });
    assert.equal(ingested.status, 200, ingested.text);
    const read = await t.call('GET', `/zones/${job.zone}/logpush/jobs/${job.id}`);
    assert.match(read.body.result.destination_conf, /header_X-Api-Key=REDACTED/);
    assert.equal((await t.app.store.getJob(job.zone, job.id))?.destinationConf, job.conf);
    // Stopping drains the open batch to the destination.
    await t.app.stop();
    const delivered = receiver.requests.filter((r) => r.headers['x-api-key'] === knownSecret);
    assert.ok(delivered.length >= 2, 'the test upload and the batch both carry the header');
    assert.equal(delivered.at(-1)?.headers.authorization, `Bearer ${knownHeader}`);
  });

  it('keeps the secret parts encrypted in the database file, the rest readable', async () => {
    const files = filesUnder(t.dataDir).filter((f) => /logexport\.db/.test(f));
    assert.ok(files.length > 0);
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      assert.equal(bytes.includes(knownSecret), false, `${file} holds the secret`);
      assert.equal(bytes.includes(knownHeader), false, `${file} holds the header value`);
    }
    const raw = await openStore(t.config.database);
    try {
      const [stored] = await raw.listAllJobs();
      assert.match(stored?.destinationConf ?? '', /\?tag=plain&header_Authorization=enc1\.[A-Za-z0-9_-]+&header_X-Api-Key=enc1\./);
    } finally {
      await raw.close();
    }
  });

  it('refuses to start with another secret, in one line', async () => {
    const config = toConfig({ ...envOf(t), LOGEXPORT_SECRET: 'some other secret entirely' });
    await assert.rejects(startApp(config), (error: unknown) => error instanceof WrongSecretError && !error.message.includes('\n'));
  });

  it('refuses to start without LOGEXPORT_SECRET, in one line, and generates no secret into the store', async () => {
    await assert.rejects(startApp(toConfig(envOf(t))), (error: unknown) => error instanceof WrongSecretError && /is not set/.test(error.message) && !error.message.includes('\n'));
    const raw = await openStore(t.config.database);
    try {
      assert.equal(await raw.getSetting('secret'), undefined);
    } finally {
      await raw.close();
    }
  });

  it('re-encrypts under a new secret with `logexport secrets rotate`, after which only the new one starts', () => {
    const bin = new URL('../../bin/logexport.mjs', import.meta.url).pathname;
    const env = { ...process.env, ...envOf(t), LOGEXPORT_SECRET: nodeSecret, LOGEXPORT_NEW_SECRET: 'the second node secret, also long' };
    const out = spawnSync(process.execPath, [bin, 'secrets', 'rotate'], { env, encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    assert.equal((JSON.parse(out.stdout) as { rotated_jobs: number }).rotated_jobs, 1);
    const again = spawnSync(process.execPath, [bin, 'users', 'create', '--email', 'after-rotate@example.com'], { env, encoding: 'utf8' });
    assert.equal(again.status, 0, again.stderr);
  });

  it('starts with the new secret and reads the job as it was', async () => {
    const app = await startApp(toConfig({ ...envOf(t), LOGEXPORT_SECRET: 'the second node secret, also long' }));
    try {
      assert.equal((await app.store.getJob(job.zone, job.id))?.destinationConf, job.conf);
    } finally {
      await app.stop();
    }
    await assert.rejects(startApp(toConfig({ ...envOf(t), LOGEXPORT_SECRET: nodeSecret })), WrongSecretError);
    fs.rmSync(t.dataDir, { recursive: true, force: true });
  });
});

function envOf(t: TestApp) {
  return { LOGEXPORT_PORT: '0', LOGEXPORT_DATA_DIR: t.dataDir, LOGEXPORT_LOG_LEVEL: 'silent' as const, LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS: 'true' };
}

describe('the secret box', () => {
  it('seals to a different URL-safe text each time and opens only under the same secret', () => {
    const box = new SecretBox(nodeSecret);
    const a = box.seal('value');
    assert.notEqual(a, box.seal('value'));
    assert.match(a, /^enc1\.[A-Za-z0-9_-]+$/);
    assert.equal(box.open(a), 'value');
    assert.throws(() => new SecretBox('another secret of some length').open(a));
    assert.throws(() => box.open(`${a.slice(0, -2)}AA`));
    assert.equal(box.open('plain'), 'plain');
  });
});

describe('secrets at rest on PostgreSQL', { skip: !postgresReady }, () => {
  const database = `logexport_secrets_${randomBytes(4).toString('hex')}`;
  const url = postgresUrl.replace(/\/[^/]*$/, `/${database}`);
  let receiver: Receiver;

  before(async () => {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('leaves no trace of the secret in a dump of the database', async () => {
    const t = await startTestApp({ LOGEXPORT_DATABASE_URL: url, LOGEXPORT_SECRET: nodeSecret, LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS: 'true' });
    try {
      await createSecretJob(t, receiver);
    } finally {
      await t.stop();
    }
    const dump = spawnSync('pg_dump', ['--data-only', '--inserts', url], { encoding: 'utf8' });
    let text: string;
    if (dump.status === 0) {
      text = dump.stdout;
      assert.match(text, /header_X-Api-Key=enc1\./, 'the dump holds the job, sealed');
    } else {
      // No usable pg_dump (missing, or older than the server): read every text column instead.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const columns = await client.query<{ table_name: string; column_name: string }>(
          "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'text'",
        );
        const values: string[] = [];
        for (const c of columns.rows) {
          const rows = await client.query(`SELECT "${c.column_name}" AS v FROM "${c.table_name}"`);
          for (const row of rows.rows as { v: string | null }[]) if (row.v !== null) values.push(row.v);
        }
        text = values.join('\n');
      } finally {
        await client.end();
      }
      assert.match(text, /header_X-Api-Key=enc1\./);
    }
    assert.equal(text.includes(knownSecret), false);
    assert.equal(text.includes(knownHeader), false);
  });
});
