/**
 * Retained logs (docs/retention.md): while a zone's retention flag is on, ingest keeps every event whole,
 * compressed, in a section of each queue chunk; this stage appends those to hot segments (one writer per
 * zone, reading the zone's stream through its own consumer), compacts hot segments into Parquet in the
 * background under a CPU budget, removes segments older than the retention, and serves the reads Logpull
 * and replay make over both tiers. The composition root builds one per node.
 */
import fs from 'node:fs/promises';
import type { AppConfig } from '../config/config.ts';
import type { Clock } from '../core/clock.ts';
import { CoalescedRuns } from '../core/coalesced-runs.ts';
import type { Logger } from '../core/logger.ts';
import type { EventQueue } from '../queue/queue.ts';
import type { Store } from '../store/store.ts';
import type { DestinationDeps } from '../destinations/create-destination.ts';
import { httpRequests } from '../domain/datasets/http-requests.ts';
import { Compactor, type CompactionStatus, type IngestLoad } from './compactor.ts';
import { openSegmentStore } from './open-segment-store.ts';
import { Replays } from './replay-runner.ts';
import type { RetainedSource } from './retained-reader.ts';
import { expireSegments } from './retention-expiry.ts';
import { RetentionWriter, retentionConsumer, retentionStreamOf } from './retention-writer.ts';
import { SegmentEngine } from './segment-engine.ts';
import { SpareCores } from './spare-cores.ts';
import type { SegmentStore } from './segment-store.ts';

/** What the retention stage needs from the node. */
export interface RetentionDeps {
  readonly config: Pick<AppConfig, 'retentionDays' | 'retentionStorage' | 'retentionFlushMs' | 'retentionCompactBudget' | 'retentionCompactAfterMs' | 'dataDir' | 'gzipLevel' | 'filterMaxOperators' | 'filterMaxBytes' | 'replaysPerNode'>;
  /** Names this node in the store (its replays, which it resumes after a restart). */
  readonly nodeId: string;
  /** How replays reach job destinations. */
  readonly destinations: DestinationDeps;
  readonly queue: EventQueue;
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  /** How often expired segments are looked for (tests shorten it). */
  readonly expiryEveryMs?: number;
  /** How busy ingest is right now: the compaction waits while it is mostly saturated (compactor.ts). */
  readonly ingestLoad?: () => IngestLoad;
}

/** Events written into segments on this node, per zone (for /metrics). */
export type RetentionCounters = Map<string, number>;

export class Retention implements RetainedSource {
  readonly segments: SegmentStore;
  /**
   * One thread: a streamed read (Logpull's lines, replay) runs as one pipeline pulled chunk by chunk, and a
   * second thread only added CPU (~+30 %, a quarter more wall time on two cores) without speeding it up.
   */
  readonly engine = new SegmentEngine(1);
  readonly retentionMs: number;
  readonly written: RetentionCounters = new Map();
  readonly replays: Replays;
  readonly compactor: Compactor;
  readonly workDir: string;
  private readonly deps: RetentionDeps;
  private readonly writers = new Map<string, RetentionWriter>();
  private stopped = false;
  private readonly syncs = new CoalescedRuns(() =>
    this.sync().catch((error: unknown) => this.deps.log.error({ err: error }, 'Could not bring the retention writers up to date; will retry on the next change.')),
  );
  private expiryTimer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;

  constructor(deps: RetentionDeps) {
    this.deps = deps;
    const opened = openSegmentStore(deps.config.retentionStorage, deps.config.dataDir);
    this.segments = opened.store;
    this.workDir = opened.workDir;
    this.retentionMs = deps.config.retentionDays * 86_400_000;
    const spareCores = new SpareCores();
    this.compactor = new Compactor({
      segments: this.segments,
      workDir: this.workDir,
      clock: deps.clock,
      log: deps.log,
      dataset: httpRequests,
      budget: deps.config.retentionCompactBudget,
      ingestLoad: deps.ingestLoad ?? (() => 'idle'),
      spareCores: () => spareCores.sample(),
      shared: deps.config.retentionStorage.kind === 's3',
      compactAfterMs: deps.config.retentionCompactAfterMs,
    });
    this.replays = new Replays({
      source: this,
      destinations: deps.destinations,
      store: deps.store,
      gzipLevel: deps.config.gzipLevel,
      filterLimits: { maxOperators: deps.config.filterMaxOperators, maxBytes: deps.config.filterMaxBytes },
      log: deps.log,
      now: () => deps.clock.now(),
      nodeId: deps.nodeId,
      perNode: deps.config.replaysPerNode,
    });
  }

  /** How the compaction stands on this node (/metrics). */
  compaction(): CompactionStatus {
    return this.compactor.status();
  }

  /** Where Logpull and replay read segments: this stage itself. */
  get source(): RetainedSource {
    return this;
  }

  /** Starts a writer for every zone with the flag on, the compaction and the expiry. */
  async start(): Promise<void> {
    // What a stopped node left in its work directory (a hot segment's or a compaction's file) is of no use.
    await fs.rm(this.workDir, { recursive: true, force: true }).catch(() => {});
    await this.sync();
    this.compactor.start();
    await this.replays.resume().catch((error: unknown) => this.deps.log.error({ err: error }, 'Could not resume the replays this node ran before it stopped.'));
    void this.expireNow();
    this.expiryTimer = setInterval(() => void this.expireNow(), this.deps.expiryEveryMs ?? 60_000);
    this.expiryTimer.unref();
  }

  /** Removes expired segments now; answers how many hour partitions went. */
  async expireNow(): Promise<number> {
    try {
      return await expireSegments(this.segments, this.deps.clock.now(), this.retentionMs, (prefix) => this.compactor.forget(prefix));
    } catch (error) {
      this.deps.log.warn({ err: error }, 'Could not remove expired retained segments; will try again.');
      return 0;
    }
  }

  /** Before the flag is stored as on: the zone's consumer starts at the end of its stream (no backfill). */
  async beforeEnable(zoneId: string): Promise<void> {
    await this.deps.queue.resetConsumer(retentionStreamOf(zoneId), retentionConsumer);
  }

  /** After the flag was stored as off: the writer writes what it holds, then the consumer goes. */
  async afterDisable(zoneId: string): Promise<void> {
    await this.requestSync();
    await this.deps.queue.deleteConsumer(retentionStreamOf(zoneId), retentionConsumer);
  }

  /** Compares the zones with the flag on with the writers; calls close together are merged. */
  requestSync(): Promise<void> {
    return this.stopped ? this.syncs.idle() : this.syncs.request();
  }

  private async sync(): Promise<void> {
    if (this.stopped) return;
    const zones = new Set(await this.deps.store.listRetentionZones());
    const stops: Promise<void>[] = [];
    for (const [zoneId, writer] of this.writers) {
      if (zones.has(zoneId)) continue;
      this.writers.delete(zoneId);
      stops.push(writer.stop('drain'));
    }
    await Promise.all(stops);
    for (const zoneId of zones) {
      if (this.writers.has(zoneId) || this.stopped) continue;
      const writer = new RetentionWriter(zoneId, {
        queue: this.deps.queue,
        segments: this.segments,
        workDir: this.workDir,
        clock: this.deps.clock,
        log: this.deps.log,
        flushMs: this.deps.config.retentionFlushMs,
        onWritten: (written) => {
          this.written.set(written.zoneId, (this.written.get(written.zoneId) ?? 0) + written.events);
          this.compactor.added(written);
        },
      });
      this.writers.set(zoneId, writer);
      writer.start();
    }
  }

  /** Stops the replays, the writers (each writes what it holds first), the compaction, the expiry and the engine. */
  stop(): Promise<void> {
    this.stopping ??= this.stopNow();
    return this.stopping;
  }

  private async stopNow(): Promise<void> {
    this.stopped = true;
    await this.syncs.idle();
    await this.replays.stop();
    if (this.expiryTimer !== undefined) clearInterval(this.expiryTimer);
    const writers = [...this.writers.values()];
    this.writers.clear();
    await Promise.all([...writers.map((w) => w.stop('drain')), this.compactor.stop()]);
    this.engine.close();
    await this.segments.close();
  }
}
