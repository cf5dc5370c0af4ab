/**
 * Follows the store's log of configuration changes, so that a job or ruleset changed through any node
 * reaches this node's ingest snapshots and runners within about a poll interval, and a token changed or
 * revoked through any node leaves this node's read cache. Changes made through
 * this node's own API are announced at once as well; seeing them again from the log is harmless.
 *
 * Sequence numbers are handed out when a transaction writes, not when it commits, so a change with a
 * lower number can become visible after a higher one. The watcher therefore re-reads a window below the
 * highest number seen and announces every change it has not seen yet.
 */
import type { Store } from './store.ts';
import type { Logger } from '../core/logger.ts';

/** What the watcher tells the node. */
export interface ConfigWatcherHandlers {
  /** A zone's configuration changed somewhere. */
  readonly onZoneChanged: (zoneId: string) => void;
  /** An API token changed or was revoked somewhere: what was read of it may be stale. */
  readonly onTokenChanged: (tokenId: string) => void;
}

export class ConfigWatcher {
  private readonly store: Store;
  private readonly handlers: ConfigWatcherHandlers;
  private readonly intervalMs: number;
  private readonly log: Logger;
  private lastSeq = 0;
  private readonly seen = new Set<number>();
  private static readonly window = 200;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> = Promise.resolve();

  constructor(store: Store, handlers: ConfigWatcherHandlers, log: Logger, intervalMs = 1000) {
    this.store = store;
    this.handlers = handlers;
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
      const tokens = new Set<string>();
      for (const change of changes) {
        if (this.seen.has(change.seq)) continue;
        this.seen.add(change.seq);
        this.lastSeq = Math.max(this.lastSeq, change.seq);
        if (change.kind === 'zone') zones.add(change.zoneId);
        else tokens.add(change.tokenId);
      }
      for (const seq of this.seen) if (seq <= this.lastSeq - ConfigWatcher.window) this.seen.delete(seq);
      for (const zone of zones) this.handlers.onZoneChanged(zone);
      for (const token of tokens) this.handlers.onTokenChanged(token);
    } catch (error) {
      this.log.warn({ err: error }, 'Could not read configuration changes; will try again.');
    }
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.polling;
  }
}
