/**
 * How live records and sessions travel between nodes. Embedded (one node): in the process. Scaled out on
 * NATS: core subjects — records per zone, heard only by nodes with a viewer of that zone (interest-based,
 * nothing persisted), and each node's sessions announced to the others.
 */
import type { LiveTapOutput } from '../ingest/live-tap.ts';
import type { LiveSession } from './live-session.ts';

/** One node's sessions as it announces them: each with the number of viewers connected to that node. */
export interface LiveAnnouncement {
  readonly node: string;
  readonly sessions: readonly { readonly session: LiveSession; readonly viewers: number }[];
  /** The node is stopping: forget its sessions now. */
  readonly leaving?: boolean;
}

/** What a bus tells the hub. */
export interface LiveBusHandlers {
  /** What one request gave the sessions of a zone this node listens to. */
  onRecords(zoneId: string, outputs: readonly LiveTapOutput[]): void;
  /** Another node's sessions. */
  onAnnouncement(announcement: LiveAnnouncement): void;
  /** A node started and asks every node to announce its sessions now. */
  onHello(): void;
}

/** The transport between a node's hub and every hub (its own included). */
export interface LiveBus {
  /** True when other nodes may hear this one (announcements matter). */
  readonly shared: boolean;
  start(handlers: LiveBusHandlers): Promise<void>;
  publishRecords(zoneId: string, outputs: readonly LiveTapOutput[]): void;
  /** Starts, or stops, hearing a zone's records. */
  listen(zoneId: string, on: boolean): void;
  announce(announcement: LiveAnnouncement): void;
  close(): Promise<void>;
}
