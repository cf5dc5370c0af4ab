/** Users, their API tokens and their dashboard sessions. */
import type { Database } from '../database.ts';
import type { ApiToken, Permission, Session, TokenPolicy, User } from '../store.ts';
import { recordTokenChange } from './config-change-queries.ts';
import { uniquely, type Db } from './query-db.ts';

function toUser(row: Database['users']): User {
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    apiKeyHash: row.api_key_hash,
    createdAt: row.created_at,
  };
}

export async function createUser(db: Db, user: User): Promise<void> {
  await uniquely(`a user with e-mail ${user.email} exists`, () =>
    db
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

export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  return row && toUser(row);
}

export async function findUserById(db: Db, id: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toUser(row);
}

export async function findUserByApiKeyHash(db: Db, apiKeyHash: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('api_key_hash', '=', apiKeyHash).executeTakeFirst();
  return row && toUser(row);
}

function toToken(row: Database['api_tokens']): ApiToken {
  const policies: readonly TokenPolicy[] =
    row.policies === null
      ? [{ id: row.id, zoneIds: JSON.parse(row.zone_ids) as string[], permissions: JSON.parse(row.permissions) as Permission[] }]
      : (JSON.parse(row.policies) as TokenPolicy[]);
  return {
    id: row.id,
    userId: row.user_id,
    tokenHash: row.token_hash,
    name: row.name,
    status: row.status === 'disabled' ? 'disabled' : 'active',
    policies,
    expiresOn: row.expires_on,
    notBefore: row.not_before,
    createdAt: row.created_at,
    modifiedOn: row.modified_on ?? row.created_at,
  };
}

/** The token's columns; `zone_ids` and `permissions` keep the union of its grants, as before grants existed. */
function tokenColumns(token: ApiToken) {
  return {
    token_hash: token.tokenHash,
    zone_ids: JSON.stringify([...new Set(token.policies.flatMap((p) => p.zoneIds))]),
    permissions: JSON.stringify([...new Set(token.policies.flatMap((p) => p.permissions))]),
    name: token.name,
    status: token.status,
    expires_on: token.expiresOn,
    not_before: token.notBefore,
    policies: JSON.stringify(token.policies),
    modified_on: token.modifiedOn,
  };
}

export async function createToken(db: Db, token: ApiToken): Promise<void> {
  await db
    .insertInto('api_tokens')
    .values({ id: token.id, user_id: token.userId, created_at: token.createdAt, ...tokenColumns(token) })
    .execute();
}

export async function findTokenByHash(db: Db, tokenHash: string): Promise<ApiToken | undefined> {
  const row = await db.selectFrom('api_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  return row && toToken(row);
}

export async function findToken(db: Db, userId: string, tokenId: string): Promise<ApiToken | undefined> {
  const row = await db.selectFrom('api_tokens').selectAll().where('user_id', '=', userId).where('id', '=', tokenId).executeTakeFirst();
  return row && toToken(row);
}

export async function listTokens(db: Db, userId: string): Promise<readonly ApiToken[]> {
  const rows = await db.selectFrom('api_tokens').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toToken);
}

export async function updateToken(db: Db, token: ApiToken): Promise<boolean> {
  const result = await db.updateTable('api_tokens').set(tokenColumns(token)).where('user_id', '=', token.userId).where('id', '=', token.id).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await recordTokenChange(db, token.id);
  return true;
}

export async function deleteToken(db: Db, userId: string, tokenId: string): Promise<boolean> {
  const result = await db.deleteFrom('api_tokens').where('user_id', '=', userId).where('id', '=', tokenId).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) return false;
  await recordTokenChange(db, tokenId);
  return true;
}

export async function createSession(db: Db, session: Session): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id_hash: session.idHash,
      user_id: session.userId,
      csrf_token: session.csrfToken,
      expires_at: session.expiresAt,
    })
    .execute();
}

export async function findSession(db: Db, idHash: string): Promise<Session | undefined> {
  const row = await db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
  return row && { idHash: row.id_hash, userId: row.user_id, csrfToken: row.csrf_token, expiresAt: row.expires_at };
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteExpiredSessions(db: Db, now: string): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<', now).execute();
}
