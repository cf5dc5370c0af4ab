/**
 * The store: users, credentials, zones, rulesets (every version kept), jobs and their status.
 * One implementation (kysely-store.ts) over two engines (SQLite, PostgreSQL); one contract suite
 * (test/store/store-contract.test.ts) runs against both.
 */

import type { ExplorerDataset } from '../domain/explorer/explorer-dataset.ts';
import type { JobSettings } from '../domain/jobs/job-settings.ts';
import type { StoredRule } from '../domain/rulesets/stored-rule.ts';
import type { ReplayProgress, ReplayStatus } from '../domain/jobs/replay-progress.ts';

/** A permission an API token can carry. */
export type Permission = 'logs:read' | 'logs:edit' | 'logs:ingest';
export const permissions: readonly Permission[] = ['logs:read', 'logs:edit', 'logs:ingest'];

/** A person who signs in to the dashboard or calls the API with the global key. */
export interface User {
  readonly id: string;
  readonly email: string;
  readonly passwordHash: string | null;
  readonly apiKeyHash: string;
  readonly createdAt: string;
}

/** One grant of an API token: these permissions on these zones (a policy of the public API). */
export interface TokenPolicy {
  readonly id: string;
  readonly zoneIds: readonly string[];
  readonly permissions: readonly Permission[];
}

/** Whether a token may be used: `disabled` by its owner; an expired one is `active` past its `expiresOn`. */
export type TokenStatus = 'active' | 'disabled';

/** An API token: a hashed bearer secret scoped to zones and permissions, by one or more grants. */
export interface ApiToken {
  readonly id: string;
  readonly userId: string;
  readonly tokenHash: string;
  readonly name: string;
  readonly status: TokenStatus;
  readonly policies: readonly TokenPolicy[];
  /** RFC 3339; the token is refused from then on. */
  readonly expiresOn: string | null;
  /** RFC 3339; the token is refused until then. */
  readonly notBefore: string | null;
  readonly createdAt: string;
  readonly modifiedOn: string;
}

/** A zone is `pending` until its owner proves the domain (when the operator requires it), then `active`. */
export type ZoneStatus = 'pending' | 'active';

/** A domain whose request logs are exported. */
export interface Zone {
  readonly id: string;
  readonly name: string;
  readonly userId: string;
  readonly createdAt: string;
  /** Only an active zone receives host-routed events (tail, OTLP by host). */
  readonly status: ZoneStatus;
  /** What the zone's DNS TXT record must hold to be verified; null when there is nothing to verify. */
  readonly verificationToken: string | null;
}

/** What creating a zone came to: made, or refused because its name is taken or its owner has enough zones. */
export type ZoneCreation = 'created' | 'taken' | 'limitReached';

/** A change other nodes must hear of: a zone's configuration, or an API token (changed, revoked). */
export type ConfigChange =
  | { readonly seq: number; readonly kind: 'zone'; readonly zoneId: string }
  | { readonly seq: number; readonly kind: 'token'; readonly tokenId: string };

/** A dashboard session; `idHash` is the hash of the cookie value. */
export interface Session {
  readonly idHash: string;
  readonly userId: string;
  readonly csrfToken: string;
  readonly expiresAt: string;
}

/** A ruleset's identity and one version's metadata. */
export interface RulesetMeta {
  readonly id: string;
  readonly zoneId: string;
  readonly kind: string;
  readonly phase: string;
  readonly name: string;
  readonly description: string;
  readonly version: number;
  readonly lastUpdated: string;
}

/** One version of a ruleset with its rules. */
export interface RulesetSnapshot extends RulesetMeta {
  readonly rules: readonly StoredRule[];
}

/** A log export job as stored; `filter`, `outputOptions` and `logpullOptions` are kept exactly as sent. */
export interface Job extends JobSettings {
  readonly id: number;
  readonly zoneId: string;
  readonly lastComplete: string | null;
  readonly lastError: string | null;
  readonly errorMessage: string | null;
  /** When deliveries started failing without a success since; a job failing too long is disabled. */
  readonly failingSince: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What the data plane records about a job's deliveries. */
export type JobStatus = Partial<Pick<Job, 'lastComplete' | 'lastError' | 'errorMessage' | 'failingSince' | 'enabled'>>;

/** One node's counters of one job, as JSON text. */
export interface JobCounterRow {
  readonly jobId: number;
  readonly node: string;
  readonly counters: string;
  readonly updatedAt: string;
}

/** Who made a change: a user (key or dashboard), an API token of a user, or logexport itself. */
export interface AuditActor {
  readonly type: 'user' | 'token' | 'system';
  /** The user's id, the token's id, or null for the system. */
  readonly id: string | null;
  readonly email: string | null;
  readonly ip: string | null;
}

/** One entry of the audit log: a change (or a sign-in), as the public product's audit log shows it. */
export interface AuditEntry {
  readonly id: string;
  /** When, RFC 3339. */
  readonly when: string;
  readonly action: { readonly type: string; readonly result: boolean };
  readonly actor: AuditActor;
  /** The user whose account this is about (the zone's owner, or who signed in); null when unknown. */
  readonly ownerId: string | null;
  readonly resource: { readonly type: string; readonly id: string | null };
  readonly zone: { readonly id: string; readonly name: string } | null;
  /** The resource before and after, as JSON text with secrets masked; null when there is none. */
  readonly oldValue: string | null;
  readonly newValue: string | null;
  /** Anything else worth keeping about the action, as JSON text. */
  readonly metadata: string | null;
}

/** Which audit entries to list: always one owner's, optionally narrowed; newest first unless `direction` is asc. */
export interface AuditQuery {
  readonly ownerId: string;
  /** Only entries of these zones (an API token sees its zones only). */
  readonly zoneIds?: readonly string[];
  readonly since?: string;
  readonly before?: string;
  readonly zoneName?: string;
  readonly actionType?: string;
  readonly actorEmail?: string;
  /** An exact address, or a range in CIDR notation. */
  readonly actorIp?: string;
  readonly id?: string;
  /** Only entries about this resource (`logexport.job` 12). */
  readonly resource?: { readonly type: string; readonly id: string };
  /** Leave out entries about no zone (sign-ins). */
  readonly zoneEntriesOnly?: boolean;
  readonly direction: 'asc' | 'desc';
  readonly page: number;
  readonly perPage: number;
}

/** Failed credential checks counted under one key in the current window. */
export interface AuthFailureCount {
  readonly failures: number;
  /** When the window started, ms since the epoch; it ends `windowMs` later. */
  readonly windowStartMs: number;
}

/** A unique constraint refused a write (duplicate zone name, second ruleset for a phase, …). */
export class UniqueViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UniqueViolation';
  }
}

/** Persistent state of the control plane. */
export interface Store {
  /** Runs `work` in one transaction; inside it, `store` sees and writes the transaction's state. */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  close(): Promise<void>;

  getSetting(key: string): Promise<string | undefined>;
  /** Stores `value` under `key` unless a value is there already; returns the value that is kept. */
  putSettingIfAbsent(key: string, value: string): Promise<string>;
  /** Stores `value` under `key`, replacing what was there. */
  putSetting(key: string, value: string): Promise<void>;
  deleteSetting(key: string): Promise<void>;

  createUser(user: User): Promise<void>;
  findUserByEmail(email: string): Promise<User | undefined>;
  findUserById(id: string): Promise<User | undefined>;
  findUserByApiKeyHash(apiKeyHash: string): Promise<User | undefined>;

  createToken(token: ApiToken): Promise<void>;
  findTokenByHash(tokenHash: string): Promise<ApiToken | undefined>;
  /** A user's token by id; undefined when the user has no such token. */
  findToken(userId: string, tokenId: string): Promise<ApiToken | undefined>;
  listTokens(userId: string): Promise<readonly ApiToken[]>;
  /** Rewrites a token (name, status, grants, dates, hash when rolled); records a token change. False when there was none. */
  updateToken(token: ApiToken): Promise<boolean>;
  /** Deletes a user's token; records a token change. False when there was none. */
  deleteToken(userId: string, tokenId: string): Promise<boolean>;

  createSession(session: Session): Promise<void>;
  findSession(idHash: string): Promise<Session | undefined>;
  deleteSession(idHash: string): Promise<void>;
  deleteExpiredSessions(now: string): Promise<void>;

  /**
   * Creates a zone unless its name equals, lies above or beneath a zone of another user (`taken`, as a unique
   * violation would be), or its owner has `maxZonesPerUser` zones already; safe under concurrent creates.
   */
  createZone(zone: Zone, limits?: { readonly maxZonesPerUser?: number }): Promise<ZoneCreation>;
  /** Marks a pending zone active (its domain was verified); false when there was no such pending zone. */
  activateZone(zoneId: string): Promise<boolean>;
  findZone(id: string): Promise<Zone | undefined>;
  findZoneByName(name: string): Promise<Zone | undefined>;
  listZones(userId: string): Promise<readonly Zone[]>;
  /** Every zone of every user (what routing by host chooses from). */
  listAllZones(): Promise<readonly Zone[]>;

  listRulesets(zoneId: string): Promise<readonly RulesetMeta[]>;
  getRuleset(zoneId: string, rulesetId: string): Promise<RulesetSnapshot | undefined>;
  findRulesetByPhase(zoneId: string, phase: string): Promise<RulesetSnapshot | undefined>;
  /** Inserts a new ruleset as version 1 (or whatever `snapshot.version` says); UniqueViolation if the phase has one. */
  insertRuleset(snapshot: RulesetSnapshot): Promise<void>;
  /**
   * Makes `snapshot` the current version, keeping the old one in the history.
   * Returns false when the current version is no longer `expectedVersion` (a concurrent change won).
   */
  updateRuleset(snapshot: RulesetSnapshot, expectedVersion: number): Promise<boolean>;
  /** Deletes the ruleset and all its versions; false when there was none. */
  deleteRuleset(zoneId: string, rulesetId: string): Promise<boolean>;
  listRulesetVersions(zoneId: string, rulesetId: string): Promise<readonly RulesetMeta[]>;
  getRulesetVersion(zoneId: string, rulesetId: string, version: number): Promise<RulesetSnapshot | undefined>;
  /** Deletes one past version; false when there was none. */
  deleteRulesetVersion(zoneId: string, rulesetId: string, version: number): Promise<boolean>;

  listJobs(zoneId: string): Promise<readonly Job[]>;
  getJob(zoneId: string, jobId: number): Promise<Job | undefined>;
  /** Every job of every zone (what `logexport secrets rotate` re-encrypts). */
  listAllJobs(): Promise<readonly Job[]>;
  /** Rewrites a job's stored destination_conf in another encoding of the same destination (sealed secrets); not a configuration change. */
  setJobDestinationConf(jobId: number, destinationConf: string): Promise<void>;
  /** Every enabled job of every zone (what the runners run). */
  listEnabledJobs(): Promise<readonly Job[]>;
  /** Creates a job unless the zone has `maxJobs` already (then undefined); safe under concurrent creates. */
  createJob(zoneId: string, settings: JobSettings, now: string, maxJobs: number): Promise<Job | undefined>;
  /** Changes a job's settings; undefined when the zone has no such job. */
  updateJob(zoneId: string, jobId: number, changes: Partial<JobSettings>, now: string): Promise<Job | undefined>;
  deleteJob(zoneId: string, jobId: number): Promise<boolean>;
  /** Records delivery status (and disables a job that failed too long); not a configuration change unless `enabled` changes. */
  setJobStatus(jobId: number, status: JobStatus): Promise<void>;

  putJobCounters(row: JobCounterRow): Promise<void>;
  listJobCounters(jobId: number): Promise<readonly JobCounterRow[]>;

  /**
   * Configuration changes (rulesets, jobs) in order; every mutating method above records one in its own
   * transaction, so a node that follows them sees every change.
   */
  configChangesSince(seq: number): Promise<readonly ConfigChange[]>;
  latestConfigChange(): Promise<number>;
  /** Forgets changes recorded before `before` (RFC 3339); every node has long read them. */
  pruneConfigChanges(before: string): Promise<void>;

  /** Adds an entry to the audit log; inside `transaction`, it is kept only if the change is. */
  appendAudit(entry: AuditEntry): Promise<void>;
  /** One page of an owner's audit entries and how many match in all. */
  listAudit(query: AuditQuery): Promise<{ readonly entries: readonly AuditEntry[]; readonly total: number }>;
  /** Forgets audit entries from before `before` (RFC 3339); answers how many. */
  pruneAudit(before: string): Promise<number>;

  /** Counts one failed credential check under `key`, starting a new window when the last one ended. */
  recordAuthFailure(key: string, nowMs: number, windowMs: number): Promise<AuthFailureCount>;
  /** Forgets the failures of these keys (after a success). */
  clearAuthFailures(keys: readonly string[]): Promise<void>;
  /** Takes back one count of `key`'s open window (an attempt counted before it was checked, that succeeded). */
  releaseAuthFailure(key: string, nowMs: number, windowMs: number): Promise<void>;
  /** Forgets windows that started before `beforeMs`. */
  pruneAuthFailures(beforeMs: number): Promise<void>;

  /** Whether the zone keeps its events for Logpull (off unless turned on). */
  getRetentionFlag(zoneId: string): Promise<boolean>;
  /** Turns retention on or off for a zone; a configuration change. */
  setRetentionFlag(zoneId: string, flag: boolean, now: string): Promise<void>;
  /** Every zone whose retention flag is on or that has an enabled `http_requests` Log Explorer dataset (what the retention writers run for). */
  listRetentionZones(): Promise<readonly string[]>;
  /** Since when the zone's retention flag has been on (RFC 3339), or undefined while it is off. */
  getRetentionSince(zoneId: string): Promise<string | undefined>;

  /** A zone's Log Explorer datasets, oldest first. */
  listExplorerDatasets(zoneId: string): Promise<readonly ExplorerDataset[]>;
  getExplorerDataset(zoneId: string, id: string): Promise<ExplorerDataset | undefined>;
  /** Stores a new dataset; UniqueViolation when the zone has one of its type already. A configuration change. */
  createExplorerDataset(dataset: ExplorerDataset): Promise<void>;
  /** Rewrites a dataset's settings; false when the zone has no such dataset. A configuration change. */
  updateExplorerDataset(dataset: ExplorerDataset): Promise<boolean>;
  /** Deletes a dataset; false when there was none. A configuration change. */
  deleteExplorerDataset(zoneId: string, id: string): Promise<boolean>;

  /** Keeps a job's latest replay, replacing the one before. */
  saveReplay(replay: StoredReplay): Promise<void>;
  /** A job's latest replay, if it ever had one. */
  getReplay(jobId: number): Promise<StoredReplay | undefined>;
  /** The replays a node runs or queued, in these states, oldest first (what it resumes after a restart). */
  listReplays(nodeId: string, statuses: readonly ReplayStatus[]): Promise<readonly StoredReplay[]>;
}

/** A job's replay as the store keeps it: the progress the API answers, and what resuming it needs. */
export interface StoredReplay {
  readonly progress: ReplayProgress;
  readonly zoneId: string;
  /** The window in Unix nanoseconds (decimal digits): start inclusive, end exclusive. */
  readonly startNs: string;
  readonly endNs: string;
  /** The node that runs it. */
  readonly nodeId: string;
  readonly updatedAt: string;
}
