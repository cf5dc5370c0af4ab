/**
 * What the token routes share (routes/account/tokens.ts, token-value.ts, token-permission-groups.ts): a
 * token as the public API shows it, who may manage tokens, and the token a path names.
 */
import type { FastifyRequest } from 'fastify';
import { permissionGroupOf, zoneResourcePrefix } from '../accounts/permission-groups.ts';
import { tokenStateAt } from '../accounts/token-access.ts';
import { AppError, appError } from '../core/app-error.ts';
import type { ApiToken, Store, User } from '../store/store.ts';
import { principalOf } from './request-context.ts';

/** A token as the API shows it (never its value or hash). */
export function tokenView(token: ApiToken, nowMs: number) {
  const state = tokenStateAt(token, nowMs);
  return {
    id: token.id,
    name: token.name,
    status: state === 'notBefore' ? 'active' : state,
    issued_on: token.createdAt,
    modified_on: token.modifiedOn,
    ...(token.expiresOn === null ? {} : { expires_on: token.expiresOn }),
    ...(token.notBefore === null ? {} : { not_before: token.notBefore }),
    policies: token.policies.map((policy) => ({
      id: policy.id,
      effect: 'allow' as const,
      permission_groups: policy.permissions.map((p) => {
        const group = permissionGroupOf(p);
        return { id: group.id, name: group.name };
      }),
      resources: Object.fromEntries(policy.zoneIds.map((zoneId) => [`${zoneResourcePrefix}${zoneId}`, '*'])),
    })),
    condition: {},
  };
}

/** The user a token-management request acts for: the global key or the dashboard, not a token. */
export function tokenManager(request: FastifyRequest): User {
  const principal = principalOf(request);
  if (principal.kind === 'token') throw new AppError('notAuthorized', 'API tokens cannot manage tokens; use the global API key or the dashboard');
  return principal.user;
}

const tokenIdPattern = /^[0-9a-f]{32}$/;

/** The user's token named in the path; 404 for another user's token or none. */
export async function pathToken(request: FastifyRequest, store: Store, user: User): Promise<ApiToken> {
  const id = (request.params as { token_id?: string }).token_id ?? '';
  const token = tokenIdPattern.test(id) ? await store.findToken(user.id, id) : undefined;
  if (token === undefined) throw appError('notFound', 'no such API token');
  return token;
}
