import { AppError, appError } from '../core/app-error.ts';
import type { Clock } from '../core/clock.ts';
import { recordAudit, systemActor } from '../audit/record-audit.ts';
import { UniqueViolation, permissions as allPermissions, type AuditActor, type Permission, type Store, type User, type Zone } from '../store/store.ts';
import { hashPassword, hashSecret, newApiKey, newApiToken, newId, normalizeEmail, passwordProblem } from './credentials.ts';
import { normalizeZoneName } from './zone-name.ts';

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

/** Creates a zone owned by a user; the name must be a domain name not yet taken. */
export async function createZone(store: Store, clock: Clock, userId: string, name: unknown, actor: AuditActor = systemActor): Promise<Zone> {
  if (typeof name !== 'string') throw appError('invalidInput', 'name must be a domain name such as example.com', '/name');
  const normalized = normalizeZoneName(name);
  if (normalized === undefined) throw appError('invalidInput', `"${name}" is not a domain name such as example.com`, '/name');
  const zone: Zone = { id: newId(), name: normalized, userId, createdAt: new Date(clock.now()).toISOString() };
  try {
    await store.transaction(async (tx) => {
      await tx.createZone(zone);
      await recordAudit(tx, clock, { action: 'zone.create', actor, ownerId: userId, resource: { type: 'zone', id: zone.id }, zone, newValue: { id: zone.id, name: zone.name } });
    });
  } catch (error) {
    if (error instanceof UniqueViolation) throw new AppError('zoneExists', { message: `a zone named ${normalized} already exists`, pointer: '/name' });
    throw error;
  }
  return zone;
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

/** Creates an API token for zones of the user; returns the token text (shown once, stored hashed). */
export async function createToken(
  store: Store,
  clock: Clock,
  input: { userId: string; zoneIds: readonly string[]; permissions: readonly Permission[] },
  actor: AuditActor = systemActor,
): Promise<string> {
  for (const zoneId of input.zoneIds) {
    const zone = await store.findZone(zoneId);
    if (zone === undefined || zone.userId !== input.userId) {
      throw appError('invalidInput', `zone ${zoneId} does not exist or does not belong to this user`);
    }
  }
  const token = newApiToken();
  const id = newId();
  await store.transaction(async (tx) => {
    await tx.createToken({
      id,
      userId: input.userId,
      tokenHash: hashSecret(token),
      zoneIds: input.zoneIds,
      permissions: input.permissions,
      createdAt: new Date(clock.now()).toISOString(),
    });
    // One entry per zone, so each zone's audit log shows who may now act on it.
    for (const zoneId of input.zoneIds) {
      const zone = await tx.findZone(zoneId);
      await recordAudit(tx, clock, {
        action: 'token.create',
        actor,
        ownerId: input.userId,
        resource: { type: 'api_token', id },
        zone: zone ?? null,
        newValue: { id, zone_ids: input.zoneIds, permissions: input.permissions },
      });
    }
  });
  return token;
}
