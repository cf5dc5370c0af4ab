/**
 * Instant Logs on one node: the live sessions it knows (its own, and those other nodes announce), the
 * viewers connected to it, and the fan-out of what ingest kept to their buffers.
 *
 * Ingest asks `watching(zone)` on every request: with no viewer of the zone that is one map lookup and
 * nothing else. With viewers, the zone's sessions travel with the ingest task to the worker, which filters,
 * samples and formats for them (ingest/live-tap.ts); what they kept comes back through `deliver`, goes over
 * the bus (in the process, or NATS core subjects when scaled out) to every node with a viewer of the zone,
 * and into each viewer's bounded buffer (viewer-buffer.ts). A session nobody connects to within the idle
 * timeout, or that nobody has watched for that long, expires.
 *
 * Bounds: a session, and a zone, have at most `maxViewers` viewers across the nodes (as far as this node has
 * heard); one more is closed at once with 4429. What a request kept is handed over in one publish and fanned
 * out to the viewers on a later turn of the event loop, so the request never waits for, nor loops over,
 * viewers. Once a second the credential that made each watched session is checked again: a revoked,
 * expired or narrowed one closes its viewers with 4403.
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../core/app-error.ts';
import type { Clock } from '../core/clock.ts';
import type { LiveTaps } from '../ingest/ingest.ts';
import type { LiveTapOutput, LiveTapSpec } from '../ingest/live-tap.ts';
import type { LiveAnnouncement, LiveBus } from './live-bus.ts';
import type { LiveOwner, LiveSession, LiveSessionInput } from './live-session.ts';
import { ViewerBuffer, type ViewerSink } from './viewer-buffer.ts';

/** A viewer's connection, as the hub uses it. */
export interface ViewerSocket extends ViewerSink {
  close(code: number, reason: string): void;
}

/** A connected viewer. */
export interface Viewer {
  readonly session: LiveSession;
  readonly socket: ViewerSocket;
  readonly buffer: ViewerBuffer;
  /** Since the last stats message. */
  events: number;
  filteredOut: number;
  sampledOut: number;
  kept: number;
}

interface LocalSession {
  readonly session: LiveSession;
  readonly viewers: Set<Viewer>;
  /** Since when nobody watches (creation, or the last viewer leaving). */
  idleSince: number;
}

export interface LiveHubOptions {
  readonly bus: LiveBus;
  readonly nodeId: string;
  readonly clock: Clock;
  /** Records one viewer's buffer holds (LOGEXPORT_LIVE_BUFFER). */
  readonly bufferRecords: number;
  /** A session nobody watches expires after this long (LOGEXPORT_LIVE_IDLE_TIMEOUT). */
  readonly idleTimeoutMs: number;
  /** Sessions a zone may have at once (LOGEXPORT_LIVE_MAX_SESSIONS). */
  readonly maxSessionsPerZone: number;
  /** How often viewers get stats, sessions expire and nodes announce. */
  readonly tickMs?: number;
  /** Viewers one session, and one zone, may have at once (LOGEXPORT_LIVE_MAX_VIEWERS). */
  readonly maxViewers: number;
  /** Whether the credential that made a session may still read its zone's logs. */
  readonly mayWatch: (session: LiveSession) => Promise<boolean>;
}

/** Close codes a viewer may get, besides 1001 (the node is stopping). */
export const viewerCloseCodes = { tooManyViewers: 4429, credentialRevoked: 4403 } as const;

/** How often a node announces its sessions; another node forgets them after three missed announcements. */
const announceEveryMs = 2000;
const forgetAfterMs = 3 * announceEveryMs + 1000;

export class LiveHub implements LiveTaps {
  private readonly options: LiveHubOptions;
  private readonly bus: LiveBus;
  private readonly local = new Map<string, LocalSession>();
  private readonly remote = new Map<string, { at: number; announcement: LiveAnnouncement }>();
  private watched = new Map<string, { readonly key: string; readonly specs: readonly LiveTapSpec[] }>();
  private readonly listening = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private lastAnnounce = 0;
  private closing: Promise<void> | undefined;
  /** What requests kept, waiting to be fanned out to viewers (off the ingest request path). */
  private pending: { readonly zoneId: string; readonly outputs: readonly LiveTapOutput[] }[] = [];
  private fanOutScheduled = false;
  private checkingOwners: Promise<void> | undefined;

  constructor(options: LiveHubOptions) {
    this.options = options;
    this.bus = options.bus;
  }

  async start(): Promise<void> {
    await this.bus.start({
      onRecords: (zoneId, outputs) => this.receive(zoneId, outputs),
      onAnnouncement: (announcement) => this.heard(announcement),
      onHello: () => this.announce(),
    });
    this.timer = setInterval(() => this.tick(), this.options.tickMs ?? 1000);
    this.timer.unref();
  }

  /** Every session of a zone this node knows, its own first. */
  list(zoneId: string): LiveSession[] {
    const found = new Map<string, LiveSession>();
    for (const { session } of this.local.values()) if (session.zoneId === zoneId) found.set(session.id, session);
    for (const { announcement } of this.remote.values()) {
      for (const { session } of announcement.sessions) if (session.zoneId === zoneId && !found.has(session.id)) found.set(session.id, session);
    }
    return [...found.values()];
  }

  /** A session by id, wherever it was made. */
  find(sessionId: string): LiveSession | undefined {
    const own = this.local.get(sessionId);
    if (own !== undefined) return own.session;
    for (const { announcement } of this.remote.values()) {
      const entry = announcement.sessions.find((s) => s.session.id === sessionId);
      if (entry !== undefined) return entry.session;
    }
    return undefined;
  }

  /** Makes a session; it waits the idle timeout for a viewer. */
  create(zoneId: string, dataset: string, input: LiveSessionInput, owner: LiveOwner): LiveSession {
    if (this.list(zoneId).length >= this.options.maxSessionsPerZone) {
      throw new AppError('liveSessionLimitReached', `creating a new instant logs job is not allowed: the zone has ${this.options.maxSessionsPerZone} live sessions, the most allowed; close one or wait for it to expire`);
    }
    const now = this.options.clock.now();
    const session: LiveSession = {
      id: randomBytes(16).toString('hex'),
      zoneId,
      dataset,
      fields: input.fields,
      fieldNames: input.fieldNames,
      filter: input.filter,
      sample: input.sample,
      owner,
      createdAt: now,
    };
    this.local.set(session.id, { session, viewers: new Set(), idleSince: now });
    this.changed();
    return session;
  }

  /** Viewers of a session, and of its zone, on every node this node has heard of (its own included). */
  private viewerCounts(session: LiveSession): { session: number; zone: number } {
    let ofSession = 0;
    let ofZone = 0;
    const count = (s: LiveSession, viewers: number) => {
      if (s.zoneId !== session.zoneId) return;
      ofZone += viewers;
      if (s.id === session.id) ofSession += viewers;
    };
    for (const entry of this.local.values()) count(entry.session, entry.viewers.size);
    for (const { announcement } of this.remote.values()) for (const s of announcement.sessions) count(s.session, s.viewers);
    return { session: ofSession, zone: ofZone };
  }

  /**
   * Connects a viewer to a session (made here or on another node); past the viewer bound the socket is closed
   * at once with 4429 and a reason, and nothing is kept of it.
   */
  attach(session: LiveSession, socket: ViewerSocket): Viewer | undefined {
    const counts = this.viewerCounts(session);
    const max = this.options.maxViewers;
    if (counts.session >= max || counts.zone >= max) {
      const which = counts.session >= max ? 'session' : 'zone';
      socket.close(viewerCloseCodes.tooManyViewers, `too many viewers: this ${which} has ${max}, the most allowed (LOGEXPORT_LIVE_MAX_VIEWERS)`);
      return undefined;
    }
    let entry = this.local.get(session.id);
    if (entry === undefined) {
      entry = { session, viewers: new Set(), idleSince: this.options.clock.now() };
      this.local.set(session.id, entry);
    }
    const viewer: Viewer = { session, socket, buffer: new ViewerBuffer(socket, this.options.bufferRecords), events: 0, filteredOut: 0, sampledOut: 0, kept: 0 };
    entry.viewers.add(viewer);
    this.changed();
    return viewer;
  }

  /** A viewer left; its session waits the idle timeout for another one. */
  detach(viewer: Viewer): void {
    viewer.buffer.close();
    const entry = this.local.get(viewer.session.id);
    if (entry === undefined || !entry.viewers.delete(viewer)) return;
    if (entry.viewers.size === 0) entry.idleSince = this.options.clock.now();
    this.changed();
  }

  /** The sessions with a viewer somewhere, for ingest: one map lookup when nobody watches the zone. */
  watching(zoneId: string, dataset: string): { readonly key: string; readonly specs: readonly LiveTapSpec[] } | undefined {
    const found = this.watched.get(zoneId);
    if (found === undefined || dataset !== 'http_requests') return undefined;
    return found;
  }

  /** What an accepted request kept for the zone's sessions: to every node with a viewer of them. */
  deliver(zoneId: string, outputs: readonly LiveTapOutput[]): void {
    this.bus.publishRecords(zoneId, outputs);
  }

  /** Records from the bus: kept for the fan-out, which runs on the next turn (never on the request's own). */
  private receive(zoneId: string, outputs: readonly LiveTapOutput[]): void {
    this.pending.push({ zoneId, outputs });
    if (this.fanOutScheduled) return;
    this.fanOutScheduled = true;
    setImmediate(() => {
      this.fanOutScheduled = false;
      const batch = this.pending;
      this.pending = [];
      for (const { zoneId: zone, outputs: kept } of batch) this.fanOut(zone, kept);
    });
  }

  private fanOut(zoneId: string, outputs: readonly LiveTapOutput[]): void {
    for (const output of outputs) {
      const entry = this.local.get(output.sessionId);
      // Never another zone's records, whatever arrives on the bus.
      if (entry === undefined || entry.session.zoneId !== zoneId) continue;
      for (const viewer of entry.viewers) {
        viewer.events += output.events;
        viewer.filteredOut += output.filteredOut;
        viewer.sampledOut += output.sampledOut;
        viewer.kept += output.lines.length + output.overflow;
        viewer.buffer.push(output.lines, output.overflow);
      }
    }
  }

  private heard(announcement: LiveAnnouncement): void {
    if (announcement.node === this.options.nodeId) return;
    if (announcement.leaving === true) this.remote.delete(announcement.node);
    else this.remote.set(announcement.node, { at: this.options.clock.now(), announcement });
    this.rebuildWatched();
  }

  /** After a local change: what ingest evaluates, which zones this node hears, what it tells the others. */
  private changed(): void {
    this.rebuildWatched();
    for (const zoneId of this.listening) {
      if (![...this.local.values()].some((e) => e.session.zoneId === zoneId && e.viewers.size > 0)) {
        this.listening.delete(zoneId);
        this.bus.listen(zoneId, false);
      }
    }
    for (const entry of this.local.values()) {
      if (entry.viewers.size > 0 && !this.listening.has(entry.session.zoneId)) {
        this.listening.add(entry.session.zoneId);
        this.bus.listen(entry.session.zoneId, true);
      }
    }
    this.announce();
  }

  private rebuildWatched(): void {
    const byZone = new Map<string, Map<string, LiveSession>>();
    const add = (session: LiveSession) => {
      let zone = byZone.get(session.zoneId);
      if (zone === undefined) byZone.set(session.zoneId, (zone = new Map()));
      zone.set(session.id, session);
    };
    for (const entry of this.local.values()) if (entry.viewers.size > 0) add(entry.session);
    for (const { announcement } of this.remote.values()) for (const s of announcement.sessions) if (s.viewers > 0) add(s.session);
    const watched = new Map<string, { key: string; specs: LiveTapSpec[] }>();
    for (const [zoneId, sessions] of byZone) {
      const list = [...sessions.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
      const key = list.map((s) => s.id).join(',');
      // The same sessions keep the same key, so a worker compiles them once.
      const before = this.watched.get(zoneId);
      watched.set(
        zoneId,
        before?.key === key
          ? (before as { key: string; specs: LiveTapSpec[] })
          : {
              key,
              specs: list.map((s) => ({ sessionId: s.id, fieldNames: s.fieldNames, filter: s.filter, sample: s.sample, limit: this.options.bufferRecords })),
            },
      );
    }
    this.watched = watched;
  }

  private announce(leaving = false): void {
    if (!this.bus.shared) return;
    this.lastAnnounce = this.options.clock.now();
    this.bus.announce({
      node: this.options.nodeId,
      sessions: leaving ? [] : [...this.local.values()].map((e) => ({ session: e.session, viewers: e.viewers.size })),
      ...(leaving ? { leaving: true } : {}),
    });
  }

  private tick(): void {
    const now = this.options.clock.now();
    let expired = false;
    for (const [id, entry] of this.local) {
      for (const viewer of entry.viewers) this.sendStats(viewer);
      if (entry.viewers.size === 0 && now - entry.idleSince >= this.options.idleTimeoutMs) {
        this.local.delete(id);
        expired = true;
      }
    }
    let forgot = false;
    for (const [node, heard] of this.remote) {
      if (now - heard.at > forgetAfterMs) {
        this.remote.delete(node);
        forgot = true;
      }
    }
    if (expired) this.changed();
    else if (forgot) this.rebuildWatched();
    if (now - this.lastAnnounce >= announceEveryMs) this.announce();
    void this.recheckOwners();
  }

  /**
   * Checks the credential of every session with a viewer here, and closes the viewers of each whose credential
   * may no longer read the zone (revoked, expired, disabled, its grant narrowed). Runs every tick, and at once
   * when a token changes; one check at a time.
   */
  recheckOwners(): Promise<void> {
    this.checkingOwners ??= this.checkOwners().finally(() => (this.checkingOwners = undefined));
    return this.checkingOwners;
  }

  private async checkOwners(): Promise<void> {
    const watched = [...this.local.values()].filter((entry) => entry.viewers.size > 0);
    let dropped = false;
    for (const entry of watched) {
      const may = await this.options.mayWatch(entry.session).catch(() => true);
      if (may || this.closing !== undefined) continue;
      for (const viewer of entry.viewers) {
        viewer.buffer.close();
        viewer.socket.close(viewerCloseCodes.credentialRevoked, 'the credential that made this session was revoked or may no longer read the zone');
      }
      entry.viewers.clear();
      this.local.delete(entry.session.id);
      dropped = true;
    }
    if (dropped) this.changed();
  }

  /** Once a second, while records arrive: what the session saw, kept and lost, for records/s and previews. */
  private sendStats(viewer: Viewer): void {
    if (viewer.events === 0) return;
    const message = JSON.stringify({
      control: 'stats',
      events: viewer.events,
      filtered_out: viewer.filteredOut,
      sampled_out: viewer.sampledOut,
      kept: viewer.kept,
      sent_total: viewer.buffer.totals.sent,
      dropped_total: viewer.buffer.totals.dropped,
    });
    // A viewer whose socket is full gets the sums in a later message.
    if (!viewer.buffer.sendControl(message)) return;
    viewer.events = 0;
    viewer.filteredOut = 0;
    viewer.sampledOut = 0;
    viewer.kept = 0;
  }

  /** Closes every viewer, tells the other nodes, and stops; once (shutdown calls it before the server closes). */
  async close(): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    this.closing = this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    for (const entry of this.local.values()) {
      for (const viewer of entry.viewers) {
        viewer.buffer.close();
        viewer.socket.close(1001, 'the node is stopping');
      }
    }
    this.local.clear();
    this.announce(true);
    await this.bus.close();
  }
}
