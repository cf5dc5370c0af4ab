/**
 * The file tail on the JetStream queue: lines are delivered, the position is kept in the node's
 * source-checkpoints.db, and a restart resumes there without delivering a line twice.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { openJetStreamQueue } from '../../../src/queue/jetstream/jetstream-queue.ts';
import { serverAvailable } from '../../support/services.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import { readRecords, waitFor } from '../../e2e/support/data-plane.ts';
import { nativeLine, prepareTailNode } from '../support/tail-node.ts';

const natsUrl = 'nats://127.0.0.1:4222';
const ready = await serverAvailable('NATS', '127.0.0.1', 4222);
const stream = `LOGEXPORT_TAIL_${randomBytes(6).toString('hex').toUpperCase()}`;
const running = new Set<TestApp>();

after(async () => {
  for (const t of running) await t.app.stop().catch(() => undefined);
  if (!ready) return;
  const nc = await connect({ servers: [natsUrl] });
  await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
  await nc.close();
});

describe('the file tail on JetStream', { skip: !ready }, () => {
  it('delivers every line once across a restart, its position kept beside the data', async () => {
    const node = await prepareTailNode(['nats-tail.example'], [{ zone: 'nats-tail.example', dir: 'nats', fields: ['RayID'], maxRecords: 1000 }], (dataDir) =>
      openJetStreamQueue({
        servers: [natsUrl],
        nodeId: 'prepare',
        replayWindowMs: 600_000,
        streamName: stream,
        subjectPrefix: `logexport.stream.${stream.toLowerCase()}`,
        sourceCheckpointsPath: path.join(dataDir, 'source-checkpoints.db'),
      }),
    );
    const file = path.join(node.dataDir, 'access.log');
    fs.writeFileSync(file, Array.from({ length: 50 }, (_, i) => `${nativeLine(`j-${i}`, 'nats-tail.example')}\n`).join(''));
    const env = { LOGEXPORT_DATA_DIR: node.dataDir, LOGEXPORT_TAIL: `native:${file}`, LOGEXPORT_QUEUE_URL: natsUrl, LOGEXPORT_NATS_STREAM: stream, LOGEXPORT_WORKERS: '0' };
    const delivered = (): string[] => readRecords(node.exportRoot, 'nats').map((r) => String(r.RayID));
    let t = await startTestApp(env, { configPollMs: 100 });
    running.add(t);
    await waitFor('50 records', () => (delivered().length >= 50 ? true : undefined), 20_000, 100);
    await t.app.stop();
    running.delete(t);
    assert.ok(fs.existsSync(path.join(node.dataDir, 'source-checkpoints.db')));

    fs.appendFileSync(file, Array.from({ length: 20 }, (_, i) => `${nativeLine(`j-${50 + i}`, 'nats-tail.example')}\n`).join(''));
    t = await startTestApp(env, { configPollMs: 100 });
    running.add(t);
    await waitFor('70 records', () => (delivered().length >= 70 ? true : undefined), 20_000, 100);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const ids = delivered();
    assert.equal(new Set(ids).size, 70);
    assert.equal(ids.length, 70);
    await t.app.stop();
    running.delete(t);
    fs.rmSync(node.dataDir, { recursive: true, force: true });
  });
});
