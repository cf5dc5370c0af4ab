import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { apiKeyPattern, apiTokenPattern, hashSecret, normalizeEmail } from '../accounts/credentials.ts';
import { throttleKeys, type AuthThrottle } from '../accounts/auth-throttle.ts';
import { tokenAllows, tokenStateAt } from '../accounts/token-access.ts';
import { AppError } from '../core/app-error.ts';
import type { Clock } from '../core/clock.ts';
import type { LiveOwner } from '../live/live-session.ts';
import type { ApiToken, Permission, Store, User, Zone } from '../store/store.ts';

/** Who is calling: a user (global key or dashboard session) or an API token. */
export type Principal =
  | { readonly kind: 'user'; readonly user: User; readonly via: 'key' }
  | { readonly kind: 'user'; readonly user: User; readonly via: 'session'; readonly csrfToken: string }
  | { readonly kind: 'token'; readonly userId: string; readonly token: ApiToken };

/** What a route does with a zone: read configuration, change it, or send events. */
export type Access = 'read' | 'edit' | 'ingest';

export const sessionCookieName = 'logexport_session';
export const csrfHeaderName = 'x-csrf-token';

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The value of one cookie from the Cookie header. */
export function readCookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  const cookie = header(headers, 'cookie');
  if (cookie === undefined) return undefined;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function malformed(code: number, message: string): AppError {
  return new AppError('malformedAuthHeaders', { message: 'Invalid request headers', chain: [{ code, message }] });
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** What authentication reads from a request. */
export interface AuthRequest {
  readonly headers: IncomingHttpHeaders;
  readonly method: string;
  /** The client's address (behind a trusted proxy, the one it forwarded). */
  readonly ip: string;
}

/** What authentication needs from the node. */
export interface AuthDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly throttle: AuthThrottle;
}

/** Counts a failed key or token check; past the limit the answer is 429 instead of `error`. */
async function refuse(error: AppError, email: string | undefined, ip: string, throttle: AuthThrottle): Promise<never> {
  throw (await throttle.failed(throttleKeys('credential', email, ip))) ?? error;
}

/**
 * Establishes the principal of a request from its headers, with the product's codes: 9106 when no
 * credential is sent, 6003 when one is malformed, 9103 for an unknown key, 9109 for an unknown token.
 * A bearer token wins when both kinds are sent (clients may send every credential they were given).
 * Unknown keys and tokens are counted against the account and the client address (auth-throttle.ts);
 * a valid key or token is never refused for them (nobody guesses 37 random characters), so the hot path
 * of a valid credential reads nothing more.
 */
export async function authenticate(request: AuthRequest, deps: AuthDeps): Promise<Principal> {
  const { headers, method, ip } = request;
  const { store, clock, throttle } = deps;
  const authorization = header(headers, 'authorization');
  if (authorization !== undefined) {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
    if (!m || !apiTokenPattern.test(m[1] ?? '')) throw malformed(6111, 'Invalid format for Authorization header');
    const token = await store.findTokenByHash(hashSecret(m[1] ?? ''));
    if (token === undefined) return refuse(new AppError('invalidToken'), undefined, ip, throttle);
    // A disabled, expired or not-yet-valid token is refused like an unknown one, but it is no guess: not counted.
    if (tokenStateAt(token, clock.now()) !== 'active') throw new AppError('invalidToken');
    return { kind: 'token', userId: token.userId, token };
  }
  const email = header(headers, 'x-auth-email');
  const key = header(headers, 'x-auth-key');
  if (email !== undefined || key !== undefined) {
    if (email === undefined || key === undefined) throw new AppError('missingAuthHeaders');
    const normalized = normalizeEmail(email);
    if (normalized === undefined) throw malformed(6102, 'Invalid format for X-Auth-Email header');
    if (!apiKeyPattern.test(key.trim())) throw malformed(6103, 'Invalid format for X-Auth-Key header');
    const user = await store.findUserByApiKeyHash(hashSecret(key.trim()));
    if (user === undefined || user.email !== normalized) return refuse(new AppError('unknownApiKey'), normalized, ip, throttle);
    // Clears only key and token failures: a key in use says nothing about guesses at the account's password.
    await throttle.succeeded(throttleKeys('credential', normalized, ip)[0] ?? '');
    return { kind: 'user', user, via: 'key' };
  }
  const sessionId = readCookie(headers, sessionCookieName);
  if (sessionId !== undefined && sessionId !== '') {
    const session = await store.findSession(hashSecret(sessionId));
    if (session !== undefined && session.expiresAt > new Date(clock.now()).toISOString()) {
      const user = await store.findUserById(session.userId);
      if (user !== undefined) {
        if (!['GET', 'HEAD', 'OPTIONS'].includes(method)) {
          const csrf = header(headers, csrfHeaderName);
          if (csrf === undefined || !sameText(csrf, session.csrfToken)) throw new AppError('csrfRejected');
        }
        return { kind: 'user', user, via: 'session', csrfToken: session.csrfToken };
      }
    }
  }
  throw new AppError('missingAuthHeaders');
}

/** The permissions that allow each kind of access (logs:edit includes reading). */
export const permissionFor: Readonly<Record<Access, readonly Permission[]>> = {
  read: ['logs:read', 'logs:edit'],
  edit: ['logs:edit'],
  ingest: ['logs:ingest'],
};

/** The id of the user a principal acts for. */
export function principalUserId(principal: Principal): string {
  return principal.kind === 'token' ? principal.userId : principal.user.id;
}

/**
 * The zone, when the principal may act on it this way; otherwise 403/10000 — the same answer whether
 * the zone exists or not, so a credential learns nothing about zones it cannot use.
 */
export async function authorizeZone(principal: Principal, zoneId: string, access: Access, store: Store): Promise<Zone> {
  const zone = await store.findZone(zoneId);
  if (zone === undefined || zone.userId !== principalUserId(principal)) throw new AppError('notAuthorized');
  if (principal.kind === 'token') {
    if (!tokenAllows(principal.token, zoneId, permissionFor[access])) throw new AppError('notAuthorized');
  }
  return zone;
}

/**
 * Whether the credential that made an Instant Logs session may still read its zone's logs: a deleted, rolled,
 * disabled or expired token may not, nor one whose grants no longer cover the zone, nor a deleted user.
 */
export async function ownerMayRead(owner: LiveOwner, zoneId: string, deps: { readonly store: Store; readonly clock: Clock }): Promise<boolean> {
  let principal: Principal;
  if (owner.kind === 'token') {
    const token = await deps.store.findTokenByHash(owner.tokenHash);
    if (token === undefined || tokenStateAt(token, deps.clock.now()) !== 'active') return false;
    principal = { kind: 'token', userId: token.userId, token };
  } else {
    const user = await deps.store.findUserById(owner.userId);
    if (user === undefined) return false;
    principal = { kind: 'user', user, via: 'key' };
  }
  try {
    await authorizeZone(principal, zoneId, 'read', deps.store);
    return true;
  } catch (error) {
    if (error instanceof AppError) return false;
    throw error;
  }
}
