/**
 * Retained logs when scaled out: two nodes share PostgreSQL, NATS JetStream and an S3-compatible bucket
 * (s3rver). Node A turns retention on and ingests; node B, which ingested nothing, answers Logpull with
 * every one of those events, read from the segments in the bucket, and its Log Explorer counts them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import S3rver from 's3rver';
import { retentionBody } from '../support/retention-events.ts';
import { serverAvailable } from '../support/services.ts';
import { postgresUrl } from '../support/stores.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const ready = (await serverAvailable('PostgreSQL', '127.0.0.1', 5432)) && (await serverAvailable('NATS', '127.0.0.1', 4222));

describe('retention on two nodes sharing PostgreSQL, JetStream and an S3-compatible bucket', { skip: !ready }, () => {
  const suffix = randomBytes(4).toString('hex');
  const database = `logexport_retention_${suffix}`;
  const stream = `LOGEXPORT_RET_${suffix}`;
  const s3dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-retention-s3-'));
  let s3: S3rver;
  let a: TestApp;
  let b: TestApp;

  before(async () => {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3dir, configureBuckets: [{ name: 'retained' }] });
    const port = (await s3.run()).port;
    const env = {
      LOGEXPORT_DATABASE_URL: postgresUrl.replace(/\/[^/]*$/, `/${database}`),
      LOGEXPORT_QUEUE_URL: 'nats://127.0.0.1:4222',
      LOGEXPORT_NATS_STREAM: stream,
      LOGEXPORT_RETENTION_URL: `s3://retained/segments?region=us-east-1&endpoint=http://127.0.0.1:${port}&access-key-id=S3RVER&secret-access-key=S3RVER`,
      LOGEXPORT_RETENTION_FLUSH: '200ms',
    };
    a = await startTestApp(env);
    b = await startTestApp(env);
  });

  after(async () => {
    await a?.stop();
    await b?.stop();
    await s3?.close();
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    // A node's last pooled connections can take a moment to go after it stopped; ending them by force
    // would raise an error inside this process.
    for (let tries = 0; tries < 50; tries++) {
      const left = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database]);
      if ((left.rows[0] as { n: number }).n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await admin.query(`DROP DATABASE IF EXISTS ${database}`).catch((error: unknown) => console.log(`could not drop ${database}: ${String(error)}`));
    await admin.end();
    const nc = await connect({ servers: '127.0.0.1:4222' });
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
    await nc.close();
    fs.rmSync(s3dir, { recursive: true, force: true });
  });

  it('pulls from node B every event node A ingested, before and after they are compacted', async () => {
    const owner = await a.user();
    const zoneId = await a.zone(owner, `retained-${suffix}.example`);
    const flag = await a.call('POST', `/zones/${zoneId}/logs/control/retention/flag`, { body: { flag: true }, auth: owner });
    assert.equal(flag.status, 200, flag.text);
    const start = Math.floor(Date.now() / 1000) - 5;
    const total = 3000;
    for (let from = 0; from < total; from += 500) {
      const response = await fetch(`${a.app.url}/ingest/zones/${zoneId}/http_requests`, { method: 'POST', headers: { 'x-auth-email': owner.email, 'x-auth-key': owner.key }, body: retentionBody(from, from + 500) });
      assert.equal(response.status, 200, await response.text());
    }
    const end = Math.floor(Date.now() / 1000) + 5;
    const until = Date.now() + 30_000;
    let ids: string[] = [];
    while (Date.now() < until) {
      const answer = await b.call('GET', `/zones/${zoneId}/logs/received?start=${start}&end=${end}&fields=RayID`, { auth: owner });
      assert.equal(answer.status, 200, answer.text);
      ids = answer.text.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { RayID: string }).RayID);
      if (ids.length >= total) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(new Set(ids).size, total);
    assert.equal(ids.length, total, 'no event is retained twice');
    const rayid = await b.call('GET', `/zones/${zoneId}/logs/rayids/a0000010?fields=RayID,ClientIP`, { auth: owner });
    assert.equal(rayid.text, '{"RayID":"a0000010","ClientIP":"192.0.2.16"}\n');
    // Compacted into Parquet in the bucket, by either node: node B reads the same events, once.
    await a.app.retention.compactor.compactNow();
    await b.app.retention.compactor.compactNow();
    const keys = (await b.app.retention.segments.list(`${zoneId}/`)).map((e) => e.key);
    assert.ok(keys.some((k) => k.endsWith('.parquet')) && !keys.some((k) => k.endsWith('.ndjson.zst')), keys.join());
    const after = await b.call('GET', `/zones/${zoneId}/logs/received?start=${start}&end=${end}&fields=RayID`, { auth: owner });
    const again = after.text.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { RayID: string }).RayID);
    assert.deepEqual(again.sort(), [...ids].sort());
    // A segment read from the bucket is downloaded into the zone's own directory, the one its Log
    // Explorer sandbox may read; and node B's sandbox reads every event there.
    const opened = await b.app.retention.segments.open(keys.find((k) => k.endsWith('.parquet')) as string);
    assert.ok(opened.path.startsWith(b.app.retention.segments.zoneDirectory(zoneId)), opened.path);
    await opened.release();
    const dataset = await b.call('POST', `/zones/${zoneId}/logs/explorer/datasets`, { body: { dataset: 'http_requests' }, auth: owner });
    assert.equal(dataset.status, 200, dataset.text);
    const counted = await b.call('POST', `/zones/${zoneId}/logs/explorer/query/sql`, { raw: 'SELECT count(*) AS n FROM http_requests', auth: owner, headers: { 'content-type': 'text/plain' } });
    assert.deepEqual(counted.body.result, [{ n: total }], counted.text);
  });
});
