/**
 * The composition root: builds the store, the queue, the data plane (ingest with its workers and zone
 * snapshots, the supervisor and its runners, the config watcher, the counters) and the HTTP server from
 * the configuration, starts them in data order, and stops them in the reverse order.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { JobLifecycle } from './api/request-context.ts';
import { buildServer } from './api/server.ts';
import type { AppConfig } from './config/config.ts';
import { systemClock, type Clock } from './core/clock.ts';
import { ConfigWatcher } from './store/config-watcher.ts';
import { CounterRegistry } from './delivery/counter-registry.ts';
import { defaultRetryPolicy, type RetryPolicy } from './delivery/deliver-with-retry.ts';
import { Ingestor } from './ingest/ingest.ts';
import { IngestWorkers } from './ingest/workers/ingest-workers.ts';
import { consumerNameOf, streamOf } from './delivery/job-runner.ts';
import { Supervisor } from './delivery/supervisor.ts';
import { ZoneSnapshots } from './ingest/zone-snapshots.ts';
import { openQueue } from './queue/open-queue.ts';
import type { EventQueue } from './queue/queue.ts';
import { cachedStore } from './store/cached-store.ts';
import { openStore } from './store/open-store.ts';
import { Retention } from './retention/retention.ts';
import type { Store } from './store/store.ts';

/** Where `npm run build:web` puts the dashboard. */
const dashboardDir = fileURLToPath(new URL('../web/dist', import.meta.url));

/** A running logexport node: its HTTP server and the parts behind it, stopped in order. */
export interface RunningApp {
  readonly server: FastifyInstance;
  readonly store: Store;
  readonly queue: EventQueue;
  readonly supervisor: Supervisor;
  readonly counters: CounterRegistry;
  readonly retention: Retention;
  /** The address the server listens on, e.g. http://127.0.0.1:8787. */
  readonly url: string;
  /** Stops ingest, lets runners deliver what is queued until the shutdown deadline, then closes everything. */
  stop(): Promise<void>;
}

/** Options tests use to speed a node up. */
export interface AppOptions {
  readonly clock?: Clock;
  readonly retryPolicy?: RetryPolicy;
  readonly configPollMs?: number;
  readonly countersFlushMs?: number;
  /** How often expired retained segments are looked for. */
  readonly retentionExpiryMs?: number;
}

/** The secret that signs challenges and sessions: configured, or generated once and kept in the store. */
export async function resolveSecret(config: AppConfig, store: Store): Promise<string> {
  if (config.secret !== undefined) return config.secret;
  return store.putSettingIfAbsent('secret', randomBytes(32).toString('base64url'));
}

/**
 * The composition root: builds store, queue, data plane and server from the configuration, starts them
 * in order, and returns a handle that stops them in the reverse order.
 */
export async function startApp(config: AppConfig, options: AppOptions = {}): Promise<RunningApp> {
  const clock = options.clock ?? systemClock;
  const store = cachedStore(await openStore(config.database));
  const closers: (() => Promise<void>)[] = [() => store.close()];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
  };
  try {
    const secret = await resolveSecret(config, store);
    // The queue opens before the server whose logger reports its background errors.
    const logRef: { current?: FastifyInstance['log'] } = {};
    const logError = (error: unknown) => logRef.current?.error({ err: error }, 'The queue reported an error.');
    const nodeId = `${os.hostname()}:${config.port}:${config.dataDir}`;
    const queue = await openQueue(config.queue, {
      replayWindowMs: config.replayWindowMs,
      disableFailingJobsAfterMs: config.disableFailingJobsAfterMs,
      nodeId,
      clock,
      onError: logError,
    });
    closers.push(() => queue.close());

    const counters = new CounterRegistry(store, clock, nodeId);
    const filterLimits = { maxOperators: config.filterMaxOperators, maxBytes: config.filterMaxBytes };
    const snapshots = new ZoneSnapshots(store, { filterLimits, gzipLevel: config.gzipLevel });
    const workers = new IngestWorkers(config.workers);
    closers.push(() => workers.close());
    const ingestor = new Ingestor(queue, snapshots, workers, (error) => logRef.current?.error({ err: error }, 'Could not append events to the queue; the request was refused with 503.'));
    let accepting = true;

    // Its log lines go to the server's logger, which exists once the server is built.
    const destinationDeps = { exportRoot: config.exportRoot, allowPrivate: config.allowPrivateDestinations, timeoutMs: config.deliveryTimeoutMs, clock };
    const retention = new Retention({
      config,
      destinations: destinationDeps,
      queue,
      store,
      clock,
      log: {
        info: (obj, msg) => logRef.current?.info(obj, msg),
        warn: (obj, msg) => logRef.current?.warn(obj, msg),
        error: (obj, msg) => logRef.current?.error(obj, msg),
      },
      ...(options.retentionExpiryMs === undefined ? {} : { expiryEveryMs: options.retentionExpiryMs }),
    });
    closers.push(() => retention.stop());

    const supervisorRef: { current?: Supervisor } = {};
    const zoneChanged = (zoneId: string) => {
      store.invalidateZone(zoneId);
      snapshots.invalidate(zoneId);
      void supervisorRef.current?.requestSync();
      void retention.requestSync();
    };

    const jobs: JobLifecycle = {
      async beforeEnable(job) {
        // A job disabled because its destination kept failing resumes where it stopped (its consumer was
        // kept); any other job exports events from the moment it is enabled (no backfill).
        if (job.failingSince !== null) {
          try {
            await (await queue.openConsumer(streamOf(job), consumerNameOf(job))).close();
            return;
          } catch {
            // No consumer left to resume: start at the end like any other job.
          }
        }
        await queue.resetConsumer(streamOf(job), consumerNameOf(job));
      },
      async afterDisable(job) {
        // The job's runner must be gone before its consumer is: a late commit on a removed consumer fails.
        await supervisorRef.current?.requestSync();
        await queue.deleteConsumer(streamOf(job), consumerNameOf(job));
        await store.setJobStatus(job.id, { failingSince: null });
      },
    };

    const server = buildServer({
      config,
      store,
      clock,
      secret,
      changes: { zoneChanged },
      jobs,
      dashboardDir,
      dataPlane: { ingestor, counters, pendingBytes: () => queue.pendingBytes(), accepting: () => accepting },
      retention,
    });
    const log = server.log;
    logRef.current = log;
    const supervisor = new Supervisor({
      queue,
      store,
      clock,
      log,
      counters,
      filterLimits,
      destinations: destinationDeps,
      gzipLevel: config.gzipLevel,
      disableAfterMs: config.disableFailingJobsAfterMs,
      retryPolicy: options.retryPolicy ?? defaultRetryPolicy,
      onJobDisabled: (job) => zoneChanged(job.zoneId),
    });
    supervisorRef.current = supervisor;
    await supervisor.start();
    await retention.start();

    const watcher = new ConfigWatcher(store, zoneChanged, log, options.configPollMs ?? 1000);
    await watcher.start();
    const flushTimer = setInterval(() => {
      counters.flush().catch((error: unknown) => log.warn({ err: error }, 'Could not store job counters; will try again.'));
    }, options.countersFlushMs ?? 5000);
    flushTimer.unref();

    await server.listen({ host: config.host, port: config.port });
    const address = server.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    let stopping: Promise<void> | undefined;
    return {
      server: server,
      store,
      queue,
      supervisor,
      counters,
      retention,
      url: `http://${host}:${port}`,
      stop() {
        stopping ??= (async () => {
          accepting = false;
          const deadline = clock.now() + config.shutdownTimeoutMs;
          await watcher.stop();
          // Requests admitted before the signal finish queueing first, so their events are delivered now.
          await Promise.race([ingestor.idle(), new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - clock.now())).unref())]);
          await Promise.all([supervisor.stop(deadline), retention.stop()]);
          clearInterval(flushTimer);
          await counters.flush().catch((error: unknown) => log.warn({ err: error }, 'Could not store job counters at shutdown.'));
          await server.close();
          await closeAll();
        })();
        return stopping;
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
