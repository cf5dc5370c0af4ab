/**
 * Every zone hosts may be routed to, by name, for routing by host (route-by-host.ts: active zones, none nested
 * in another user's). Read from the store at start and again every interval, so a zone created, verified or
 * removed through any node is routed to within about a second on every node; a failed read keeps the last
 * known zones.
 */
import type { Logger } from '../core/logger.ts';
import type { Store, Zone } from '../store/store.ts';
import { routableZones, zoneNameForHost } from './route-by-host.ts';

export class ZoneDirectory {
  private byName = new Map<string, Zone>();
  private names: readonly (readonly [string, string])[] = [];
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> = Promise.resolve();
  private readonly store: Store;
  private readonly log: Logger;
  private readonly intervalMs: number;

  constructor(store: Store, log: Logger, intervalMs = 1000) {
    this.store = store;
    this.log = log;
    this.intervalMs = intervalMs;
  }

  /** Reads the zones, then keeps them fresh until `stop`. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      this.refreshing = this.refresh();
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Reads the zones now (a node calls it after creating a zone, so its own change applies at once). */
  async refresh(): Promise<void> {
    try {
      const zones = routableZones(await this.store.listAllZones());
      this.byName = new Map(zones.map((zone) => [zone.name, zone]));
      this.names = zones.map((zone) => [zone.name, zone.id] as const);
    } catch (error) {
      this.log.warn({ err: error }, 'Could not read the zones for routing by host; keeping the last ones read.');
    }
  }

  /** The zone an event with this `ClientRequestHost` belongs to, if any. */
  zoneForHost(host: string): Zone | undefined {
    const name = zoneNameForHost(host, (candidate) => this.byName.has(candidate));
    return name === undefined ? undefined : this.byName.get(name);
  }

  /** Every zone as `[name, id]`, for routing on another thread (the same array until the zones are read again). */
  entries(): readonly (readonly [string, string])[] {
    return this.names;
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.refreshing;
  }
}
