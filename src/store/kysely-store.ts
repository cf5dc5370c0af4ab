import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.ts';
import {
  UniqueViolation,
  type ApiToken,
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
  private readonly root: Kysely<Database> | undefined;

  constructor(db: Db, root?: Kysely<Database>) {
    this.db = db;
    this.root = root;
  }

  async transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    if (this.root === undefined) return work(this);
    return this.root.transaction().execute((trx) => work(new KyselyStore(trx)));
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
    await this.transaction(async (tx) => {
      const db = (tx as KyselyStore).db;
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
    });
  }

  async updateRuleset(snapshot: RulesetSnapshot, expectedVersion: number): Promise<boolean> {
    const rules = JSON.stringify(snapshot.rules);
    return this.transaction(async (tx) => {
      const db = (tx as KyselyStore).db;
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
      return true;
    });
  }

  async deleteRuleset(zoneId: string, rulesetId: string): Promise<boolean> {
    return this.transaction(async (tx) => {
      const db = (tx as KyselyStore).db;
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
      return Number(result.numDeletedRows) === 1;
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
