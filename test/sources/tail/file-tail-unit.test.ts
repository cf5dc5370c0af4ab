/**
 * The tail against a sink of its own: a batch the JetStream queue noted as unfinished (the process died
 * while publishing it) is read again exactly — the same byte range, so the same batch id and message ids —
 * before the tail reads on, however much the file grew meanwhile; and while the queue is over its limit the
 * tail reads nothing, then goes on.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventDecoders } from '../../../src/ingest/event-decoders.ts';
import { PlanCache } from '../../../src/ingest/ingest-task.ts';
import { runSourceTask } from '../../../src/ingest/source-task.ts';
import { FileTail, fileIdOf } from '../../../src/sources/tail/file-tail.ts';
import { tailDecoder, tailDecoderName, type TailAccount, type TailSink } from '../../../src/sources/tail/tail-task.ts';
import { emptyTailState } from '../../../src/sources/tail/tail-status.ts';
import { waitFor } from '../../e2e/support/data-plane.ts';
import { nativeLine } from '../support/tail-node.ts';

const silent = { info: () => {}, warn: () => {}, error: () => {} };
const zoneId = 'a'.repeat(32);
/** A job keeping every event, written as uncompressed NDJSON of RayIDs. */
const job = {
  id: 1,
  dataset: 'http_requests',
  kind: '',
  enabled: true,
  name: 'all',
  destinationConf: 'file:///x',
  filter: null,
  outputOptions: JSON.stringify({ field_names: ['RayID'] }),
  logpullOptions: null,
  frequency: null,
  maxUploadBytes: null,
  maxUploadRecords: null,
  maxUploadIntervalSeconds: null,
};

/** A sink that prepares inline and records each batch's id and RayIDs. */
function recordingSink(batches: { batchId: string; rayIds: string[] }[]): TailSink {
    const plans = new PlanCache();
    const decoders = new EventDecoders().register(tailDecoder());
    const plan = { rules: [], jobs: [job], settings: { filterLimits: { maxOperators: 30, maxBytes: 1000 }, gzipLevel: 1 }, retain: false };
    const sink: TailSink = {
      prepareTail: async ({ bytes, ...options }) => {
        const task = { decoder: tailDecoderName, options, dataset: 'http_requests', bytes, encoding: 'identity' as const, limitBytes: bytes.byteLength, dedupe: false };
        const result = runSourceTask({ ...task, plans: { [zoneId]: { planKey: 'p', plan } } }, plans, decoders);
        assert.equal(result.kind, 'done');
        if (result.kind !== 'done') throw new Error('unreachable');
        return { zones: result.zones, account: result.account as TailAccount };
      },
      appendFromTail: async (prepared, _checkpoint, batchId) => {
        const text = prepared.zones.flatMap((a) => a.chunks.map((c) => Buffer.from(c.payload).toString('latin1'))).join('');
        batches.push({ batchId, rayIds: [...text.matchAll(/"RayID":"([a-z]-\d+)"/g)].map((m) => m[1] ?? '') });
      },
      countUnrouted: () => {},
    };
    return sink;
}

describe('the tail', () => {
  it('reads an unfinished batch again exactly before it reads on', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-unfinished-'));
    const file = path.join(dir, 'access.log');
    const lines = Array.from({ length: 10 }, (_, i) => `${nativeLine(`u-${i}`, 'example.com')}\n`);
    fs.writeFileSync(file, lines.join(''));
    const fileId = fileIdOf(fs.statSync(file));
    const start = Buffer.byteLength(lines.slice(0, 2).join(''));
    const end = Buffer.byteLength(lines.slice(0, 5).join(''));
    const batches: { batchId: string; rayIds: string[] }[] = [];
    const sink = recordingSink(batches);
    const tail = new FileTail({
      spec: { format: 'native', path: file },
      sink,
      zones: { entries: () => [['example.com', zoneId]] },
      pendingBytes: () => 0,
      maxPendingBytes: 1,
      log: silent,
      state: { ...emptyTailState, fileId, offset: start, linesRead: 2, linesAccepted: 2 },
      unfinished: `${fileId}:${start}-${end}`,
      options: { pollMs: 20 },
    });
    tail.start();
    try {
      await waitFor('two batches', () => (batches.length >= 2 ? true : undefined), 5000);
    } finally {
      await tail.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(batches[0], { batchId: `${fileId}:${start}-${end}`, rayIds: ['u-2', 'u-3', 'u-4'] });
    assert.deepEqual(batches[1]?.rayIds, ['u-5', 'u-6', 'u-7', 'u-8', 'u-9']);
    assert.equal(tail.status().linesRead, 10);
  });
});

describe('back-pressure', () => {
  it('reads nothing while the queue is over its limit, then goes on', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-pressure-'));
    const file = path.join(dir, 'access.log');
    fs.writeFileSync(file, `${nativeLine('p-1', 'example.com')}\n`);
    const batches: { batchId: string; rayIds: string[] }[] = [];
    let pending = 10;
    const tail = new FileTail({
      spec: { format: 'native', path: file },
      sink: recordingSink(batches),
      zones: { entries: () => [['example.com', zoneId]] },
      pendingBytes: () => pending,
      maxPendingBytes: 5,
      log: silent,
      state: emptyTailState,
      options: { pollMs: 20 },
    });
    tail.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(tail.status().paused, true);
      assert.deepEqual(batches.flatMap((b) => b.rayIds), []);
      pending = 0;
      await waitFor('the line', () => (batches.some((b) => b.rayIds.includes('p-1')) ? true : undefined), 5000);
      assert.equal(tail.status().paused, false);
    } finally {
      await tail.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
