/**
 * The destination contract, run over every destination kind against real servers on loopback: the file
 * system (a temp dir), S3 (s3rver) and HTTP (node:http). Then each kind's failures, classified.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Dirent } from 'node:fs';
import fsPromises from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import S3rver from 's3rver';
import { createDestination } from '../../src/destinations/create-destination.ts';
import { DestinationError, type Destination, type OutgoingBatch, type SendOutcome } from '../../src/destinations/destination.ts';
import { createFileDestination, type FileOps } from '../../src/destinations/file.ts';
import { batchHeader } from '../../src/destinations/http.ts';
import { objectKey } from '../../src/destinations/object-key.ts';
import { parseDestinationConf } from '../../src/domain/jobs/destination-conf.ts';
import type { DestinationSpec } from '../../src/domain/jobs/destination-spec.ts';

const bucket = 'logexport-test';
const firstAppendMs = Date.UTC(2026, 4, 2, 10, 0, 0);
const day = '20260502';

function spec(conf: string): DestinationSpec {
  const result = parseDestinationConf(conf);
  if (!result.ok) assert.fail(`${conf}: ${JSON.stringify(result.error)}`);
  return result.value;
}

function batch(pathTemplate: string, lines: readonly string[], rangeId = '1-2'): OutgoingBatch {
  return {
    jobId: 3,
    objectKey: objectKey({ pathTemplate, jobId: 3, rangeId, firstAppendMs, lastAppendMs: firstAppendMs + 1500 }),
    body: gzipSync(Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8')),
    contentType: 'application/x-ndjson',
    records: lines.length,
  };
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server that accepts connections and never answers. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  const port = await listen(server);
  return {
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function walk(root: string, dir = root): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await fsPromises.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await walk(root, full)));
    else found.push(path.relative(root, full).split(path.sep).join('/'));
  }
  return found.sort();
}

interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly raw: Buffer;
}

/** What the contract suite needs to know about one destination kind. */
interface Harness {
  readonly kind: string;
  readonly objectStore: boolean;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A destination writing under `dir`. */
  destination(dir: string): Destination;
  /** Every object under `dir`, as keys relative to the destination root. */
  list(dir: string): Promise<string[]>;
  read(key: string): Promise<Buffer>;
  requests(): readonly RecordedRequest[];
}

function fileHarness(): Harness {
  let root = '';
  return {
    kind: 'file',
    objectStore: true,
    async setup() {
      root = await fsPromises.mkdtemp(path.join(os.tmpdir(), 'logexport-file-'));
    },
    async teardown() {
      await fsPromises.rm(root, { recursive: true, force: true });
    },
    destination: (dir) => createDestination(spec(`file:///${dir}/{DATE}`), { exportRoot: root, allowPrivate: false }),
    list: (dir) => walk(root, path.join(root, dir)),
    read: (key) => fsPromises.readFile(path.join(root, key)),
    requests: () => [],
  };
}

function s3Harness(): Harness {
  let directory = '';
  let server: S3rver | undefined;
  let port = 0;
  let reader: S3Client | undefined;
  const client = (): S3Client => reader ?? assert.fail('s3 harness not set up');
  return {
    kind: 's3',
    objectStore: true,
    async setup() {
      directory = await fsPromises.mkdtemp(path.join(os.tmpdir(), 'logexport-s3rver-'));
      server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
      port = (await server.run()).port;
      reader = new S3Client({
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${port}`,
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
    },
    async teardown() {
      reader?.destroy();
      await server?.close();
      await fsPromises.rm(directory, { recursive: true, force: true });
    },
    destination: (dir) =>
      createDestination(
        spec(`s3://${bucket}/${dir}/{DATE}?region=us-east-1&endpoint=http://127.0.0.1:${port}&access-key-id=S3RVER&secret-access-key=S3RVER`),
        { exportRoot: '/nonexistent', allowPrivate: true, timeoutMs: 5000 },
      ),
    async list(dir) {
      const answer = await client().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${dir}/` }));
      return (answer.Contents ?? []).map((o) => o.Key ?? '').sort();
    },
    async read(key) {
      const answer = await client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from((await answer.Body?.transformToByteArray()) ?? []);
    },
    requests: () => [],
  };
}

/** Also used by the HTTP fault cases: `respond` decides each answer. */
function httpHarness(): Harness & { port(): number; respond: (req: http.IncomingMessage, res: http.ServerResponse) => void } {
  const recorded: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      recorded.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks) });
      harness.respond(req, res);
    });
  });
  let port = 0;
  const harness = {
    kind: 'http',
    objectStore: false,
    respond: (_req: http.IncomingMessage, res: http.ServerResponse): void => {
      res.writeHead(200).end('ok');
    },
    port: () => port,
    async setup() {
      port = await listen(server);
    },
    async teardown() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    destination: (dir: string) =>
      createDestination(spec(`http://127.0.0.1:${port}/ingest/${dir}?source=test&header_Authorization=Bearer%20t0k&header_X-Team=blue`), {
        exportRoot: '/nonexistent',
        allowPrivate: true,
        timeoutMs: 5000,
      }),
    list: async () => [],
    read: async () => Buffer.alloc(0),
    requests: () => recorded,
  };
  return harness;
}

const harnesses: readonly Harness[] = [fileHarness(), s3Harness(), httpHarness()];

for (const harness of harnesses) {
  describe(`the ${harness.kind} destination keeps the destination contract`, () => {
    before(() => harness.setup());
    after(() => harness.teardown());
    let counter = 0;
    const fresh = (): string => `case-${++counter}`;

    it('delivers the exact bytes of a batch', async () => {
      const dir = fresh();
      const destination = harness.destination(dir);
      const sent = batch(`${dir}/{DATE}`, ['{"RayID":"a"}', '{"RayID":"b"}']);
      try {
        assert.deepEqual(await destination.send(sent), { kind: 'delivered' });
      } finally {
        await destination.close();
      }
      if (harness.objectStore) {
        assert.match(sent.objectKey, new RegExp(`^${dir}/${day}/${day}T100000Z_${day}T100001Z_[0-9a-f]{8}\\.log\\.gz$`));
        assert.deepEqual(await harness.list(dir), [sent.objectKey]);
        assert.deepEqual(await harness.read(sent.objectKey), Buffer.from(sent.body));
      } else {
        const request = harness.requests().at(-1);
        assert.ok(request);
        assert.equal(request.method, 'POST');
        assert.equal(request.url, `/ingest/${dir}?source=test`);
        assert.equal(request.headers['content-encoding'], 'gzip');
        assert.equal(request.headers['content-type'], 'application/x-ndjson');
        assert.equal(request.headers.authorization, 'Bearer t0k');
        assert.equal(request.headers['x-team'], 'blue');
        assert.equal(request.headers[batchHeader.toLowerCase()], sent.objectKey.split('/').at(-1));
        assert.deepEqual(request.raw, Buffer.from(sent.body));
        assert.equal(gunzipSync(request.raw).toString('utf8'), '{"RayID":"a"}\n{"RayID":"b"}\n');
      }
    });

    it('overwrites, rather than duplicates, a batch sent again under the same name', async () => {
      const dir = fresh();
      const destination = harness.destination(dir);
      const first = batch(`${dir}/{DATE}`, ['{"n":1}']);
      const again = { ...first, body: gzipSync(Buffer.from('{"n":2}\n')) };
      try {
        assert.equal((await destination.send(first)).kind, 'delivered');
        assert.equal((await destination.send(again)).kind, 'delivered');
      } finally {
        await destination.close();
      }
      if (harness.objectStore) {
        assert.deepEqual(await harness.list(dir), [first.objectKey]);
        assert.deepEqual(await harness.read(first.objectKey), Buffer.from(again.body));
      } else {
        const names = harness.requests().slice(-2).map((r) => r.headers[batchHeader.toLowerCase()]);
        assert.equal(names[0], names[1], 'both posts carry the same batch name, so a receiver can drop the repeat');
      }
    });

    it('validates by a test write that leaves nothing behind', async () => {
      const dir = fresh();
      const destination = harness.destination(dir);
      try {
        assert.deepEqual(await destination.validate(), { kind: 'delivered' });
      } finally {
        await destination.close();
      }
      if (harness.objectStore) {
        assert.deepEqual(await harness.list(dir), []);
      } else {
        const request = harness.requests().at(-1);
        assert.ok(request);
        assert.equal(request.headers['content-encoding'], 'gzip');
        assert.equal(gunzipSync(request.raw).toString('utf8'), '{"content":"tests"}');
      }
    });

    it('writes the ownership challenge where the filename it returns says', async () => {
      const dir = fresh();
      const destination = harness.destination(dir);
      try {
        if (harness.objectStore) {
          const { filename } = await destination.writeChallenge('ownership-challenge-0badcafe.txt', 'token-text');
          assert.equal(filename, `${dir}/ownership-challenge-0badcafe.txt`);
          assert.equal((await harness.read(filename)).toString('utf8'), 'token-text');
          assert.deepEqual(await harness.list(dir), [filename]);
        } else {
          await assert.rejects(destination.writeChallenge('ownership-challenge-0badcafe.txt', 'x'), DestinationError);
        }
      } finally {
        await destination.close();
      }
    });
  });
}

describe('the HTTP destination classifies failures', () => {
  const harness = httpHarness();
  before(() => harness.setup());
  after(() => harness.teardown());

  async function sendWith(respond: (res: http.ServerResponse) => void): Promise<SendOutcome> {
    harness.respond = (_req, res) => respond(res);
    const destination = harness.destination('faults');
    try {
      return await destination.send(batch('faults', ['{}']));
    } finally {
      await destination.close();
    }
  }

  it('retries a 500', async () => {
    const outcome = await sendWith((res) => res.writeHead(500).end('database down'));
    assert.equal(outcome.kind, 'retry');
    assert.match(outcome.kind === 'retry' ? outcome.reason : '', /answered 500 Internal Server Error: database down/);
  });

  it('retries a 429 after the Retry-After seconds', async () => {
    const outcome = await sendWith((res) => res.writeHead(429, { 'Retry-After': '7' }).end());
    assert.deepEqual(outcome.kind === 'retry' ? outcome.afterMs : undefined, 7000);
  });

  it('retries a 503 after a Retry-After date', async () => {
    const at = new Date(Date.now() + 60_000).toUTCString();
    const outcome = await sendWith((res) => res.writeHead(503, { 'Retry-After': at }).end());
    assert.equal(outcome.kind, 'retry');
    const afterMs = outcome.kind === 'retry' ? (outcome.afterMs ?? 0) : 0;
    assert.ok(afterMs > 50_000 && afterMs <= 60_000, String(afterMs));
  });

  it('retries a 408', async () => {
    assert.equal((await sendWith((res) => res.writeHead(408).end())).kind, 'retry');
  });

  it('gives up on a 403 with a reason a user understands', async () => {
    const outcome = await sendWith((res) => res.writeHead(403).end('bad token'));
    assert.equal(outcome.kind, 'permanent');
    assert.match(outcome.kind === 'permanent' ? outcome.reason : '', /answered 403 Forbidden: bad token: the credentials \(header_\* parameters\) were refused/);
  });

  it('does not follow a redirect', async () => {
    const outcome = await sendWith((res) => res.writeHead(302, { Location: 'http://169.254.169.254/' }).end());
    assert.equal(outcome.kind, 'permanent');
    assert.match(outcome.kind === 'permanent' ? outcome.reason : '', /redirects are not followed/);
  });

  it("does not repeat a redirect's Location or body to whoever set the destination", async () => {
    const outcome = await sendWith((res) => res.writeHead(301, { Location: 'http://10.1.2.3:8500/v1/kv/secret' }).end('Moved to http://10.1.2.3:8500/v1/kv/secret'));
    const reason = outcome.kind === 'permanent' ? outcome.reason : '';
    assert.match(reason, /answered 301 \(a redirect\)/);
    assert.doesNotMatch(reason, /10\.1\.2\.3|kv\/secret/);
  });

  it('retries a destination that never answers, after the timeout', async () => {
    const silent = await silentServer();
    const destination = createDestination(spec(`http://127.0.0.1:${silent.port}/`), { exportRoot: '/x', allowPrivate: true, timeoutMs: 200 });
    try {
      const started = Date.now();
      const outcome = await destination.send(batch('x', ['{}']));
      assert.deepEqual(outcome, { kind: 'retry', reason: 'the HTTP destination did not answer within 200 ms' });
      assert.ok(Date.now() - started < 2000);
    } finally {
      await destination.close();
      await silent.close();
    }
  });

  it('retries a refused connection', async () => {
    const destination = createDestination(spec(`http://127.0.0.1:${await closedPort()}/`), { exportRoot: '/x', allowPrivate: true, timeoutMs: 2000 });
    try {
      assert.deepEqual(await destination.send(batch('x', ['{}'])), { kind: 'retry', reason: 'the HTTP destination refused the connection' });
    } finally {
      await destination.close();
    }
  });

  it('refuses a private address unless private destinations are allowed, by literal and by name', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const before = harness.requests().length;
      const destination = createDestination(spec(`http://${host}:${harness.port()}/`), { exportRoot: '/x', allowPrivate: false, timeoutMs: 2000 });
      try {
        const outcome = await destination.send(batch('x', ['{}']));
        assert.equal(outcome.kind, 'permanent');
        assert.match(outcome.kind === 'permanent' ? outcome.reason : '', /LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS=true/);
        assert.equal(harness.requests().length, before, 'nothing reached the server');
      } finally {
        await destination.close();
      }
    }
  });
});

describe('the S3 destination classifies failures', () => {
  let directory = '';
  let server: S3rver | undefined;
  let port = 0;
  before(async () => {
    directory = await fsPromises.mkdtemp(path.join(os.tmpdir(), 'logexport-s3rver-'));
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
    port = (await server.run()).port;
  });
  after(async () => {
    await server?.close();
    await fsPromises.rm(directory, { recursive: true, force: true });
  });

  async function sendTo(conf: string, options: { allowPrivate?: boolean; timeoutMs?: number } = {}): Promise<SendOutcome> {
    const destination = createDestination(spec(conf), { exportRoot: '/x', allowPrivate: options.allowPrivate ?? true, timeoutMs: options.timeoutMs ?? 5000 });
    try {
      return await destination.send(batch('logs', ['{}']));
    } finally {
      await destination.close();
    }
  }

  it('stores a batch as an application/gzip object, not as content to decode', async () => {
    const sent = batch('typed', ['{}']);
    const destination = createDestination(
      spec(`s3://${bucket}/typed?region=us-east-1&endpoint=http://127.0.0.1:${port}&access-key-id=S3RVER&secret-access-key=S3RVER`),
      { exportRoot: '/x', allowPrivate: true },
    );
    const reader = new S3Client({ region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    try {
      assert.equal((await destination.send(sent)).kind, 'delivered');
      const object = await reader.send(new GetObjectCommand({ Bucket: bucket, Key: sent.objectKey }));
      assert.equal(object.ContentType, 'application/gzip');
      assert.equal(object.ContentEncoding, undefined);
      await object.Body?.transformToByteArray();
    } finally {
      reader.destroy();
      await destination.close();
    }
  });

  it('gives up on a missing bucket (NoSuchBucket)', async () => {
    const outcome = await sendTo(`s3://no-such-bucket/logs?region=us-east-1&endpoint=http://127.0.0.1:${port}&access-key-id=S3RVER&secret-access-key=S3RVER`);
    assert.deepEqual(outcome, { kind: 'permanent', reason: 'bucket no-such-bucket does not exist (NoSuchBucket)' });
  });

  it('gives up on credentials the service does not know', async () => {
    const outcome = await sendTo(`s3://${bucket}/logs?region=us-east-1&endpoint=http://127.0.0.1:${port}&access-key-id=WRONG&secret-access-key=WRONG`);
    assert.equal(outcome.kind, 'permanent');
    assert.match(outcome.kind === 'permanent' ? outcome.reason : '', /InvalidAccessKeyId/);
  });

  it('gives up on challenge writes it cannot make, with the reason', async () => {
    const destination = createDestination(
      spec(`s3://no-such-bucket/logs?region=us-east-1&endpoint=http://127.0.0.1:${port}&access-key-id=S3RVER&secret-access-key=S3RVER`),
      { exportRoot: '/x', allowPrivate: true, timeoutMs: 5000 },
    );
    try {
      await assert.rejects(destination.writeChallenge('ownership-challenge-00000000.txt', 't'), (error: unknown) => {
        assert.ok(error instanceof DestinationError);
        assert.equal(error.outcome.kind, 'permanent');
        assert.match(error.message, /NoSuchBucket/);
        return true;
      });
      assert.equal((await destination.validate()).kind, 'permanent');
    } finally {
      await destination.close();
    }
  });

  it('retries a refused connection', async () => {
    const outcome = await sendTo(`s3://${bucket}/logs?region=us-east-1&endpoint=http://127.0.0.1:${await closedPort()}&access-key-id=S3RVER&secret-access-key=S3RVER`);
    assert.deepEqual(outcome, { kind: 'retry', reason: 'the storage service refused the connection' });
  });

  it('retries an endpoint that never answers, after the timeout', async () => {
    const silent = await silentServer();
    try {
      const outcome = await sendTo(
        `s3://${bucket}/logs?region=us-east-1&endpoint=http://127.0.0.1:${silent.port}&access-key-id=S3RVER&secret-access-key=S3RVER`,
        { timeoutMs: 300 },
      );
      assert.deepEqual(outcome, { kind: 'retry', reason: 'the storage service did not answer within 300 ms' });
    } finally {
      await silent.close();
    }
  });

  it('refuses a private endpoint unless private destinations are allowed, by literal and by name', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const outcome = await sendTo(`s3://${bucket}/logs?region=us-east-1&endpoint=http://${host}:${port}&access-key-id=S3RVER&secret-access-key=S3RVER`, {
        allowPrivate: false,
      });
      assert.equal(outcome.kind, 'permanent', `${host}: ${JSON.stringify(outcome)}`);
      assert.match(outcome.kind === 'permanent' ? outcome.reason : '', /loopback address/);
    }
  });
});

describe('the file destination classifies failures', () => {
  let root = '';
  before(async () => {
    root = await fsPromises.mkdtemp(path.join(os.tmpdir(), 'logexport-file-faults-'));
  });
  after(async () => {
    await fsPromises.rm(root, { recursive: true, force: true });
  });

  const failing = (operation: keyof FileOps, code: string): FileOps => ({
    ...fsPromises,
    [operation]: async () => {
      throw Object.assign(new Error(`${code}: simulated`), { code });
    },
  });

  it('gives up on an export root it may not write to', async () => {
    const destination = createFileDestination({ kind: 'file', path: 'acme' }, { exportRoot: path.join(root, 'locked'), fs: failing('mkdir', 'EACCES') });
    assert.deepEqual(await destination.send(batch('acme', ['{}'])), { kind: 'permanent', reason: 'permission denied writing the export root under the export root' });
  });

  it('gives up on a read-only directory', { skip: process.getuid?.() === 0 ? 'root ignores directory permissions' : false }, async () => {
    const locked = path.join(root, 'readonly');
    await fsPromises.mkdir(locked, { mode: 0o555 });
    const destination = createDestination(spec('file:///acme'), { exportRoot: locked, allowPrivate: false });
    assert.equal((await destination.send(batch('acme', ['{}']))).kind, 'permanent');
  });

  it('retries when the disk is full (ENOSPC), leaving no temporary file', async () => {
    const exportRoot = path.join(root, 'full');
    const fs: FileOps = {
      ...fsPromises,
      open: (async (file: string, flags?: string | number, mode?: number) => {
        const handle = await fsPromises.open(file, flags, mode);
        if (flags !== 'wx') return handle;
        return Object.assign(Object.create(handle) as object, {
          writeFile: async () => {
            throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
          },
          close: () => handle.close(),
          sync: () => handle.sync(),
        });
      }) as FileOps['open'],
    };
    const destination = createFileDestination({ kind: 'file', path: 'acme' }, { exportRoot, fs });
    const outcome = await destination.send(batch('acme', ['{}']));
    assert.equal(outcome.kind, 'retry');
    assert.match(outcome.kind === 'retry' ? outcome.reason : '', /no space left/);
    assert.deepEqual(await walk(exportRoot), []);
  });

  it('retries an I/O error (EIO)', async () => {
    const destination = createFileDestination({ kind: 'file', path: 'acme' }, { exportRoot: path.join(root, 'eio'), fs: failing('rename', 'EIO') });
    assert.equal((await destination.send(batch('acme', ['{}']))).kind, 'retry');
  });

  it('gives up when a file stands where a directory is needed', async () => {
    const exportRoot = path.join(root, 'blocked');
    await fsPromises.mkdir(exportRoot);
    await fsPromises.writeFile(path.join(exportRoot, 'acme'), 'not a directory');
    const destination = createDestination(spec('file:///acme/logs'), { exportRoot, allowPrivate: false });
    assert.equal((await destination.send(batch('acme/logs', ['{}']))).kind, 'permanent');
  });

  it('refuses to follow a symbolic link out of the export root', async () => {
    const exportRoot = path.join(root, 'linked');
    const outside = path.join(root, 'outside');
    await fsPromises.mkdir(exportRoot);
    await fsPromises.mkdir(outside);
    await fsPromises.symlink(outside, path.join(exportRoot, 'acme'));
    const destination = createDestination(spec('file:///acme/logs'), { exportRoot, allowPrivate: false });
    const outcome = await destination.send(batch('acme/logs', ['{}']));
    assert.equal(outcome.kind, 'permanent');
    assert.match(outcome.kind === 'permanent' ? outcome.reason : '', /leads outside the export root/);
    assert.deepEqual(await walk(outside), []);
  });

  it('follows a symbolic link that stays inside the export root', async () => {
    const exportRoot = path.join(root, 'inner-link');
    await fsPromises.mkdir(path.join(exportRoot, 'real'), { recursive: true });
    await fsPromises.symlink(path.join(exportRoot, 'real'), path.join(exportRoot, 'acme'));
    const destination = createDestination(spec('file:///acme'), { exportRoot, allowPrivate: false });
    const sent = batch('acme', ['{}']);
    assert.equal((await destination.send(sent)).kind, 'delivered');
    assert.deepEqual(await walk(path.join(exportRoot, 'real')), [sent.objectKey.slice('acme/'.length)]);
  });

  it('refuses an object name that is not a plain relative path', async () => {
    const destination = createDestination(spec('file:///acme'), { exportRoot: path.join(root, 'names'), allowPrivate: false });
    const outcome = await destination.send({ ...batch('acme', ['{}']), objectKey: '../escape.log.gz' });
    assert.equal(outcome.kind, 'permanent');
  });
});
