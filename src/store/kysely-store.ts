import type { Kysely } from 'kysely';
import type { JobSettings } from '../domain/jobs/job-settings.ts';
import type { ExplorerDataset } from '../domain/explorer/explorer-dataset.ts';
import type { ReplayStatus } from '../domain/jobs/replay-progress.ts';
import type { Database, Engine } from './database.ts';
import * as accounts from './queries/account-queries.ts';
import * as audit from './queries/audit-queries.ts';
import * as authFailures from './queries/auth-failure-queries.ts';
import * as changes from './queries/config-change-queries.ts';
import * as explorer from './queries/explorer-dataset-queries.ts';
import * as jobs from './queries/job-queries.ts';
import * as retention from './queries/retention-queries.ts';
import type { Db } from './queries/query-db.ts';
import * as rulesets from './queries/ruleset-queries.ts';
import * as settings from './queries/setting-queries.ts';
import * as zones from './queries/zone-queries.ts';
import type { ApiToken, AuditEntry, AuditQuery, AuthFailureCount, ConfigChange, Job, JobCounterRow, JobStatus, RulesetMeta, RulesetSnapshot, Session, Store, StoredReplay, User, Zone, ZoneCreation } from './store.ts';

/**
 * The store over Kysely: the queries live in queries/, one module per aggregate (accounts, zones,
 * rulesets, jobs, configuration changes, settings); this class hands each the database or the
 * transaction it runs in. The engine-specific parts live in sqlite.ts and postgres.ts.
 */
export class KyselyStore implements Store {
  private readonly db: Db;
  private readonly engine: Engine;
  private readonly root: Kysely<Database> | undefined;

  /** `root` is given for the store itself and left out for the view of one transaction. */
  constructor(db: Db, engine: Engine, root?: Kysely<Database>) {
    this.db = db;
    this.engine = engine;
    this.root = root;
  }

  async transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    if (this.root === undefined) return work(this);
    return this.root.transaction().execute((trx) => work(new KyselyStore(trx, this.engine)));
  }

  /** Runs `work` on the database of one transaction (this one, or a new one). */
  private inTransaction<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return this.transaction((tx) => work((tx as KyselyStore).db));
  }

  async close(): Promise<void> {
    await this.root?.destroy();
  }

  getSetting(key: string): Promise<string | undefined> {
    return settings.getSetting(this.db, key);
  }

  putSettingIfAbsent(key: string, value: string): Promise<string> {
    return settings.putSettingIfAbsent(this.db, key, value);
  }

  putSetting(key: string, value: string): Promise<void> {
    return settings.putSetting(this.db, key, value);
  }

  deleteSetting(key: string): Promise<void> {
    return settings.deleteSetting(this.db, key);
  }

  createUser(user: User): Promise<void> {
    return accounts.createUser(this.db, user);
  }

  findUserByEmail(email: string): Promise<User | undefined> {
    return accounts.findUserByEmail(this.db, email);
  }

  findUserById(id: string): Promise<User | undefined> {
    return accounts.findUserById(this.db, id);
  }

  findUserByApiKeyHash(apiKeyHash: string): Promise<User | undefined> {
    return accounts.findUserByApiKeyHash(this.db, apiKeyHash);
  }

  createToken(token: ApiToken): Promise<void> {
    return accounts.createToken(this.db, token);
  }

  findTokenByHash(tokenHash: string): Promise<ApiToken | undefined> {
    return accounts.findTokenByHash(this.db, tokenHash);
  }

  findToken(userId: string, tokenId: string): Promise<ApiToken | undefined> {
    return accounts.findToken(this.db, userId, tokenId);
  }

  listTokens(userId: string): Promise<readonly ApiToken[]> {
    return accounts.listTokens(this.db, userId);
  }

  updateToken(token: ApiToken): Promise<boolean> {
    return this.inTransaction((db) => accounts.updateToken(db, token));
  }

  deleteToken(userId: string, tokenId: string): Promise<boolean> {
    return this.inTransaction((db) => accounts.deleteToken(db, userId, tokenId));
  }

  createSession(session: Session): Promise<void> {
    return accounts.createSession(this.db, session);
  }

  findSession(idHash: string): Promise<Session | undefined> {
    return accounts.findSession(this.db, idHash);
  }

  deleteSession(idHash: string): Promise<void> {
    return accounts.deleteSession(this.db, idHash);
  }

  deleteExpiredSessions(now: string): Promise<void> {
    return accounts.deleteExpiredSessions(this.db, now);
  }

  createZone(zone: Zone, limits: { readonly maxZonesPerUser?: number } = {}): Promise<ZoneCreation> {
    return this.inTransaction((db) => zones.createZone(db, this.engine, zone, limits.maxZonesPerUser));
  }

  activateZone(zoneId: string): Promise<boolean> {
    return zones.activateZone(this.db, zoneId);
  }

  findZone(id: string): Promise<Zone | undefined> {
    return zones.findZone(this.db, id);
  }

  findZoneByName(name: string): Promise<Zone | undefined> {
    return zones.findZoneByName(this.db, name);
  }

  listZones(userId: string): Promise<readonly Zone[]> {
    return zones.listZones(this.db, userId);
  }

  listAllZones(): Promise<readonly Zone[]> {
    return zones.listAllZones(this.db);
  }

  listRulesets(zoneId: string): Promise<readonly RulesetMeta[]> {
    return rulesets.listRulesets(this.db, zoneId);
  }

  getRuleset(zoneId: string, rulesetId: string): Promise<RulesetSnapshot | undefined> {
    return rulesets.getRuleset(this.db, zoneId, rulesetId);
  }

  findRulesetByPhase(zoneId: string, phase: string): Promise<RulesetSnapshot | undefined> {
    return rulesets.findRulesetByPhase(this.db, zoneId, phase);
  }

  insertRuleset(snapshot: RulesetSnapshot): Promise<void> {
    return this.inTransaction((db) => rulesets.insertRuleset(db, snapshot));
  }

  updateRuleset(snapshot: RulesetSnapshot, expectedVersion: number): Promise<boolean> {
    return this.inTransaction((db) => rulesets.updateRuleset(db, snapshot, expectedVersion));
  }

  deleteRuleset(zoneId: string, rulesetId: string): Promise<boolean> {
    return this.inTransaction((db) => rulesets.deleteRuleset(db, zoneId, rulesetId));
  }

  listRulesetVersions(zoneId: string, rulesetId: string): Promise<readonly RulesetMeta[]> {
    return rulesets.listRulesetVersions(this.db, zoneId, rulesetId);
  }

  getRulesetVersion(zoneId: string, rulesetId: string, version: number): Promise<RulesetSnapshot | undefined> {
    return rulesets.getRulesetVersion(this.db, zoneId, rulesetId, version);
  }

  deleteRulesetVersion(zoneId: string, rulesetId: string, version: number): Promise<boolean> {
    return rulesets.deleteRulesetVersion(this.db, zoneId, rulesetId, version);
  }

  listJobs(zoneId: string): Promise<readonly Job[]> {
    return jobs.listJobs(this.db, zoneId);
  }

  getJob(zoneId: string, jobId: number): Promise<Job | undefined> {
    return jobs.getJob(this.db, zoneId, jobId);
  }

  listAllJobs(): Promise<readonly Job[]> {
    return jobs.listAllJobs(this.db);
  }

  setJobDestinationConf(jobId: number, destinationConf: string): Promise<void> {
    return jobs.setJobDestinationConf(this.db, jobId, destinationConf);
  }

  listEnabledJobs(): Promise<readonly Job[]> {
    return jobs.listEnabledJobs(this.db);
  }

  createJob(zoneId: string, settings: JobSettings, now: string, maxJobs: number): Promise<Job | undefined> {
    return this.inTransaction((db) => jobs.createJob(db, this.engine, zoneId, settings, now, maxJobs));
  }

  updateJob(zoneId: string, jobId: number, changes: Partial<JobSettings>, now: string): Promise<Job | undefined> {
    return this.inTransaction((db) => jobs.updateJob(db, zoneId, jobId, changes, now));
  }

  deleteJob(zoneId: string, jobId: number): Promise<boolean> {
    return this.inTransaction((db) => jobs.deleteJob(db, zoneId, jobId));
  }

  setJobStatus(jobId: number, status: JobStatus): Promise<void> {
    return this.inTransaction((db) => jobs.setJobStatus(db, jobId, status));
  }

  putJobCounters(row: JobCounterRow): Promise<void> {
    return jobs.putJobCounters(this.db, row);
  }

  listJobCounters(jobId: number): Promise<readonly JobCounterRow[]> {
    return jobs.listJobCounters(this.db, jobId);
  }

  configChangesSince(seq: number): Promise<readonly ConfigChange[]> {
    return changes.configChangesSince(this.db, seq);
  }

  pruneConfigChanges(before: string): Promise<void> {
    return changes.pruneConfigChanges(this.db, before);
  }

  latestConfigChange(): Promise<number> {
    return changes.latestConfigChange(this.db);
  }

  appendAudit(entry: AuditEntry): Promise<void> {
    return audit.appendAudit(this.db, entry);
  }

  listAudit(query: AuditQuery): Promise<{ readonly entries: readonly AuditEntry[]; readonly total: number }> {
    return audit.listAudit(this.db, query);
  }

  pruneAudit(before: string): Promise<number> {
    return audit.pruneAudit(this.db, before);
  }

  recordAuthFailure(key: string, nowMs: number, windowMs: number): Promise<AuthFailureCount> {
    return authFailures.recordAuthFailure(this.db, key, nowMs, windowMs);
  }

  clearAuthFailures(keys: readonly string[]): Promise<void> {
    return authFailures.clearAuthFailures(this.db, keys);
  }

  releaseAuthFailure(key: string, nowMs: number, windowMs: number): Promise<void> {
    return authFailures.releaseAuthFailure(this.db, key, nowMs, windowMs);
  }

  pruneAuthFailures(beforeMs: number): Promise<void> {
    return authFailures.pruneAuthFailures(this.db, beforeMs);
  }

  getRetentionFlag(zoneId: string): Promise<boolean> {
    return retention.getRetentionFlag(this.db, zoneId);
  }

  setRetentionFlag(zoneId: string, flag: boolean, now: string): Promise<void> {
    return this.inTransaction((db) => retention.setRetentionFlag(db, zoneId, flag, now));
  }

  listRetentionZones(): Promise<readonly string[]> {
    return retention.listRetentionZones(this.db);
  }

  getRetentionSince(zoneId: string): Promise<string | undefined> {
    return retention.getRetentionSince(this.db, zoneId);
  }

  listExplorerDatasets(zoneId: string): Promise<readonly ExplorerDataset[]> {
    return explorer.listExplorerDatasets(this.db, zoneId);
  }

  getExplorerDataset(zoneId: string, id: string): Promise<ExplorerDataset | undefined> {
    return explorer.getExplorerDataset(this.db, zoneId, id);
  }

  createExplorerDataset(dataset: ExplorerDataset): Promise<void> {
    return this.inTransaction((db) => explorer.createExplorerDataset(db, dataset));
  }

  updateExplorerDataset(dataset: ExplorerDataset): Promise<boolean> {
    return this.inTransaction((db) => explorer.updateExplorerDataset(db, dataset));
  }

  deleteExplorerDataset(zoneId: string, id: string): Promise<boolean> {
    return this.inTransaction((db) => explorer.deleteExplorerDataset(db, zoneId, id));
  }

  saveReplay(replay: StoredReplay): Promise<void> {
    return retention.saveReplay(this.db, replay);
  }

  getReplay(jobId: number): Promise<StoredReplay | undefined> {
    return retention.getReplay(this.db, jobId);
  }

  listReplays(nodeId: string, statuses: readonly ReplayStatus[]): Promise<readonly StoredReplay[]> {
    return retention.listReplays(this.db, nodeId, statuses);
  }
}
