/**
 * The live bus on NATS core subjects (no JetStream: live records are not kept, and a record nobody listens
 * to costs the server nothing). Under `<prefix>` (one per stream name, so separate deployments sharing a
 * NATS server stay apart):
 *
 * - `<prefix>.records.<zone id>`: what one request gave the sessions of a zone; a node subscribes while it
 *   has a viewer of that zone, so the records reach only nodes that show them;
 * - `<prefix>.sessions`: each node's sessions with their viewer counts, on every change and every few
 *   seconds (a node that stops announcing is forgotten);
 * - `<prefix>.hello`: a node that starts asks the others to announce at once.
 */
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { LiveTapOutput } from '../ingest/live-tap.ts';
import type { LiveAnnouncement, LiveBus, LiveBusHandlers } from './live-bus.ts';

/** The subject prefix of a deployment whose JetStream stream is `stream`. */
export function liveSubjectPrefix(stream: string): string {
  return `logexport.live.${stream.toLowerCase()}`;
}

export class NatsLiveBus implements LiveBus {
  readonly shared = true;
  private readonly servers: readonly string[];
  private readonly prefix: string;
  private readonly name: string;
  private readonly onError: (error: unknown) => void;
  private nc: NatsConnection | undefined;
  private readonly zones = new Map<string, Subscription>();

  constructor(options: { servers: readonly string[]; prefix: string; name: string; onError: (error: unknown) => void }) {
    this.servers = options.servers;
    this.prefix = options.prefix;
    this.name = options.name;
    this.onError = options.onError;
  }

  async start(handlers: LiveBusHandlers): Promise<void> {
    const nc = await connect({ servers: [...this.servers], name: `logexport live ${this.name}`, maxReconnectAttempts: -1, reconnectTimeWait: 1000 });
    this.nc = nc;
    this.handlers = handlers;
    nc.subscribe(`${this.prefix}.sessions`, {
      callback: (error, msg) => {
        if (error !== null) return this.onError(error);
        try {
          handlers.onAnnouncement(msg.json<LiveAnnouncement>());
        } catch (e) {
          this.onError(e);
        }
      },
    });
    nc.subscribe(`${this.prefix}.hello`, { callback: (error) => (error === null ? handlers.onHello() : this.onError(error)) });
    await nc.flush();
    nc.publish(`${this.prefix}.hello`);
  }

  private handlers: LiveBusHandlers | undefined;

  publishRecords(zoneId: string, outputs: readonly LiveTapOutput[]): void {
    try {
      this.nc?.publish(`${this.prefix}.records.${zoneId}`, JSON.stringify(outputs));
    } catch (error) {
      // A closed or reconnecting connection: live records are best effort, ingest goes on.
      this.onError(error);
    }
  }

  listen(zoneId: string, on: boolean): void {
    const nc = this.nc;
    const handlers = this.handlers;
    if (nc === undefined || handlers === undefined) return;
    const existing = this.zones.get(zoneId);
    if (on && existing === undefined) {
      this.zones.set(
        zoneId,
        nc.subscribe(`${this.prefix}.records.${zoneId}`, {
          callback: (error, msg) => {
            if (error !== null) return this.onError(error);
            try {
              handlers.onRecords(zoneId, msg.json<LiveTapOutput[]>());
            } catch (e) {
              this.onError(e);
            }
          },
        }),
      );
    } else if (!on && existing !== undefined) {
      existing.unsubscribe();
      this.zones.delete(zoneId);
    }
  }

  announce(announcement: LiveAnnouncement): void {
    try {
      this.nc?.publish(`${this.prefix}.sessions`, JSON.stringify(announcement));
    } catch (error) {
      this.onError(error);
    }
  }

  async close(): Promise<void> {
    const nc = this.nc;
    this.nc = undefined;
    if (nc !== undefined) await nc.drain().catch(() => nc.close());
  }
}
