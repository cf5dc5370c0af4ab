/**
 * What ingest did on this node, per zone and per way in (HTTP ingest, OTLP, tailed files): requests,
 * events durably queued, events acknowledged but dropped (by reason: `no_job`, `unknown_host`), events
 * rejected one by one (by reason, e.g. an OTLP record that is no HTTP request log), and when an event last
 * came in. `/metrics` prints them, the node keeps them in its data directory for `logexport sources` and
 * `logexport doctor` (stored-ingest-figures.ts), and they continue from there after a restart.
 */
import type { Clock } from '../core/clock.ts';
import type { RejectionWarnings } from './rejection-warnings.ts';

/** The ways events come in. */
export type WayIn = 'http' | 'otlp' | 'tail';
export const waysIn: readonly WayIn[] = ['http', 'otlp', 'tail'];

/** What one way in did (for a zone, or for events that found no zone). */
export interface WayInCounters {
  /** Requests received (HTTP ingest and OTLP; a tailed file has no requests). */
  requests: number;
  /** Requests refused whole (bad lines, queue unavailable). */
  rejected_requests: number;
  /** Events durably queued. */
  accepted_events: number;
  /** Events acknowledged but not queued, by reason. */
  dropped: Record<string, number>;
  /** Events refused one by one while the rest of their request was taken, by reason. */
  rejected_events: Record<string, number>;
  /** When an event last came in this way (ISO 8601), whatever happened to it; null when none has. */
  last_event_at: string | null;
}

/** What ingest did for one zone (or for events that found no zone): totals, and the same per way in. */
export interface IngestCounters extends WayInCounters {
  way_in: Record<WayIn, WayInCounters>;
}

/** Rejected events of one request or batch: how many, how many per reason, and the first few with why. */
export interface RejectedEvents {
  readonly count: number;
  readonly byReason: Readonly<Record<string, number>>;
  /** The first few: the reason, and a sentence naming the event and why (`log record 3: no zone serves the host "x"`). */
  readonly first: readonly { readonly reason: string; readonly text: string }[];
}

/** Every figure, as the node stores it and `logexport sources` prints it. */
export interface IngestFiguresSnapshot {
  readonly zones: Readonly<Record<string, IngestCounters>>;
  readonly unrouted: IngestCounters;
}

function emptyWayIn(): WayInCounters {
  return { requests: 0, rejected_requests: 0, accepted_events: 0, dropped: {}, rejected_events: {}, last_event_at: null };
}

/** Counters at zero. */
export function emptyIngestCounters(): IngestCounters {
  return { ...emptyWayIn(), way_in: { http: emptyWayIn(), otlp: emptyWayIn(), tail: emptyWayIn() } };
}

function addTo(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [reason, n] of Object.entries(from)) if (n > 0) into[reason] = (into[reason] ?? 0) + n;
}

function later(a: string | null, b: string | null): string | null {
  return a === null ? b : b === null ? a : a > b ? a : b;
}

function addWayIn(into: WayInCounters, from: Partial<WayInCounters>): void {
  into.requests += from.requests ?? 0;
  into.rejected_requests += from.rejected_requests ?? 0;
  into.accepted_events += from.accepted_events ?? 0;
  addTo(into.dropped, from.dropped ?? {});
  addTo(into.rejected_events, from.rejected_events ?? {});
  into.last_event_at = later(into.last_event_at, from.last_event_at ?? null);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function countsOf(value: unknown): Record<string, number> {
  const counts: Record<string, number> = {};
  if (isRecord(value)) for (const [key, n] of Object.entries(value)) if (typeof n === 'number' && Number.isFinite(n) && n > 0) counts[key] = n;
  return counts;
}

function wayInOf(value: unknown): WayInCounters {
  const v = isRecord(value) ? value : {};
  const n = (key: string) => (typeof v[key] === 'number' && Number.isFinite(v[key]) ? (v[key] as number) : 0);
  return {
    requests: n('requests'),
    rejected_requests: n('rejected_requests'),
    accepted_events: n('accepted_events'),
    dropped: countsOf(v.dropped),
    rejected_events: countsOf(v.rejected_events),
    last_event_at: typeof v.last_event_at === 'string' ? v.last_event_at : null,
  };
}

/** Reads stored counters leniently: a missing or malformed figure counts as zero (figures never stop a node). */
export function parseIngestCounters(value: unknown): IngestCounters {
  const ways = isRecord(value) && isRecord(value.way_in) ? value.way_in : {};
  return { ...wayInOf(value), way_in: { http: wayInOf(ways.http), otlp: wayInOf(ways.otlp), tail: wayInOf(ways.tail) } };
}

/** A change to one zone's counters for one way in. */
type Change = Partial<Omit<WayInCounters, 'last_event_at'>> & { readonly events?: number };

export class IngestFigures {
  /** Per zone id. */
  readonly zones = new Map<string, IngestCounters>();
  /** Events that found no zone (`unknown_host`, and OTLP records rejected before they had one). */
  readonly unrouted = emptyIngestCounters();
  private readonly clock: Clock;
  private readonly warnings: RejectionWarnings | undefined;
  /** Bumped on every change, so the store writes only when something changed. */
  private version = 0;

  constructor(clock: Clock, warnings?: RejectionWarnings, from?: IngestFiguresSnapshot) {
    this.clock = clock;
    this.warnings = warnings;
    if (from !== undefined) {
      for (const [zoneId, counters] of Object.entries(from.zones)) this.zones.set(zoneId, parseIngestCounters(counters));
      const unrouted = parseIngestCounters(from.unrouted);
      addWayIn(this.unrouted, unrouted);
      for (const way of waysIn) addWayIn(this.unrouted.way_in[way], unrouted.way_in[way]);
    }
  }

  /** A number that changes whenever a figure does. */
  changes(): number {
    return this.version;
  }

  /** The counters of a zone ('' for events with no zone). */
  of(zoneId: string): IngestCounters {
    if (zoneId === '') return this.unrouted;
    let counters = this.zones.get(zoneId);
    if (counters === undefined) {
      counters = emptyIngestCounters();
      this.zones.set(zoneId, counters);
    }
    return counters;
  }

  /** Adds to a zone's counters for a way in, and to its totals; `events` > 0 marks that events came in now. */
  count(zoneId: string, way: WayIn, change: Change): void {
    const counters = this.of(zoneId);
    const at = (change.events ?? 0) > 0 ? new Date(this.clock.now()).toISOString() : null;
    const delta = { ...change, last_event_at: at };
    addWayIn(counters, delta);
    addWayIn(counters.way_in[way], delta);
    this.version += 1;
  }

  /** Counts events dropped (acknowledged, not queued) for a reason. */
  dropped(zoneId: string, way: WayIn, reason: string, events: number): void {
    if (events > 0) this.count(zoneId, way, { dropped: { [reason]: events }, events });
  }

  /**
   * Counts events rejected one by one, per reason, and warns about them in the log: at most one line a
   * minute per zone, way in and reason, with how many since the last line and the first reasons.
   */
  rejected(zoneId: string, way: WayIn, rejected: RejectedEvents): void {
    if (rejected.count <= 0) return;
    this.count(zoneId, way, { rejected_events: { ...rejected.byReason }, events: rejected.count });
    this.warnings?.note(zoneId, way, rejected);
  }

  /** Every figure, as plain data (a copy). */
  snapshot(): IngestFiguresSnapshot {
    return structuredClone({ zones: Object.fromEntries(this.zones), unrouted: this.unrouted });
  }
}
