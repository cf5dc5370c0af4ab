/**
 * Follows the store's log of configuration changes, so that a job or ruleset changed through any node
 * reaches this node's ingest snapshots and runners within about a poll interval. Changes made through
 * this node's own API are announced at once as well; seeing them again from the log is harmless.
 *
 * Sequence numbers are handed out when a transaction writes, not when it commits, so a change with a
 * lower number can become visible after a higher one. The watcher therefore re-reads a window below the
 * highest number seen and announces every change it has not seen yet.
 */
import type { Store } from './store.ts';
import type { Logger } from '../core/logger.ts';

export class ConfigWatcher {
  private readonly store: Store;
  private readonly onZoneChanged: (zoneId: string) => void;
  private readonly intervalMs: number;
  private readonly log: Logger;
  private lastSeq = 0;
  private readonly seen = new Set<number>();
  private static readonly window = 200;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> = Promise.resolve();

  constructor(store: Store, onZoneChanged: (zoneId: string) => void, log: Logger, intervalMs = 1000) {
    this.store = store;
    this.onZoneChanged = onZoneChanged;
    this.log = log;
    this.intervalMs = intervalMs;
  }

  async start(): Promise<void> {
    this.lastSeq = await this.store.latestConfigChange();
    let polls = 0;
    this.timer = setInterval(() => {
      this.polling = this.poll();
      // About once an hour, changes older than a day are forgotten so the log does not grow forever.
      if (++polls % Math.max(1, Math.round(3_600_000 / this.intervalMs)) === 0) {
        this.store.pruneConfigChanges(new Date(Date.now() - 86_400_000).toISOString()).catch((error: unknown) => {
          this.log.warn({ err: error }, 'Could not prune old configuration changes; will try again.');
        });
      }
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Reads new changes now. */
  async poll(): Promise<void> {
    try {
      const floor = Math.max(0, this.lastSeq - ConfigWatcher.window);
      const changes = await this.store.configChangesSince(floor);
      const zones = new Set<string>();
      for (const change of changes) {
        if (this.seen.has(change.seq)) continue;
        this.seen.add(change.seq);
        this.lastSeq = Math.max(this.lastSeq, change.seq);
        zones.add(change.zoneId);
      }
      for (const seq of this.seen) if (seq <= this.lastSeq - ConfigWatcher.window) this.seen.delete(seq);
      for (const zone of zones) this.onZoneChanged(zone);
    } catch (error) {
      this.log.warn({ err: error }, 'Could not read configuration changes; will try again.');
    }
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.polling;
  }
}
