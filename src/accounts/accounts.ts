import { AppError, appError } from '../core/app-error.ts';
import type { Clock } from '../core/clock.ts';
import { recordAudit, systemActor } from '../audit/record-audit.ts';
import { UniqueViolation, permissions as allPermissions, type ApiToken, type AuditActor, type Permission, type Store, type TokenPolicy, type TokenStatus, type User, type Zone } from '../store/store.ts';
import { tokenZoneIds } from './token-access.ts';
import { hashPassword, hashSecret, newApiKey, newApiToken, newId, normalizeEmail, passwordProblem } from './credentials.ts';
import { isPublicSuffix, normalizeZoneName } from './zone-name.ts';

/** Creates a user; returns the user and the global API key (shown once, stored hashed). */
export async function createUser(
  store: Store,
  clock: Clock,
  input: { email: string; password?: string | undefined },
): Promise<{ user: User; apiKey: string }> {
  const email = normalizeEmail(input.email);
  if (email === undefined) throw appError('invalidInput', `"${input.email}" is not an e-mail address`, '/email');
  let passwordHash: string | null = null;
  if (input.password !== undefined) {
    const problem = passwordProblem(input.password);
    if (problem !== undefined) throw appError('invalidInput', problem, '/password');
    passwordHash = await hashPassword(input.password);
  }
  const apiKey = newApiKey();
  const user: User = { id: newId(), email, passwordHash, apiKeyHash: hashSecret(apiKey), createdAt: new Date(clock.now()).toISOString() };
  try {
    await store.createUser(user);
  } catch (error) {
    if (error instanceof UniqueViolation) throw appError('invalidInput', `a user with e-mail ${email} already exists`, '/email');
    throw error;
  }
  return { user, apiKey };
}

/** What the operator asks of users' zones. */
export interface ZoneRules {
  /** The zone stays pending, without host-routed traffic, until its DNS TXT record is checked. */
  readonly requireVerification: boolean;
  /** Zones one user may have (the command line is not limited). */
  readonly maxZonesPerUser?: number;
}

/** The operator's command line: zones are active at once, and not limited in number. */
export const operatorZoneRules: ZoneRules = { requireVerification: false };

/**
 * Creates a zone owned by a user. The name must be a domain name that is not a public suffix (`co.uk`,
 * `github.io`), and neither equal to, above nor beneath a zone of another user: all of those get the answer a
 * taken name gets (1061), so the answer tells no more about other users' zones than before. Beneath or above
 * the user's own zones is allowed (routing by host then stays within one owner).
 */
export async function createZone(store: Store, clock: Clock, userId: string, name: unknown, actor: AuditActor = systemActor, rules: ZoneRules = operatorZoneRules): Promise<Zone> {
  if (typeof name !== 'string') throw appError('invalidInput', 'name must be a domain name such as example.com', '/name');
  const normalized = normalizeZoneName(name);
  if (normalized === undefined) throw appError('invalidInput', `"${name.slice(0, 300)}" is not a domain name such as example.com`, '/name');
  if (isPublicSuffix(normalized)) {
    throw appError('invalidInput', `${normalized} is a public suffix (anyone can register names under it); a zone is a domain registered under one, such as example.${normalized}`, '/name');
  }
  const zone: Zone = {
    id: newId(),
    name: normalized,
    userId,
    createdAt: new Date(clock.now()).toISOString(),
    status: rules.requireVerification ? 'pending' : 'active',
    verificationToken: rules.requireVerification ? newId() : null,
  };
  const limits = rules.maxZonesPerUser === undefined ? {} : { maxZonesPerUser: rules.maxZonesPerUser };
  const outcome = await store.transaction(async (tx) => {
    const created = await tx.createZone(zone, limits);
    if (created === 'created') {
      await recordAudit(tx, clock, { action: 'zone.create', actor, ownerId: userId, resource: { type: 'zone', id: zone.id }, zone, newValue: { id: zone.id, name: zone.name, status: zone.status } });
    }
    return created;
  });
  switch (outcome) {
    case 'created':
      return zone;
    case 'taken':
      throw new AppError('zoneExists', { message: `the name ${normalized} is taken: a zone of that name, or above or beneath it, exists`, pointer: '/name' });
    case 'limitReached':
      throw new AppError('zoneLimitReached', `creating a new zone is not allowed: you have ${rules.maxZonesPerUser ?? 0} zones, the most allowed (LOGEXPORT_MAX_ZONES_PER_USER)`);
  }
}

/** The DNS name whose TXT record proves a zone: `_logexport-challenge.<zone>`. */
export function verificationRecordName(zone: Pick<Zone, 'name'>): string {
  return `_logexport-challenge.${zone.name}`;
}

/** The TXT records of a name, as node:dns `resolveTxt` answers (each record in chunks); injected in tests. */
export type ResolveTxt = (name: string) => Promise<string[][]>;

/**
 * Checks a pending zone's TXT record and makes the zone active when it holds the zone's verification token.
 * An active zone is answered as it is; a record that is missing or wrong gets a 400 that names the record.
 */
export async function verifyZone(store: Store, clock: Clock, zone: Zone, resolveTxt: ResolveTxt, actor: AuditActor): Promise<Zone> {
  if (zone.status === 'active' || zone.verificationToken === null) return zone;
  const record = verificationRecordName(zone);
  let found: string[];
  try {
    found = (await resolveTxt(record)).map((chunks) => chunks.join(''));
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : 'an error';
    throw appError('zoneVerificationFailed', `the DNS lookup of the TXT record ${record} answered ${code}; add a TXT record ${record} holding ${zone.verificationToken}, then check again`);
  }
  if (!found.includes(zone.verificationToken)) {
    throw appError('zoneVerificationFailed', `no TXT record ${record} holds ${zone.verificationToken} (found ${found.length} other record${found.length === 1 ? '' : 's'}); add it, then check again`);
  }
  await store.transaction(async (tx) => {
    if (!(await tx.activateZone(zone.id))) return;
    await recordAudit(tx, clock, { action: 'zone.activate', actor, ownerId: zone.userId, resource: { type: 'zone', id: zone.id }, zone, oldValue: { status: 'pending' }, newValue: { status: 'active' } });
  });
  return { ...zone, status: 'active' };
}

/** Parses a comma-separated permission list such as `logs:edit,logs:ingest`. */
export function parsePermissions(text: string): readonly Permission[] {
  const list = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (list.length === 0) throw appError('invalidInput', `permissions must name at least one of ${allPermissions.join(', ')}`);
  for (const p of list) {
    if (!(allPermissions as readonly string[]).includes(p)) {
      throw appError('invalidInput', `unknown permission "${p}": expected ${allPermissions.join(', ')}`);
    }
  }
  return [...new Set(list)] as Permission[];
}

/** A token as its owner asks for it: a name, grants on zones, and optional dates. */
export interface TokenSpec {
  readonly name: string;
  readonly policies: readonly Omit<TokenPolicy, 'id'>[];
  readonly expiresOn: string | null;
  readonly notBefore: string | null;
  readonly status: TokenStatus;
}

/** A token made from the command line (and by tests): one grant, no name, no dates. */
export function simpleTokenSpec(zoneIds: readonly string[], permissions: readonly Permission[], name = ''): TokenSpec {
  return { name, policies: [{ zoneIds, permissions }], expiresOn: null, notBefore: null, status: 'active' };
}

/** Refuses a grant on a zone the user does not own (the same answer for a zone that does not exist). */
async function checkZonesOwned(store: Store, userId: string, spec: TokenSpec): Promise<void> {
  for (const [index, policy] of spec.policies.entries()) {
    for (const zoneId of policy.zoneIds) {
      const zone = await store.findZone(zoneId);
      if (zone === undefined || zone.userId !== userId) {
        throw appError('invalidInput', `zone ${zoneId} does not exist or does not belong to this user`, `/policies/${index}/resources`);
      }
    }
  }
}

/** The token as the audit log keeps it: never its hash. */
function auditedToken(token: ApiToken) {
  return { id: token.id, name: token.name, status: token.status, expires_on: token.expiresOn, not_before: token.notBefore, policies: token.policies.map((p) => ({ zone_ids: p.zoneIds, permissions: p.permissions })) };
}

/** One entry per zone the change touches, so each zone's audit log shows who may act on it. */
async function auditToken(tx: Store, clock: Clock, action: 'token.create' | 'token.update' | 'token.roll' | 'token.delete', actor: AuditActor, before: ApiToken | undefined, after: ApiToken | undefined): Promise<void> {
  const token = after ?? before;
  if (token === undefined) return;
  const zoneIds = new Set([...(before === undefined ? [] : tokenZoneIds(before)), ...(after === undefined ? [] : tokenZoneIds(after))]);
  for (const zoneId of zoneIds) {
    const zone = await tx.findZone(zoneId);
    await recordAudit(tx, clock, {
      action,
      actor,
      ownerId: token.userId,
      resource: { type: 'api_token', id: token.id },
      zone: zone ?? null,
      ...(before === undefined ? {} : { oldValue: auditedToken(before) }),
      ...(after === undefined ? {} : { newValue: auditedToken(after) }),
    });
  }
}

/** Creates an API token for zones of the user; returns it and its value (shown once, stored hashed). */
export async function createToken(store: Store, clock: Clock, userId: string, spec: TokenSpec, actor: AuditActor = systemActor): Promise<{ token: ApiToken; value: string }> {
  await checkZonesOwned(store, userId, spec);
  const value = newApiToken();
  const now = new Date(clock.now()).toISOString();
  const token: ApiToken = {
    id: newId(),
    userId,
    tokenHash: hashSecret(value),
    name: spec.name,
    status: spec.status,
    policies: spec.policies.map((p) => ({ id: newId(), zoneIds: p.zoneIds, permissions: p.permissions })),
    expiresOn: spec.expiresOn,
    notBefore: spec.notBefore,
    createdAt: now,
    modifiedOn: now,
  };
  await store.transaction(async (tx) => {
    await tx.createToken(token);
    await auditToken(tx, clock, 'token.create', actor, undefined, token);
  });
  return { token, value };
}

/** Replaces a token's name, grants, dates and status; undefined when the user has no such token. */
export async function updateToken(store: Store, clock: Clock, before: ApiToken, spec: TokenSpec, actor: AuditActor): Promise<ApiToken> {
  await checkZonesOwned(store, before.userId, spec);
  const after: ApiToken = {
    ...before,
    name: spec.name,
    status: spec.status,
    // A grant keeps its id when it is unchanged, so a client comparing policies by id sees what moved.
    policies: spec.policies.map((p) => before.policies.find((old) => sameGrant(old, p)) ?? { id: newId(), zoneIds: p.zoneIds, permissions: p.permissions }),
    expiresOn: spec.expiresOn,
    notBefore: spec.notBefore,
    modifiedOn: new Date(clock.now()).toISOString(),
  };
  await store.transaction(async (tx) => {
    if (!(await tx.updateToken(after))) throw appError('notFound', 'no such API token');
    await auditToken(tx, clock, 'token.update', actor, before, after);
  });
  return after;
}

function sameGrant(a: Omit<TokenPolicy, 'id'>, b: Omit<TokenPolicy, 'id'>): boolean {
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v) => y.includes(v));
  return same(a.zoneIds, b.zoneIds) && same(a.permissions, b.permissions);
}

/** Gives a token a new value; the old one is refused from now on, on every node. Returns the new value. */
export async function rollToken(store: Store, clock: Clock, before: ApiToken, actor: AuditActor): Promise<string> {
  const value = newApiToken();
  const after: ApiToken = { ...before, tokenHash: hashSecret(value), modifiedOn: new Date(clock.now()).toISOString() };
  await store.transaction(async (tx) => {
    if (!(await tx.updateToken(after))) throw appError('notFound', 'no such API token');
    await auditToken(tx, clock, 'token.roll', actor, before, after);
  });
  return value;
}

/** Revokes a token: it is deleted, refused on every node at once, and its live viewers are closed. */
export async function deleteToken(store: Store, clock: Clock, token: ApiToken, actor: AuditActor): Promise<void> {
  await store.transaction(async (tx) => {
    if (!(await tx.deleteToken(token.userId, token.id))) throw appError('notFound', 'no such API token');
    await auditToken(tx, clock, 'token.delete', actor, token, undefined);
  });
}
