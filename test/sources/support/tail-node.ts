/**
 * A data directory for the source tests: a user, zones by name, and jobs writing to `file://` directories
 * under the export root with batch limits below the API's minimums (so batches close at once), each job's
 * queue consumer in place before the node first starts (as the API would do when creating it).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUser, createZone } from '../../../src/accounts/accounts.ts';
import { systemClock } from '../../../src/core/clock.ts';
import { consumerNameOf, streamOf } from '../../../src/delivery/job-runner.ts';
import { openEmbeddedQueue } from '../../../src/queue/embedded/embedded-queue.ts';
import type { EventQueue } from '../../../src/queue/queue.ts';
import { openStore } from '../../../src/store/open-store.ts';

/** One job to create: on the zone named `zone`, delivering `fields` under `<export root>/<dir>`. */
export interface JobPlan {
  readonly zone: string;
  readonly dir: string;
  readonly fields: readonly string[];
  readonly filter?: unknown;
  readonly maxRecords?: number;
}

/** What `prepareTailNode` made. */
export interface TailNode {
  readonly dataDir: string;
  readonly exportRoot: string;
  /** Zone ids by name. */
  readonly zones: Readonly<Record<string, string>>;
  readonly auth: { readonly email: string; readonly key: string };
}

/** Where the jobs' queue consumers are created: the embedded queue of the data directory, or another queue. */
export type ConsumerQueue = (dataDir: string) => Promise<Pick<EventQueue, 'resetConsumer' | 'close'>>;

const embeddedQueue: ConsumerQueue = (dataDir) => openEmbeddedQueue({ path: path.join(dataDir, 'queue.db'), replayWindowMs: 600_000 });

/** Prepares a data directory with the zones and jobs given. */
export async function prepareTailNode(zoneNames: readonly string[], jobs: readonly JobPlan[], openQueue: ConsumerQueue = embeddedQueue): Promise<TailNode> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-source-'));
  const store = await openStore({ kind: 'sqlite', path: path.join(dataDir, 'logexport.db') });
  const zones: Record<string, string> = {};
  try {
    const { user, apiKey } = await createUser(store, systemClock, { email: 'sources@example.com' });
    for (const name of zoneNames) zones[name] = (await createZone(store, systemClock, user.id, name)).id;
    const queue = await openQueue(dataDir);
    try {
      for (const [index, plan] of jobs.entries()) {
        const zoneId = zones[plan.zone];
        assert.ok(zoneId, `no zone ${plan.zone}`);
        const job = await store.createJob(
          zoneId,
          {
            dataset: 'http_requests',
            kind: '',
            enabled: true,
            name: `job-${index}`,
            destinationConf: `file:///${plan.dir}`,
            filter: plan.filter === undefined ? null : JSON.stringify(plan.filter),
            outputOptions: JSON.stringify({ field_names: plan.fields }),
            logpullOptions: null,
            frequency: null,
            maxUploadBytes: null,
            maxUploadRecords: plan.maxRecords ?? 50,
            maxUploadIntervalSeconds: 1,
          },
          new Date().toISOString(),
          4,
        );
        assert.ok(job);
        await queue.resetConsumer(streamOf(job), consumerNameOf(job));
      }
    } finally {
      await queue.close();
    }
    return { dataDir, exportRoot: path.join(dataDir, 'exports'), zones, auth: { email: user.email, key: apiKey } };
  } finally {
    await store.close();
  }
}

/** A `native` line for `host` with RayID `rayId` and optional raw headers. */
export function nativeLine(rayId: string, host: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    RayID: rayId,
    ClientIP: '192.0.2.1',
    ClientRequestHost: host,
    ClientRequestMethod: 'GET',
    EdgeResponseStatus: 200,
    EdgeStartTimestamp: '1777716000001000000',
    EdgeEndTimestamp: '1777716000002000000',
    ...extra,
  });
}
