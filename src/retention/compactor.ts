/**
 * The compaction: turns closed hot segments (NDJSON in zstd frames, as ingest compressed them) into Parquet
 * segments (columnar, so SQL over them is fast), in the background, under a CPU budget.
 *
 * - **Budget.** One DuckDB thread, and after each compaction a pause long enough that compaction keeps to
 *   its share of one core (`LOGEXPORT_RETENTION_COMPACT_BUDGET`, default 0.25): a compaction that took
 *   1 s at 0.25 is followed by 3 s of rest. A compaction is bounded (~24 MiB of hot segments), so it never
 *   holds the core for long.
 * - **Ingest first.** While ingest is saturated, no compaction starts; the hot segments wait, readable as
 *   they are, and the backlog is in /metrics. Saturated: in most of the last two seconds every ingest worker
 *   was busy, or ingest was working and the machine had less than the budget's share of a core left idle
 *   (on a machine shared with other work, ingest runs short of CPU before its workers all look busy).
 * - **When.** A partition's hot segments are compacted together once they hold 16 MiB, once the oldest is
 *   `LOGEXPORT_RETENTION_COMPACT_AFTER` old (5 minutes), or once their hour is over: a few large Parquet
 *   files per hour rather than many small.
 * - **Nothing lost, nothing twice.** The list of the hot segments a compacted segment holds is stored
 *   first, then the Parquet segment (synced, renamed into place, or put into the bucket), and only then are
 *   the hot segments removed. A crash in between leaves both, and readers take each hot segment the list
 *   names from the Parquet one (retained-files.ts); the next scan removes them.
 * - **No line can wedge it.** A hot segment DuckDB refuses is normalised (hot-repair.ts) and compacted; one
 *   that still cannot be read is moved to `<zone>/quarantine/` (kept, counted, logged once, in /metrics and
 *   `logexport sources`), and the compaction goes on without it.
 *
 * With segments in a bucket several nodes share, a node compacts the hot segments its own writers wrote,
 * and those of other nodes only once they are an hour old (their node is likely gone).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import { repairHotSegment } from './hot-repair.ts';
import { coversText, liveSegmentsOf } from './retained-files.ts';
import { refusedFile } from './retained-reader.ts';
import { SegmentEngine } from './segment-engine.ts';
import { baseNameOf, compactedKeyOfCovers, compactedSegmentKey, compactedSuffix, coversKeyOf, coversSuffix, parseSegmentKey, type SegmentName } from './segment-names.ts';
import { hourPartitionStart, type OpenedSegment, type SegmentStore } from './segment-store.ts';
import type { WrittenHotSegment } from './retention-writer.ts';

/** What the compaction needs from the node. */
export interface CompactorDeps {
  readonly segments: SegmentStore;
  /** Where Parquet files are written before they are put into place (on the store's file system). */
  readonly workDir: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly dataset: Dataset;
  /** The share of one core compaction may use, from 0 (none: this node compacts nothing) to 1. */
  readonly budget: number;
  /** How busy ingest is right now; sampled ten times a second. */
  readonly ingestLoad: () => IngestLoad;
  /** Cores of the machine left idle since the previous call (spare-cores.ts); undefined when not known. */
  readonly spareCores?: () => number | undefined;
  /** Whether other nodes write into the same store (a bucket). */
  readonly shared: boolean;
  /** A hot segment is compacted at the latest this long after it was written (LOGEXPORT_RETENTION_COMPACT_AFTER). */
  readonly compactAfterMs: number;
}

/** How busy ingest is: every worker has a task (`saturated`), some work is under way (`working`), or none (`idle`). */
export type IngestLoad = 'saturated' | 'working' | 'idle';

/** A hot segment waiting for compaction. */
interface HotSegment extends SegmentName {
  readonly zoneId: string;
  /** `<zone>/<YYYYMMDD>/<HH>/` */
  readonly prefix: string;
  readonly bytes: number;
  /** When this node learned of it (its clock). */
  readonly knownAtMs: number;
  /** Whether this node's writers wrote it. */
  readonly own: boolean;
}

/** How far compaction is behind: what /metrics shows. */
export interface CompactionBacklog {
  readonly hotSegments: number;
  readonly hotBytes: number;
  /** When the oldest event still in a hot segment was received (Unix ms), if any. */
  readonly oldestReceivedMs: number | undefined;
}

/** How the compaction stands, for /metrics. */
export interface CompactionStatus {
  readonly backlog: CompactionBacklog;
  readonly compactedHotSegments: number;
  readonly paused: boolean;
  readonly quarantined: readonly QuarantinedSegment[];
}

/** A zone's segment that could not be compacted, kept under `<zone>/quarantine/`. */
export interface QuarantinedSegment {
  readonly zoneId: string;
  readonly key: string;
  readonly reason: string;
}

const mib = 1024 * 1024;
/** A partition's hot segments are compacted once they hold this much… */
const compactAtBytes = 16 * mib;
/** …and one compaction takes at most this much (at least one segment). */
const maxCompactionBytes = 24 * mib;
/** Another node's hot segment is compacted once it is this old. */
const orphanAfterMs = 3_600_000;
/** An hour partition is over (its writers moved on) this long after its end. */
const hourOverAfterMs = 2 * 60_000;
/** How often hot segments are looked for in the store (besides those this node's writers report)… */
const rescanEveryMs = 10 * 60_000;
/** …in partitions that started at most this long ago (the first scan looks at all of them). */
const rescanBackMs = 3 * 3_600_000;
const sampleEveryMs = 100;
const samplesKept = 20;
/** The machine's idle time is read every this many samples (reading it costs ~0.2 ms)… */
const spareEvery = 5;
/** …and the last this many readings kept (two seconds). */
const spareKept = 4;
/** The share of samples with ingest busy above which ingest counts as saturated. */
const saturatedShare = 0.8;

/** The quarantine key of a segment: `<zone>/quarantine/<YYYYMMDD>-<HH>-<name>`. */
export function quarantineKeyOf(key: string): string {
  const [zone, day, hour] = key.split('/');
  return `${zone}/quarantine/${day}-${hour}-${baseNameOf(key)}`;
}

export class Compactor {
  private readonly deps: CompactorDeps;
  private readonly engine = new SegmentEngine(1, '1GB');
  private readonly hot = new Map<string, HotSegment>();
  private readonly samples: IngestLoad[] = [];
  /** Idle cores of the machine, one reading per `spareEvery` samples. */
  private readonly spare: number[] = [];
  private ticks = 0;
  private sampler: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Whether the loop rests for want of work (a report wakes it), not for its budget. */
  private idle = false;
  /** The connection of the compaction under way (interrupted when the node stops). */
  private connection: DuckDBConnection | undefined;
  /** Compactions done and the hot segments they held, on this node (for /metrics). */
  compactions = 0;
  compactedHotSegments = 0;
  /** Segments quarantined by this node, in the order it met them. */
  readonly quarantined: QuarantinedSegment[] = [];
  /** The compaction under way, so `compactNow` waits for it rather than racing it. */
  private current: Promise<unknown> = Promise.resolve();

  constructor(deps: CompactorDeps) {
    this.deps = deps;
  }

  /** Starts: a scan of the store for hot segments, then compaction as the budget allows. */
  start(): void {
    if (this.deps.budget <= 0) return;
    this.sampler = setInterval(() => {
      this.samples.push(this.deps.ingestLoad());
      if (this.samples.length > samplesKept) this.samples.shift();
      if (this.ticks++ % spareEvery !== 0) return;
      const spare = this.deps.spareCores?.();
      if (spare !== undefined) this.spare.push(spare);
      if (this.spare.length > spareKept) this.spare.shift();
    }, sampleEveryMs);
    this.sampler.unref();
    this.running ??= this.loop().catch((error: unknown) => this.deps.log.error({ err: error }, 'The retention compaction stopped on an unexpected error.'));
  }

  /** A writer of this node stored a hot segment. */
  added(written: WrittenHotSegment): void {
    const name = parseSegmentKey(written.key);
    if (name === undefined) return;
    this.track(name, written.bytes, true);
    if (this.idle) this.wake?.();
  }

  /** Forgets the hot segments under a prefix (its partition expired). */
  forget(prefix: string): void {
    for (const key of this.hot.keys()) if (key.startsWith(prefix)) this.hot.delete(key);
  }

  /**
   * Whether ingest was saturated in most of the last two seconds: every worker busy, or working while the
   * machine left less than the budget's share of a core idle.
   */
  saturated(): boolean {
    const samples = this.samples;
    if (samples.length < samplesKept / 2) return false;
    let saturated = 0;
    let working = 0;
    for (const load of samples) {
      if (load === 'saturated') saturated += 1;
      if (load !== 'idle') working += 1;
    }
    if (saturated >= saturatedShare * samples.length) return true;
    if (working < saturatedShare * samples.length || this.spare.length === 0) return false;
    return this.spare.reduce((sum, cores) => sum + cores, 0) / this.spare.length < this.deps.budget;
  }

  status(): CompactionStatus {
    return { backlog: this.backlog(), compactedHotSegments: this.compactedHotSegments, paused: this.saturated(), quarantined: this.quarantined };
  }

  backlog(): CompactionBacklog {
    let hotBytes = 0;
    let oldest: number | undefined;
    for (const segment of this.hot.values()) {
      hotBytes += segment.bytes;
      if (oldest === undefined || segment.firstMs < oldest) oldest = segment.firstMs;
    }
    return { hotSegments: this.hot.size, hotBytes, oldestReceivedMs: oldest };
  }

  /** Compacts every hot segment known now, whatever its age, budget and ingest (tests; `logexport` at a stop is not one). */
  async compactNow(): Promise<void> {
    await this.current;
    await this.scan(Number.POSITIVE_INFINITY);
    for (let group = this.nextGroup(true); group !== undefined; group = this.nextGroup(true)) {
      const run = this.compact(group);
      this.current = run.catch(() => {});
      if (!(await run)) break;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sampler !== undefined) clearInterval(this.sampler);
    this.wake?.();
    // A compaction under way is given up: its hot segments stay, and are compacted after the next start.
    this.connection?.interrupt();
    await this.running;
    this.engine.close();
  }

  private track(name: SegmentName, bytes: number, own: boolean): void {
    if (name.tier !== 'hot' || this.hot.has(name.key)) return;
    const zoneId = name.key.slice(0, name.key.indexOf('/'));
    this.hot.set(name.key, { ...name, zoneId, prefix: name.key.slice(0, name.key.lastIndexOf('/') + 1), bytes, knownAtMs: this.deps.clock.now(), own });
  }

  private async loop(): Promise<void> {
    let scannedAt = Number.NEGATIVE_INFINITY;
    let failures = 0;
    while (!this.stopped) {
      const now = this.deps.clock.now();
      if (now - scannedAt >= rescanEveryMs || now < scannedAt) {
        await this.scan(scannedAt === Number.NEGATIVE_INFINITY ? Number.POSITIVE_INFINITY : rescanBackMs).catch((error: unknown) =>
          this.deps.log.warn({ err: error }, 'Could not look for hot retained segments to compact; will try again.'),
        );
        scannedAt = now;
      }
      // Ingest first: while it is saturated, nothing starts.
      if (this.saturated()) {
        await this.rest(250);
        continue;
      }
      const group = this.nextGroup(false);
      if (group === undefined) {
        await this.rest(1000, true);
        continue;
      }
      const started = performance.now();
      const run = this.compact(group);
      this.current = run.catch(() => {});
      const done = await run;
      const tookMs = performance.now() - started;
      failures = done ? 0 : failures + 1;
      // The budget: rest until compaction's share of the time is back to it; after failures, longer.
      await this.rest(tookMs * (1 / this.deps.budget - 1) + (done ? 0 : Math.min(60_000, 1000 * 2 ** Math.min(failures, 6))));
    }
  }

  /** Waits `ms`, or less when the compaction stops — or, when `idle`, when a writer reports a segment. */
  private rest(ms: number, idle = false): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      timer.unref();
      this.wake = finish;
      this.idle = idle;
    });
  }

  /**
   * Lists the store's hot segments in partitions that started at most `backMs` ago; finishes what an
   * interrupted compaction left (hot segments a compacted one holds are removed, and, on a store only this
   * node writes, a covers list without its segment).
   */
  private async scan(backMs: number): Promise<void> {
    const now = this.deps.clock.now();
    const { segments } = this.deps;
    for (const zone of await segments.listPartitions('')) {
      if (!/^[0-9a-f]{32}$/.test(zone)) continue;
      for (const day of await segments.listPartitions(`${zone}/`)) {
        const dayStart = hourPartitionStart(`${day}/00`);
        if (dayStart === undefined || dayStart + 86_400_000 < now - backMs) continue;
        for (const hour of await segments.listPartitions(`${zone}/${day}/`)) {
          const start = hourPartitionStart(`${day}/${hour}`);
          if (start === undefined || start + 3_600_000 < now - backMs) continue;
          await this.scanPartition(`${zone}/${day}/${hour}/`);
        }
      }
    }
  }

  private async scanPartition(prefix: string): Promise<void> {
    const { segments } = this.deps;
    const entries = await segments.list(prefix);
    const { live, covered } = await liveSegmentsOf(segments, entries.map((e) => e.key));
    if (covered.length > 0) await segments.delete(covered.map((c) => c.key));
    if (!this.deps.shared) {
      const compacted = new Set(entries.filter((e) => e.key.endsWith(compactedSuffix)).map((e) => e.key));
      const orphans = entries.filter((e) => e.key.endsWith(coversSuffix) && !compacted.has(compactedKeyOfCovers(e.key))).map((e) => e.key);
      if (orphans.length > 0) await segments.delete(orphans);
    }
    const present = new Set(live.map((s) => s.key));
    for (const key of this.hot.keys()) if (key.startsWith(prefix) && !present.has(key)) this.hot.delete(key);
    const bytes = new Map(entries.map((e) => [e.key, e.bytes]));
    for (const segment of live) this.track(segment, bytes.get(segment.key) ?? 0, !this.deps.shared);
  }

  /** The hot segments to compact next: of the due partition whose events are oldest; with `force`, any. */
  private nextGroup(force: boolean): HotSegment[] | undefined {
    const now = this.deps.clock.now();
    const byPrefix = new Map<string, HotSegment[]>();
    for (const segment of this.hot.values()) {
      if (!force && !segment.own && now - segment.knownAtMs < orphanAfterMs) continue;
      const list = byPrefix.get(segment.prefix);
      if (list === undefined) byPrefix.set(segment.prefix, [segment]);
      else list.push(segment);
    }
    let chosen: HotSegment[] | undefined;
    for (const [prefix, list] of byPrefix) {
      const hourStart = hourPartitionStart(prefix.split('/').slice(1, 3).join('/')) ?? 0;
      const bytes = list.reduce((sum, s) => sum + s.bytes, 0);
      const oldestKnown = Math.min(...list.map((s) => s.knownAtMs));
      const due = force || bytes >= compactAtBytes || now - oldestKnown >= this.deps.compactAfterMs || now >= hourStart + 3_600_000 + hourOverAfterMs;
      if (!due) continue;
      list.sort((a, b) => a.firstMs - b.firstMs || (a.key < b.key ? -1 : 1));
      if (chosen === undefined || (list[0]?.firstMs ?? 0) < (chosen[0]?.firstMs ?? 0)) chosen = list;
    }
    if (chosen === undefined) return undefined;
    const group: HotSegment[] = [];
    let bytes = 0;
    for (const segment of chosen) {
      if (group.length > 0 && bytes + segment.bytes > maxCompactionBytes) break;
      group.push(segment);
      bytes += segment.bytes;
    }
    return group;
  }

  /** Compacts one group; false when it failed for a reason other than a segment DuckDB refuses (tried again later). */
  private async compact(group: readonly HotSegment[]): Promise<boolean> {
    const { segments, workDir, dataset } = this.deps;
    const opened: { segment: HotSegment; file: OpenedSegment }[] = [];
    const base = path.join(workDir, `compact-${randomBytes(6).toString('hex')}`);
    try {
      await fs.mkdir(workDir, { recursive: true });
      for (const segment of group) opened.push({ segment, file: await segments.open(segment.key) });
      const connection = await this.engine.connect();
      this.connection = connection;
      try {
        if (this.stopped) throw new Error('the node is stopping');
        await this.engine.compact(
          connection,
          opened.map((o) => o.file.path),
          `${base}.parquet`,
          dataset,
        );
      } catch (error) {
        const file = refusedFile(error);
        const refused = opened.find((o) => o.file.path === file)?.segment;
        if (refused === undefined) throw error;
        // Normalised, it is compacted next time; if there was nothing to normalise, it cannot be read at all.
        if (!(await repairHotSegment(segments, refused.key, workDir))) await this.quarantine(refused, error);
        return true;
      } finally {
        this.connection = undefined;
        connection.closeSync();
      }
      const key = compactedSegmentKey(group);
      await fs.writeFile(`${base}.covers.json`, coversText(group));
      await segments.put(coversKeyOf(key), `${base}.covers.json`);
      await segments.put(key, `${base}.parquet`);
      await segments.delete(group.map((s) => s.key));
      for (const segment of group) this.hot.delete(segment.key);
      this.compactions += 1;
      this.compactedHotSegments += group.length;
      return true;
    } catch (error) {
      this.deps.log.warn({ err: error, zoneId: group[0]?.zoneId }, `Could not compact ${group.length} hot retained segment(s) of zone ${group[0]?.zoneId ?? ''}; will try again.`);
      // A segment expired or compacted elsewhere meanwhile: what is there now counts.
      const prefixes = new Set(group.map((s) => s.prefix));
      for (const prefix of prefixes) await this.scanPartition(prefix).catch(() => {});
      return false;
    } finally {
      for (const { file } of opened) await file.release();
      await fs.rm(`${base}.parquet`, { force: true });
      await fs.rm(`${base}.covers.json`, { force: true });
    }
  }

  /** Moves a segment no reader can read to the zone's quarantine, and says so once. */
  private async quarantine(segment: HotSegment, error: unknown): Promise<void> {
    const { segments, workDir } = this.deps;
    const copy = path.join(workDir, `quarantine-${randomBytes(6).toString('hex')}`);
    const opened = await segments.open(segment.key);
    try {
      await fs.copyFile(opened.path, copy);
    } finally {
      await opened.release();
    }
    const key = quarantineKeyOf(segment.key);
    await segments.put(key, copy);
    await segments.delete([segment.key]);
    this.hot.delete(segment.key);
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    this.quarantined.push({ zoneId: segment.zoneId, key, reason });
    this.deps.log.error(
      { zoneId: segment.zoneId, segment: key, reason },
      `A hot retained segment of zone ${segment.zoneId} cannot be read, so it was quarantined as ${key}; its events are kept there but Logpull, replay and SQL no longer see them.`,
    );
  }
}
