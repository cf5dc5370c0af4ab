/**
 * What a request handler knows besides its input: the services the API was built with (`ApiDeps`), and
 * what the server's hooks attached to the request (the authenticated principal, the authorized zone).
 * Routes and the server both import this module; routes never import the server.
 */
import type { ResolveTxt } from '../accounts/accounts.ts';
import type { AuthThrottle } from '../accounts/auth-throttle.ts';
import type { AppConfig } from '../config/config.ts';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../core/app-error.ts';
import type { Clock } from '../core/clock.ts';
import type { CounterRegistry } from '../delivery/counter-registry.ts';
import type { Ingestor } from '../ingest/ingest.ts';
import type { LiveHub } from '../live/live-hub.ts';
import type { ZoneDirectory } from '../sources/zone-directory.ts';
import type { TailStatus } from '../sources/tail/tail-status.ts';
import type { RetainedSource } from '../retention/retained-reader.ts';
import type { Replays } from '../retention/replay-runner.ts';
import type { CompactionStatus } from '../retention/compactor.ts';
import type { Dataset } from '../domain/datasets/http-requests.ts';
import type { SandboxAnswer } from '../explorer/sandbox-query.ts';
import type { Job, Store, Zone } from '../store/store.ts';
import type { Access, Principal } from './auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    zone?: Zone;
  }
  interface FastifyContextConfig {
    /** What a zone route does with the zone; GET routes read, everything else edits, unless set. */
    access?: Access;
    /** The route answers without credentials (sign-in). */
    public?: boolean;
  }
}

/** Told when zone configuration or a token changes, so the data plane and Instant Logs pick it up. */
export interface ConfigChangeListener {
  zoneChanged(zoneId: string): void;
  /** A token was changed, rolled or revoked: live viewers it opened are checked again at once. */
  tokenChanged(tokenId: string): void;
}

/** What the data plane must do when a job starts or stops running. */
export interface JobLifecycle {
  /** Before a job is stored as enabled (created enabled, or enabled again): it exports events from now on. */
  beforeEnable(job: Job): Promise<void>;
  /** After a job was disabled or deleted. */
  afterDisable(job: Job): Promise<void>;
}

/** The data plane as the API sees it: ingest, back-pressure, and the job counters. */
export interface DataPlaneApi {
  readonly ingestor: Ingestor;
  readonly counters: CounterRegistry;
  /** Queued bytes not yet delivered by every job. */
  pendingBytes(): number;
  /** False once the node is stopping: ingest answers 503. */
  accepting(): boolean;
  /** The status of every tailed file. */
  sources(): readonly TailStatus[];
}

/** Retained logs as the API sees them: the flag's side effects and the segments to read. */
export interface RetentionApi {
  readonly source: RetainedSource;
  /** How long events are kept (LOGEXPORT_RETENTION_DAYS), in ms. */
  readonly retentionMs: number;
  /** Before the flag is stored as on: the zone's retention consumer starts at the end of its stream. */
  beforeEnable(zoneId: string): Promise<void>;
  /** After the flag was stored as off. */
  afterDisable(zoneId: string): Promise<void>;
  /** Retained events this node wrote into segments, per zone. */
  readonly written: ReadonlyMap<string, number>;
  /** How the compaction of hot segments stands on this node. */
  compaction(): CompactionStatus;
  /** Replays of jobs over past windows, run by this node. */
  readonly replays: Replays;
}

/** Log Explorer's SQL as the API sees it: one SELECT over a zone's retained events (src/explorer/). */
export interface ExplorerApi {
  run(zoneId: string, dataset: Dataset, sql: string): Promise<SandboxAnswer>;
}

/** What the API needs from the rest of the service. */
export interface ApiDeps {
  readonly config: AppConfig;
  readonly store: Store;
  readonly clock: Clock;
  /** Signs ownership challenges and sessions. */
  readonly secret: string;
  readonly changes: ConfigChangeListener;
  readonly jobs: JobLifecycle;
  readonly dataPlane: DataPlaneApi;
  /** Instant Logs: the live sessions and their viewers. */
  readonly live: Pick<LiveHub, 'create' | 'list' | 'find' | 'attach' | 'detach'>;
  /** Every zone by name, for the sources that route events by host (the host-routed OTLP endpoint). */
  readonly zoneDirectory: ZoneDirectory;
  readonly retention: RetentionApi;
  readonly explorer: ExplorerApi;
  /** The built dashboard (web/dist). */
  readonly dashboardDir: string;
  /** Counts failed sign-ins and credential checks; answers 429 past the limit. */
  readonly throttle: AuthThrottle;
  /** The system resolver's TXT lookup (node:dns), for zone verification; tests give their own. */
  readonly resolveTxt: ResolveTxt;
}

/** The authenticated principal of a request that passed the zone or user hook. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === undefined) throw new AppError('missingAuthHeaders');
  return request.principal;
}

/** The zone of a zone route, checked for access by the zone hook. */
export function zoneOf(request: FastifyRequest): Zone {
  if (request.zone === undefined) throw new AppError('notAuthorized');
  return request.zone;
}
