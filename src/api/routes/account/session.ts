import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashSecret, normalizeEmail, verifyPassword } from '../../../accounts/credentials.ts';
import { AppError } from '../../../core/app-error.ts';
import { throttleKeys } from '../../../accounts/auth-throttle.ts';
import { recordAudit, type AuditRecord } from '../../../audit/record-audit.ts';
import { readCookie, sessionCookieName } from '../../auth.ts';
import { success } from '../../envelope.ts';
import { bodyObject, rejectUnknownKeys } from '../../request-input.ts';
import { principalOf, type ApiDeps } from '../../request-context.ts';

const sessionLifetimeMs = 12 * 3_600_000;

// Checked against when the e-mail is unknown, so a wrong address takes as long as a wrong password.
const decoyHash = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/**
 * `; Secure` when the request came over TLS: directly, or per X-Forwarded-Proto from a proxy that
 * LOGEXPORT_TRUST_PROXY trusts (Fastify's `request.protocol` believes only those). Over plain HTTP the
 * flag is left out, or the browser would drop the cookie and a local setup could not sign in.
 */
function secureFlag(request: FastifyRequest): string {
  return request.protocol === 'https' ? '; Secure' : '';
}

/** Dashboard sign-in (`POST /session`), who am I (`GET /session`) and sign-out (`DELETE /session`). */
export function sessionRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.post('/session', { config: { public: true } }, async (request, reply) => {
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['email', 'password']);
    const email = typeof body.email === 'string' ? normalizeEmail(body.email) : undefined;
    const password = typeof body.password === 'string' ? body.password : '';
    const keys = throttleKeys('password', email, request.ip);
    await deps.throttle.attempt(keys);
    const user = email === undefined ? undefined : await deps.store.findUserByEmail(email);
    const valid = await verifyPassword(password, user?.passwordHash ?? decoyHash);
    const signIn = (result: boolean): AuditRecord => ({
      action: 'session.create',
      result,
      actor: { type: 'user' as const, id: user?.id ?? null, email: email ?? null, ip: request.ip },
      ownerId: user?.id ?? null,
      resource: { type: 'user.session', id: user?.id ?? null },
    });
    if (user === undefined || user.passwordHash === null || !valid) {
      await recordAudit(deps.store, deps.clock, signIn(false));
      throw new AppError('signInFailed');
    }
    await deps.throttle.attemptSucceeded(keys);
    const sessionId = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(24).toString('base64url');
    const now = deps.clock.now();
    await deps.store.deleteExpiredSessions(new Date(now).toISOString());
    await deps.store.transaction(async (tx) => {
      await tx.createSession({
        idHash: hashSecret(sessionId),
        userId: user.id,
        csrfToken,
        expiresAt: new Date(now + sessionLifetimeMs).toISOString(),
      });
      await recordAudit(tx, deps.clock, signIn(true));
    });
    void reply.header(
      'set-cookie',
      `${sessionCookieName}=${sessionId}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${sessionLifetimeMs / 1000}${secureFlag(request)}`,
    );
    return success({ email: user.email, csrf_token: csrfToken });
  });

  app.get('/session', async (request) => {
    const principal = principalOf(request);
    if (principal.kind !== 'user' || principal.via !== 'session') throw new AppError('notAuthorized', 'not signed in to the dashboard');
    return success({ email: principal.user.email, csrf_token: principal.csrfToken });
  });

  app.delete('/session', async (request, reply) => {
    const sessionId = readCookie(request.headers, sessionCookieName);
    const principal = principalOf(request);
    if (sessionId !== undefined && principal.kind === 'user' && principal.via === 'session') {
      const user = principal.user;
      await deps.store.transaction(async (tx) => {
        await tx.deleteSession(hashSecret(sessionId));
        await recordAudit(tx, deps.clock, {
          action: 'session.delete',
          actor: { type: 'user', id: user.id, email: user.email, ip: request.ip },
          ownerId: user.id,
          resource: { type: 'user.session', id: user.id },
        });
      });
    } else if (sessionId !== undefined) {
      await deps.store.deleteSession(hashSecret(sessionId));
    }
    void reply.header('set-cookie', `${sessionCookieName}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secureFlag(request)}`);
    return success(null);
  });
}
