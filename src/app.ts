/**
 * The composition root: builds the store, the queue, the data plane (ingest with its workers and zone
 * snapshots, the supervisor and its runners, the config watcher, the counters) and the HTTP server from
 * the configuration, starts them in data order, and stops them in the reverse order.
 */
import dns from 'node:dns/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { JobLifecycle } from './api/request-context.ts';
import type { ResolveTxt } from './accounts/accounts.ts';
import { authFailureWindowMs, AuthThrottle } from './accounts/auth-throttle.ts';
import { ownerMayRead } from './api/auth.ts';
import { buildServer } from './api/server.ts';
import type { AppConfig } from './config/config.ts';
import { systemClock, type Clock } from './core/clock.ts';
import type { Logger } from './core/logger.ts';
import { ConfigWatcher } from './store/config-watcher.ts';
import { CounterRegistry } from './delivery/counter-registry.ts';
import { defaultRetryPolicy, type RetryPolicy } from './delivery/deliver-with-retry.ts';
import { Ingestor } from './ingest/ingest.ts';
import { IngestFigures } from './ingest/ingest-figures.ts';
import { RejectionWarnings } from './ingest/rejection-warnings.ts';
import { ingestFiguresFile, readStoredIngestFigures, writeStoredIngestFigures } from './ingest/stored-ingest-figures.ts';
import { IngestWorkers } from './ingest/workers/ingest-workers.ts';
import { consumerNameOf, streamOf } from './delivery/job-runner.ts';
import { Supervisor } from './delivery/supervisor.ts';
import { ZoneSnapshots } from './ingest/zone-snapshots.ts';
import { LiveHub } from './live/live-hub.ts';
import { openLiveBus } from './live/open-live-bus.ts';
import { ZoneDirectory } from './sources/zone-directory.ts';
import { openQueue } from './queue/open-queue.ts';
import { TailSources } from './sources/tail/tail-sources.ts';
import { tailSinkOf } from './sources/tail/tail-task.ts';
import { ingestWorkerSetup } from './worker-setup.ts';
import type { EventQueue } from './queue/queue.ts';
import { cachedStore } from './store/cached-store.ts';
import { openStore } from './store/open-store.ts';
import { makeDataDirPrivate } from './private-data-dir.ts';
import { encryptedStore } from './secrets/encrypted-store.ts';
import { openSecrets, resolveSecret } from './secrets/open-secrets.ts';
import { Retention } from './retention/retention.ts';
import { ExplorerQueries } from './explorer/query-runner.ts';
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
  /** Every zone by name, for routing by host. */
  readonly zoneDirectory: ZoneDirectory;
  readonly retention: Retention;
  /** Log Explorer's SQL queries on this node. */
  readonly explorer: ExplorerQueries;
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
  /** The TXT lookup zone verification uses (node:dns `resolveTxt` by default). */
  readonly resolveTxt?: ResolveTxt;
}

/**
 * The composition root: builds store, queue, data plane and server from the configuration, starts them
 * in order, and returns a handle that stops them in the reverse order.
 */
export async function startApp(config: AppConfig, options: AppOptions = {}): Promise<RunningApp> {
  const clock = options.clock ?? systemClock;
  makeDataDirPrivate(config.dataDir);
  const plainStore = await openStore(config.database);
  const closers: (() => Promise<void>)[] = [() => plainStore.close()];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
  };
  try {
    const secret = await resolveSecret(config.secret, plainStore);
    // Destination secrets are sealed in the store under a key derived from the node secret; everything
    // above this line of wrappers sees them in plain text.
    const store = cachedStore(encryptedStore(plainStore, await openSecrets(plainStore, secret)));
    // The queue opens before the server whose logger reports its background errors.
    const logRef: { current?: FastifyInstance['log'] } = {};
    const logError = (error: unknown) => logRef.current?.error({ err: error }, 'The queue reported an error.');
    // For the parts built before the server: their lines go to its logger once it exists.
    const deferredLog: Logger = {
      info: (obj, msg) => logRef.current?.info(obj, msg),
      warn: (obj, msg) => logRef.current?.warn(obj, msg),
      error: (obj, msg) => logRef.current?.error(obj, msg),
    };
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
    const workers = new IngestWorkers(config.workers, ingestWorkerSetup());
    closers.push(() => workers.close());
    // Instant Logs: sessions and viewers of this node, and the bus to the other nodes' (NATS when scaled out).
    const live = new LiveHub({
      bus: openLiveBus(config.queue, nodeId, (error) => logRef.current?.warn({ err: error }, 'The Instant Logs bus reported a problem; live records may be missed.')),
      nodeId,
      clock,
      bufferRecords: config.liveBufferRecords,
      idleTimeoutMs: config.liveIdleTimeoutMs,
      maxSessionsPerZone: config.liveMaxSessions,
      maxViewers: config.liveMaxViewers,
      mayWatch: (session) => ownerMayRead(session.owner, session.zoneId, { store, clock }),
    });
    await live.start();
    closers.push(() => live.close());
    // What ingest did, per zone and way in: continued from the data directory, kept there for `logexport sources`.
    const figuresFile = ingestFiguresFile(config.dataDir);
    const figures = new IngestFigures(clock, new RejectionWarnings(clock, deferredLog), readStoredIngestFigures(figuresFile));
    let storedFigures = figures.changes();
    const storeFigures = async () => {
      const version = figures.changes();
      if (version === storedFigures) return;
      await writeStoredIngestFigures(figuresFile, figures.snapshot(), clock.now());
      storedFigures = version;
    };
    const ingestor = new Ingestor(
      queue,
      snapshots,
      workers,
      (error) => logRef.current?.error({ err: error }, 'Could not append events to the queue; the request was refused with 503.'),
      live,
      figures,
      () => clock.now(),
    );
    let accepting = true;

    const destinationDeps = { exportRoot: config.exportRoot, allowPrivate: config.allowPrivateDestinations, timeoutMs: config.deliveryTimeoutMs, clock };
    const retention = new Retention({
      config,
      nodeId,
      destinations: destinationDeps,
      queue,
      store,
      clock,
      log: deferredLog,
      ...(options.retentionExpiryMs === undefined ? {} : { expiryEveryMs: options.retentionExpiryMs }),
      // Saturated when every worker has a request to process, working while any request is under way: the compaction of retained segments waits for ingest.
      ingestLoad: () => {
        const pending = workers.pendingOnWorkers();
        if (config.workers > 0 && pending >= config.workers) return 'saturated';
        return pending > 0 || ingestor.requestsInFlight > 0 ? 'working' : 'idle';
      },
    });
    closers.push(() => retention.stop());

    // Routing by host for the sources: read before the server answers, stopped after it closes.
    const zoneDirectory = new ZoneDirectory(store, deferredLog);
    const supervisorRef: { current?: Supervisor } = {};
    const tailsRef: { current?: TailSources } = {};
    const zoneChanged = (zoneId: string) => {
      store.invalidateZone(zoneId);
      snapshots.invalidate(zoneId);
      void supervisorRef.current?.requestSync();
      void zoneDirectory.refresh();
      void retention.requestSync();
    };
    // A token changed or revoked on any node: this node reads tokens again, and closes what it may no longer show.
    const tokenChanged = () => {
      store.invalidateTokens();
      void live.recheckOwners();
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

    const explorer = new ExplorerQueries({
      segments: retention.segments,
      retentionMs: retention.retentionMs,
      now: () => clock.now(),
      limits: { timeoutMs: config.sqlTimeoutMs, memoryBytes: config.sqlMemoryBytes, maxRows: config.sqlMaxRows, concurrency: config.sqlConcurrency },
    });
    closers.push(() => Promise.resolve(explorer.close()));
    const server = buildServer({
      config,
      store,
      clock,
      secret,
      changes: { zoneChanged, tokenChanged },
      resolveTxt: options.resolveTxt ?? ((name) => dns.resolveTxt(name)),
      jobs,
      live,
      dashboardDir,
      zoneDirectory,
      throttle: new AuthThrottle(store, clock, config.authFailuresPerMinute),
      dataPlane: { ingestor, counters, pendingBytes: () => queue.pendingBytes(), accepting: () => accepting, sources: () => tailsRef.current?.statuses() ?? [] },
      retention,
      explorer,
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

    const watcher = new ConfigWatcher(store, { onZoneChanged: zoneChanged, onTokenChanged: tokenChanged }, log, options.configPollMs ?? 1000);
    await watcher.start();
    const flushTimer = setInterval(() => {
      counters.flush().catch((error: unknown) => log.warn({ err: error }, 'Could not store job counters; will try again.'));
      storeFigures().catch((error: unknown) => log.warn({ err: error }, `Could not write the ingest figures to ${figuresFile}; will try again.`));
    }, options.countersFlushMs ?? 5000);
    flushTimer.unref();
    // Housekeeping: audit entries older than LOGEXPORT_AUDIT_DAYS and ended throttling windows are removed.
    const prune = () => {
      const now = clock.now();
      Promise.all([store.pruneAudit(new Date(now - config.auditDays * 86_400_000).toISOString()), store.pruneAuthFailures(now - authFailureWindowMs)]).catch(
        (error: unknown) => log.warn({ err: error }, 'Could not prune the audit log or the throttling counts; will try again.'),
      );
    };
    prune();
    const pruneTimer = setInterval(prune, 3_600_000);
    pruneTimer.unref();

    await zoneDirectory.start();
    closers.push(() => zoneDirectory.stop());
    // Sources route by host through the zone directory, and hand their events to ingest like a request.
    const tails = await TailSources.start({ specs: config.tail, queue, sink: tailSinkOf(ingestor), zones: zoneDirectory, maxPendingBytes: config.queueMaxPendingBytes, log });
    tailsRef.current = tails;
    closers.push(() => tails.stop());

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
      zoneDirectory,
      retention,
      explorer,
      url: `http://${host}:${port}`,
      stop() {
        stopping ??= (async () => {
          accepting = false;
          const deadline = clock.now() + config.shutdownTimeoutMs;
          // The tails commit the batch under way and stop reading; what they did not read stays in the files.
          await tails.stop();
          await watcher.stop();
          // Requests admitted before the signal finish queueing first, so their events are delivered now.
          await Promise.race([ingestor.idle(), new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - clock.now())).unref())]);
          await Promise.all([supervisor.stop(deadline), retention.stop()]);
          clearInterval(flushTimer);
          clearInterval(pruneTimer);
          await counters.flush().catch((error: unknown) => log.warn({ err: error }, 'Could not store job counters at shutdown.'));
          await storeFigures().catch((error: unknown) => log.warn({ err: error }, `Could not write the ingest figures to ${figuresFile} at shutdown.`));
          // Ingest is over: viewers are told the node is stopping (1001) before the server closes their sockets with no code.
          await live.close().catch((error: unknown) => log.warn({ err: error }, 'Could not close Instant Logs at shutdown.'));
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
