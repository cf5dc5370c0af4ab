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

/** NATS refuses messages over the server's max_payload (1 MiB by default); larger batches are split below it. */
const defaultMaxPayload = 1024 * 1024;
/** Problems are reported at most this often (a NATS outage would otherwise report once per request). */
const reportEveryMs = 60_000;

/**
 * Splits what one request kept into messages of at most `maxBytes` of JSON: first by session, then a
 * session's records in halves (the counts go with the first half, so they are counted once).
 */
export function splitLiveOutputs(outputs: readonly LiveTapOutput[], maxBytes: number): string[] {
  const text = JSON.stringify(outputs);
  if (Buffer.byteLength(text) <= maxBytes) return [text];
  if (outputs.length > 1) {
    const half = Math.ceil(outputs.length / 2);
    return [...splitLiveOutputs(outputs.slice(0, half), maxBytes), ...splitLiveOutputs(outputs.slice(half), maxBytes)];
  }
  const only = outputs[0];
  // A single record over the limit cannot be split: it is counted as dropped instead.
  if (only === undefined || only.lines.length <= 1) return only === undefined ? [] : [JSON.stringify([{ ...only, lines: [], overflow: only.overflow + only.lines.length }])];
  const half = Math.ceil(only.lines.length / 2);
  return [
    ...splitLiveOutputs([{ ...only, lines: only.lines.slice(0, half) }], maxBytes),
    ...splitLiveOutputs([{ ...only, lines: only.lines.slice(half), events: 0, filteredOut: 0, sampledOut: 0, overflow: 0 }], maxBytes),
  ];
}

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
  private lastReport = 0;

  constructor(options: { servers: readonly string[]; prefix: string; name: string; onError: (error: unknown) => void }) {
    this.servers = options.servers;
    this.prefix = options.prefix;
    this.name = options.name;
    const report = options.onError;
    this.onError = (error) => {
      const now = Date.now();
      if (now - this.lastReport < reportEveryMs) return;
      this.lastReport = now;
      report(error);
    };
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
    const nc = this.nc;
    if (nc === undefined) return;
    try {
      const maxBytes = (nc.info?.max_payload ?? defaultMaxPayload) - 4096;
      for (const message of splitLiveOutputs(outputs, maxBytes)) nc.publish(`${this.prefix}.records.${zoneId}`, message);
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
