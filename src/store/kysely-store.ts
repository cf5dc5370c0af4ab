import type { Insertable, Kysely, Transaction, Updateable } from 'kysely';
import type { Database, Engine } from './database.ts';
import {
  UniqueViolation,
  type ApiToken,
  type Job,
  type JobCounterRow,
  type JobSettings,
  type JobStatus,
  type Permission,
  type RulesetMeta,
  type RulesetSnapshot,
  type Session,
  type Store,
  type StoredRule,
  type User,
  type Zone,
} from './store.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Whether a driver error is a unique-constraint violation (SQLite or PostgreSQL). */
function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

async function uniquely<T>(what: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new UniqueViolation(what);
    throw error;
  }
}

type RulesetRow = Database['rulesets'];
type VersionRow = Database['ruleset_versions'];

function toMeta(row: Omit<RulesetRow, 'rules'>): RulesetMeta {
  return {
    id: row.id,
    zoneId: row.zone_id,
    kind: row.kind,
    phase: row.phase,
    name: row.name,
    description: row.description,
    version: Number(row.version),
    lastUpdated: row.last_updated,
  };
}

function toSnapshot(row: RulesetRow): RulesetSnapshot {
  return { ...toMeta(row), rules: JSON.parse(row.rules) as StoredRule[] };
}

function toUser(row: Database['users']): User {
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    apiKeyHash: row.api_key_hash,
    createdAt: row.created_at,
  };
}

function toZone(row: Database['zones']): Zone {
  return { id: row.id, name: row.name, userId: row.user_id, createdAt: row.created_at };
}

/** The store over Kysely; the engine-specific parts live in sqlite.ts and postgres.ts. */
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

  async getSetting(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  async putSettingIfAbsent(key: string, value: string): Promise<string> {
    await this.db
      .insertInto('settings')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    return (await this.getSetting(key)) ?? value;
  }

  async createUser(user: User): Promise<void> {
    await uniquely(`a user with e-mail ${user.email} exists`, () =>
      this.db
        .insertInto('users')
        .values({
          id: user.id,
          email: user.email,
          password_hash: user.passwordHash,
          api_key_hash: user.apiKeyHash,
          created_at: user.createdAt,
        })
        .execute(),
    );
  }

  async findUserByEmail(email: string): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    return row && toUser(row);
  }

  async findUserById(id: string): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toUser(row);
  }

  async findUserByApiKeyHash(apiKeyHash: string): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('api_key_hash', '=', apiKeyHash).executeTakeFirst();
    return row && toUser(row);
  }

  async createToken(token: ApiToken): Promise<void> {
    await this.db
      .insertInto('api_tokens')
      .values({
        id: token.id,
        user_id: token.userId,
        token_hash: token.tokenHash,
        zone_ids: JSON.stringify(token.zoneIds),
        permissions: JSON.stringify(token.permissions),
        created_at: token.createdAt,
      })
      .execute();
  }

  async findTokenByHash(tokenHash: string): Promise<ApiToken | undefined> {
    const row = await this.db.selectFrom('api_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      userId: row.user_id,
      tokenHash: row.token_hash,
      zoneIds: JSON.parse(row.zone_ids) as string[],
      permissions: JSON.parse(row.permissions) as Permission[],
      createdAt: row.created_at,
    };
  }

  async createSession(session: Session): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        id_hash: session.idHash,
        user_id: session.userId,
        csrf_token: session.csrfToken,
        expires_at: session.expiresAt,
      })
      .execute();
  }

  async findSession(idHash: string): Promise<Session | undefined> {
    const row = await this.db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    return row && { idHash: row.id_hash, userId: row.user_id, csrfToken: row.csrf_token, expiresAt: row.expires_at };
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }

  async deleteExpiredSessions(now: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('expires_at', '<', now).execute();
  }

  async createZone(zone: Zone): Promise<void> {
    await uniquely(`a zone named ${zone.name} exists`, () =>
      this.db
        .insertInto('zones')
        .values({ id: zone.id, name: zone.name, user_id: zone.userId, created_at: zone.createdAt })
        .execute(),
    );
  }

  async findZone(id: string): Promise<Zone | undefined> {
    const row = await this.db.selectFrom('zones').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toZone(row);
  }

  async findZoneByName(name: string): Promise<Zone | undefined> {
    const row = await this.db.selectFrom('zones').selectAll().where('name', '=', name).executeTakeFirst();
    return row && toZone(row);
  }

  async listZones(userId: string): Promise<readonly Zone[]> {
    const rows = await this.db.selectFrom('zones').selectAll().where('user_id', '=', userId).orderBy('name').execute();
    return rows.map(toZone);
  }

  async listRulesets(zoneId: string): Promise<readonly RulesetMeta[]> {
    const rows = await this.db
      .selectFrom('rulesets')
      .select(['id', 'zone_id', 'kind', 'phase', 'name', 'description', 'version', 'last_updated'])
      .where('zone_id', '=', zoneId)
      .orderBy('id')
      .execute();
    return rows.map(toMeta);
  }

  async getRuleset(zoneId: string, rulesetId: string): Promise<RulesetSnapshot | undefined> {
    const row = await this.db
      .selectFrom('rulesets')
      .selectAll()
      .where('zone_id', '=', zoneId)
      .where('id', '=', rulesetId)
      .executeTakeFirst();
    return row && toSnapshot(row);
  }

  async findRulesetByPhase(zoneId: string, phase: string): Promise<RulesetSnapshot | undefined> {
    const row = await this.db
      .selectFrom('rulesets')
      .selectAll()
      .where('zone_id', '=', zoneId)
      .where('phase', '=', phase)
      .executeTakeFirst();
    return row && toSnapshot(row);
  }

  async insertRuleset(snapshot: RulesetSnapshot): Promise<void> {
    const rules = JSON.stringify(snapshot.rules);
    await this.inTransaction(async (db) => {
      await uniquely(`the zone already has a ruleset for phase ${snapshot.phase}`, () =>
        db
          .insertInto('rulesets')
          .values({
            id: snapshot.id,
            zone_id: snapshot.zoneId,
            kind: snapshot.kind,
            phase: snapshot.phase,
            name: snapshot.name,
            description: snapshot.description,
            version: snapshot.version,
            last_updated: snapshot.lastUpdated,
            rules,
          })
          .execute(),
      );
      await db.insertInto('ruleset_versions').values(versionRow(snapshot, rules)).execute();
      await recordChange(db, snapshot.zoneId);
    });
  }

  async updateRuleset(snapshot: RulesetSnapshot, expectedVersion: number): Promise<boolean> {
    const rules = JSON.stringify(snapshot.rules);
    return this.inTransaction(async (db) => {
      const result = await db
        .updateTable('rulesets')
        .set({
          name: snapshot.name,
          description: snapshot.description,
          version: snapshot.version,
          last_updated: snapshot.lastUpdated,
          rules,
        })
        .where('zone_id', '=', snapshot.zoneId)
        .where('id', '=', snapshot.id)
        .where('version', '=', expectedVersion)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await db.insertInto('ruleset_versions').values(versionRow(snapshot, rules)).execute();
      await recordChange(db, snapshot.zoneId);
      return true;
    });
  }

  async deleteRuleset(zoneId: string, rulesetId: string): Promise<boolean> {
    return this.inTransaction(async (db) => {
      await db
        .deleteFrom('ruleset_versions')
        .where('zone_id', '=', zoneId)
        .where('ruleset_id', '=', rulesetId)
        .execute();
      const result = await db
        .deleteFrom('rulesets')
        .where('zone_id', '=', zoneId)
        .where('id', '=', rulesetId)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) !== 1) return false;
      await recordChange(db, zoneId);
      return true;
    });
  }

  async listRulesetVersions(zoneId: string, rulesetId: string): Promise<readonly RulesetMeta[]> {
    const rows = await this.db
      .selectFrom('ruleset_versions as v')
      .innerJoin('rulesets as r', 'r.id', 'v.ruleset_id')
      .select(['r.id', 'r.zone_id', 'r.kind', 'r.phase', 'v.name', 'v.description', 'v.version', 'v.last_updated'])
      .where('v.zone_id', '=', zoneId)
      .where('v.ruleset_id', '=', rulesetId)
      .orderBy('v.version', 'desc')
      .execute();
    return rows.map(toMeta);
  }

  async getRulesetVersion(zoneId: string, rulesetId: string, version: number): Promise<RulesetSnapshot | undefined> {
    const row = await this.db
      .selectFrom('ruleset_versions as v')
      .innerJoin('rulesets as r', 'r.id', 'v.ruleset_id')
      .select(['r.id', 'r.zone_id', 'r.kind', 'r.phase', 'v.name', 'v.description', 'v.version', 'v.last_updated', 'v.rules'])
      .where('v.zone_id', '=', zoneId)
      .where('v.ruleset_id', '=', rulesetId)
      .where('v.version', '=', version)
      .executeTakeFirst();
    return row && toSnapshot(row);
  }

  async deleteRulesetVersion(zoneId: string, rulesetId: string, version: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('ruleset_versions')
      .where('zone_id', '=', zoneId)
      .where('ruleset_id', '=', rulesetId)
      .where('version', '=', version)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async listJobs(zoneId: string): Promise<readonly Job[]> {
    const rows = await this.db.selectFrom('jobs').selectAll().where('zone_id', '=', zoneId).orderBy('id').execute();
    return rows.map(toJob);
  }

  async getJob(zoneId: string, jobId: number): Promise<Job | undefined> {
    const row = await this.db.selectFrom('jobs').selectAll().where('zone_id', '=', zoneId).where('id', '=', jobId).executeTakeFirst();
    return row && toJob(row);
  }

  async listEnabledJobs(): Promise<readonly Job[]> {
    const rows = await this.db.selectFrom('jobs').selectAll().where('enabled', '=', 1).orderBy('id').execute();
    return rows.map(toJob);
  }

  async createJob(zoneId: string, settings: JobSettings, now: string, maxJobs: number): Promise<Job | undefined> {
    return this.inTransaction(async (db) => {
      // Two concurrent creates must not both slip under the limit: on PostgreSQL the zone row is locked
      // for the count; SQLite runs one write transaction at a time anyway.
      if (this.engine === 'postgres') {
        await db.selectFrom('zones').select('id').where('id', '=', zoneId).forUpdate().execute();
      }
      const { count } = await db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('zone_id', '=', zoneId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= maxJobs) return undefined;
      const row = await db
        .insertInto('jobs')
        .values({ zone_id: zoneId, ...jobColumns(settings), created_at: now, updated_at: now } as Insertable<Database['jobs']>)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordChange(db, zoneId);
      return toJob(row);
    });
  }

  async updateJob(zoneId: string, jobId: number, changes: Partial<JobSettings>, now: string): Promise<Job | undefined> {
    return this.inTransaction(async (db) => {
      const row = await db
        .updateTable('jobs')
        .set({ ...jobColumns(changes), updated_at: now })
        .where('zone_id', '=', zoneId)
        .where('id', '=', jobId)
        .returningAll()
        .executeTakeFirst();
      if (row === undefined) return undefined;
      await recordChange(db, zoneId);
      return toJob(row);
    });
  }

  async deleteJob(zoneId: string, jobId: number): Promise<boolean> {
    return this.inTransaction(async (db) => {
      const result = await db.deleteFrom('jobs').where('zone_id', '=', zoneId).where('id', '=', jobId).executeTakeFirst();
      if (Number(result.numDeletedRows) !== 1) return false;
      await db.deleteFrom('job_counters').where('job_id', '=', jobId).execute();
      await recordChange(db, zoneId);
      return true;
    });
  }

  async setJobStatus(jobId: number, status: JobStatus): Promise<void> {
    await this.inTransaction(async (db) => {
      const values: Updateable<Database['jobs']> = {};
      if (status.lastComplete !== undefined) values.last_complete = status.lastComplete;
      if (status.lastError !== undefined) values.last_error = status.lastError;
      if (status.errorMessage !== undefined) values.error_message = status.errorMessage;
      if (status.failingSince !== undefined) values.failing_since = status.failingSince;
      if (status.enabled !== undefined) values.enabled = status.enabled ? 1 : 0;
      if (Object.keys(values).length === 0) return;
      const row = await db.updateTable('jobs').set(values).where('id', '=', jobId).returning('zone_id').executeTakeFirst();
      if (row !== undefined && status.enabled !== undefined) await recordChange(db, row.zone_id);
    });
  }

  async putJobCounters(row: JobCounterRow): Promise<void> {
    await this.db
      .insertInto('job_counters')
      .values({ job_id: row.jobId, node: row.node, counters: row.counters, updated_at: row.updatedAt })
      .onConflict((oc) => oc.columns(['job_id', 'node']).doUpdateSet({ counters: row.counters, updated_at: row.updatedAt }))
      .execute();
  }

  async listJobCounters(jobId: number): Promise<readonly JobCounterRow[]> {
    const rows = await this.db.selectFrom('job_counters').selectAll().where('job_id', '=', jobId).orderBy('node').execute();
    return rows.map((r) => ({ jobId: Number(r.job_id), node: r.node, counters: r.counters, updatedAt: r.updated_at }));
  }

  async configChangesSince(seq: number): Promise<readonly { readonly seq: number; readonly zoneId: string }[]> {
    const rows = await this.db.selectFrom('config_changes').select(['seq', 'zone_id']).where('seq', '>', seq).orderBy('seq').execute();
    return rows.map((r) => ({ seq: Number(r.seq), zoneId: r.zone_id }));
  }

  async pruneConfigChanges(before: string): Promise<void> {
    // The newest change is always kept: a node starting later reads its number as its starting point.
    const latest = await this.latestConfigChange();
    await this.db.deleteFrom('config_changes').where('changed_at', '<', before).where('seq', '<', latest).execute();
  }

  async latestConfigChange(): Promise<number> {
    const row = await this.db
      .selectFrom('config_changes')
      .select((eb) => eb.fn.max<number | null>('seq').as('seq'))
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
  }
}

function versionRow(snapshot: RulesetSnapshot, rules: string): VersionRow {
  return {
    ruleset_id: snapshot.id,
    zone_id: snapshot.zoneId,
    version: snapshot.version,
    name: snapshot.name,
    description: snapshot.description,
    last_updated: snapshot.lastUpdated,
    rules,
  };
}

/** Notes that a zone's configuration changed, inside the transaction that changed it. */
async function recordChange(db: Db, zoneId: string): Promise<void> {
  await db.insertInto('config_changes').values({ zone_id: zoneId, changed_at: new Date().toISOString() }).execute();
}

/** The columns for the settings given (all of them when `settings` is complete). */
function jobColumns(settings: Partial<JobSettings>): Updateable<Database['jobs']> {
  const columns: Updateable<Database['jobs']> = {};
  if (settings.dataset !== undefined) columns.dataset = settings.dataset;
  if (settings.kind !== undefined) columns.kind = settings.kind;
  if (settings.enabled !== undefined) columns.enabled = settings.enabled ? 1 : 0;
  if (settings.name !== undefined) columns.name = settings.name;
  if (settings.destinationConf !== undefined) columns.destination_conf = settings.destinationConf;
  if (settings.filter !== undefined) columns.filter = settings.filter;
  if (settings.outputOptions !== undefined) columns.output_options = settings.outputOptions;
  if (settings.logpullOptions !== undefined) columns.logpull_options = settings.logpullOptions;
  if (settings.frequency !== undefined) columns.frequency = settings.frequency;
  if (settings.maxUploadBytes !== undefined) columns.max_upload_bytes = settings.maxUploadBytes;
  if (settings.maxUploadRecords !== undefined) columns.max_upload_records = settings.maxUploadRecords;
  if (settings.maxUploadIntervalSeconds !== undefined) columns.max_upload_interval_seconds = settings.maxUploadIntervalSeconds;
  return columns;
}

type JobRow = { id: number } & Omit<Database['jobs'], 'id'>;

function toJob(row: JobRow): Job {
  const int = (v: number | null): number | null => (v === null ? null : Number(v));
  return {
    id: Number(row.id),
    zoneId: row.zone_id,
    dataset: row.dataset,
    kind: row.kind,
    enabled: Number(row.enabled) === 1,
    name: row.name,
    destinationConf: row.destination_conf,
    filter: row.filter,
    outputOptions: row.output_options,
    logpullOptions: row.logpull_options,
    frequency: row.frequency,
    maxUploadBytes: int(row.max_upload_bytes),
    maxUploadRecords: int(row.max_upload_records),
    maxUploadIntervalSeconds: int(row.max_upload_interval_seconds),
    lastComplete: row.last_complete,
    lastError: row.last_error,
    errorMessage: row.error_message,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
