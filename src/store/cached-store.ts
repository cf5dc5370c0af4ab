/**
 * A read cache in front of the store for what every API and ingest request reads: credentials, zones,
 * a zone's jobs and rulesets. Entries live a short time (`ttlMs`), so changes made by another node
 * (configuration, job status, credentials) show within that time; a zone's entries are dropped at once
 * when this node changes the zone, or when `invalidateZone` is told another node did (ConfigWatcher).
 * Everything else, and everything inside a transaction, goes straight to the store.
 */
import type { ExplorerDataset } from '../domain/explorer/explorer-dataset.ts';
import type { JobSettings } from '../domain/jobs/job-settings.ts';
import type { ApiToken, Job, JobStatus, RulesetSnapshot, Store, User, Zone } from './store.ts';

interface Entry<T> {
  readonly value: Promise<T>;
  readonly expires: number;
}

class TtlCache {
  private readonly entries = new Map<string, Entry<unknown>>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(ttlMs: number, now: () => number) {
    this.ttlMs = ttlMs;
    this.now = now;
  }

  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.now();
    const hit = this.entries.get(key) as Entry<T> | undefined;
    if (hit !== undefined && hit.expires > now) return hit.value;
    const value = load();
    this.entries.set(key, { value, expires: now + this.ttlMs });
    // A failed read, or one that found nothing (a zone or key may be created a moment later), is not remembered.
    value.then(
      (found) => {
        if (found === undefined && this.entries.get(key)?.value === value) this.entries.delete(key);
      },
      () => this.entries.delete(key),
    );
    if (this.entries.size > 10_000) this.sweep(now);
    return value;
  }

  deleteWhere(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expires <= now) this.entries.delete(key);
  }
}

/** The caching store, with the two ways another node's changes reach it. */
export interface CachedStore extends Store {
  /** Another node changed the zone: its entries are read again. */
  invalidateZone(zoneId: string): void;
  /** Another node changed or revoked a token: every token is read again (rare, and one read each). */
  invalidateTokens(): void;
}

/** Builds the caching store; `store` must be the root store (not a transaction's view). */
export function cachedStore(store: Store, ttlMs = 1000, now: () => number = Date.now): CachedStore {
  const cache = new TtlCache(ttlMs, now);
  const zoneKey = (zoneId: string, what: string) => `z:${zoneId}:${what}`;
  const invalidateZone = (zoneId: string) => cache.deleteWhere(`z:${zoneId}:`);
  const afterWrite = async <T>(zoneId: string, write: Promise<T>): Promise<T> => {
    try {
      return await write;
    } finally {
      invalidateZone(zoneId);
    }
  };
  const zoneOfJob = new Map<number, string>();

  const invalidateTokens = () => cache.deleteWhere('t:');
  const afterTokenWrite = async <T>(write: Promise<T>): Promise<T> => {
    try {
      return await write;
    } finally {
      invalidateTokens();
    }
  };

  const cached: CachedStore = {
    invalidateZone,
    invalidateTokens,
    // A transaction may change any zone or token; it is rare (job and token changes), so every zone's and
    // every token's entries are dropped.
    transaction: async (work) => {
      try {
        return await store.transaction(work);
      } finally {
        cache.deleteWhere('z:');
        invalidateTokens();
      }
    },
    close: () => store.close(),
    getSetting: (key) => store.getSetting(key),
    putSettingIfAbsent: (key, value) => store.putSettingIfAbsent(key, value),
    putSetting: (key, value) => store.putSetting(key, value),
    deleteSetting: (key) => store.deleteSetting(key),
    createUser: (user) => store.createUser(user),
    findUserByEmail: (email) => store.findUserByEmail(email),
    findUserById: (id) => cache.get<User | undefined>(`u:${id}`, () => store.findUserById(id)),
    findUserByApiKeyHash: (hash) => cache.get<User | undefined>(`k:${hash}`, () => store.findUserByApiKeyHash(hash)),
    createToken: (token) => store.createToken(token),
    findTokenByHash: (hash) => cache.get<ApiToken | undefined>(`t:${hash}`, () => store.findTokenByHash(hash)),
    findToken: (userId, tokenId) => store.findToken(userId, tokenId),
    listTokens: (userId) => store.listTokens(userId),
    updateToken: (token) => afterTokenWrite(store.updateToken(token)),
    deleteToken: (userId, tokenId) => afterTokenWrite(store.deleteToken(userId, tokenId)),
    createSession: (session) => store.createSession(session),
    findSession: (idHash) => store.findSession(idHash),
    deleteSession: (idHash) => store.deleteSession(idHash),
    deleteExpiredSessions: (at) => store.deleteExpiredSessions(at),
    createZone: (zone, limits) => store.createZone(zone, limits),
    activateZone: (zoneId) => afterWrite(zoneId, store.activateZone(zoneId)),
    findZone: (id) => cache.get<Zone | undefined>(zoneKey(id, 'zone'), () => store.findZone(id)),
    findZoneByName: (name) => store.findZoneByName(name),
    listZones: (userId) => store.listZones(userId),
    listAllZones: () => store.listAllZones(),
    listRulesets: (zoneId) => store.listRulesets(zoneId),
    getRuleset: (zoneId, id) => cache.get<RulesetSnapshot | undefined>(zoneKey(zoneId, `ruleset:${id}`), () => store.getRuleset(zoneId, id)),
    findRulesetByPhase: (zoneId, phase) => cache.get<RulesetSnapshot | undefined>(zoneKey(zoneId, `phase:${phase}`), () => store.findRulesetByPhase(zoneId, phase)),
    insertRuleset: (snapshot) => afterWrite(snapshot.zoneId, store.insertRuleset(snapshot)),
    updateRuleset: (snapshot, expected) => afterWrite(snapshot.zoneId, store.updateRuleset(snapshot, expected)),
    deleteRuleset: (zoneId, id) => afterWrite(zoneId, store.deleteRuleset(zoneId, id)),
    listRulesetVersions: (zoneId, id) => store.listRulesetVersions(zoneId, id),
    getRulesetVersion: (zoneId, id, version) => store.getRulesetVersion(zoneId, id, version),
    deleteRulesetVersion: (zoneId, id, version) => afterWrite(zoneId, store.deleteRulesetVersion(zoneId, id, version)),
    listJobs: (zoneId) =>
      cache.get<readonly Job[]>(zoneKey(zoneId, 'jobs'), async () => {
        const jobs = await store.listJobs(zoneId);
        for (const job of jobs) zoneOfJob.set(job.id, zoneId);
        return jobs;
      }),
    getJob: (zoneId, jobId) => store.getJob(zoneId, jobId),
    listEnabledJobs: () => store.listEnabledJobs(),
    listAllJobs: () => store.listAllJobs(),
    setJobDestinationConf: async (jobId, conf) => {
      await store.setJobDestinationConf(jobId, conf);
      cache.deleteWhere('z:');
    },
    createJob: (zoneId, settings: JobSettings, at, max) => afterWrite(zoneId, store.createJob(zoneId, settings, at, max)),
    updateJob: (zoneId, jobId, changes, at) => afterWrite(zoneId, store.updateJob(zoneId, jobId, changes, at)),
    deleteJob: (zoneId, jobId) => afterWrite(zoneId, store.deleteJob(zoneId, jobId)),
    setJobStatus: async (jobId, status: JobStatus) => {
      await store.setJobStatus(jobId, status);
      const zoneId = zoneOfJob.get(jobId);
      if (zoneId !== undefined) invalidateZone(zoneId);
    },
    putJobCounters: (row) => store.putJobCounters(row),
    listJobCounters: (jobId) => store.listJobCounters(jobId),
    configChangesSince: (seq) => store.configChangesSince(seq),
    latestConfigChange: () => store.latestConfigChange(),
    pruneConfigChanges: (before) => store.pruneConfigChanges(before),
    appendAudit: (entry) => store.appendAudit(entry),
    listAudit: (query) => store.listAudit(query),
    pruneAudit: (before) => store.pruneAudit(before),
    recordAuthFailure: (key, nowMs, windowMs) => store.recordAuthFailure(key, nowMs, windowMs),
    clearAuthFailures: (keys) => store.clearAuthFailures(keys),
    releaseAuthFailure: (key, nowMs, windowMs) => store.releaseAuthFailure(key, nowMs, windowMs),
    pruneAuthFailures: (beforeMs) => store.pruneAuthFailures(beforeMs),
    // The flag is read on every ingest snapshot load; cached like the zone's other configuration.
    getRetentionFlag: (zoneId) => cache.get<boolean>(zoneKey(zoneId, 'retention'), () => store.getRetentionFlag(zoneId)),
    setRetentionFlag: (zoneId, flag, now) => afterWrite(zoneId, store.setRetentionFlag(zoneId, flag, now)),
    listRetentionZones: () => store.listRetentionZones(),
    getRetentionSince: (zoneId) => store.getRetentionSince(zoneId),
    // Read on every ingest snapshot load (an enabled dataset decides what the zone retains) and every SQL query.
    listExplorerDatasets: (zoneId) => cache.get<readonly ExplorerDataset[]>(zoneKey(zoneId, 'explorer'), () => store.listExplorerDatasets(zoneId)),
    getExplorerDataset: (zoneId, id) => store.getExplorerDataset(zoneId, id),
    createExplorerDataset: (dataset) => afterWrite(dataset.zoneId, store.createExplorerDataset(dataset)),
    updateExplorerDataset: (dataset) => afterWrite(dataset.zoneId, store.updateExplorerDataset(dataset)),
    deleteExplorerDataset: (zoneId, id) => afterWrite(zoneId, store.deleteExplorerDataset(zoneId, id)),
    // Replay progress changes on another node's writes: never cached.
    saveReplay: (replay) => store.saveReplay(replay),
    getReplay: (jobId) => store.getReplay(jobId),
    listReplays: (nodeId, statuses) => store.listReplays(nodeId, statuses),
  };
  return cached;
}
