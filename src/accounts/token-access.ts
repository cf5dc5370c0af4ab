/**
 * What an API token may do: the zones its grants name, the permissions it has on each, and whether it can be
 * used at a moment (not disabled, not expired, past its not-before). Authentication and every route that
 * narrows a token's view ask here, so a token's grants are read one way.
 */
import type { ApiToken, Permission } from '../store/store.ts';

/** How a token stands at a moment, as the public API reports it (`notBefore` is logexport's own word). */
export type TokenState = 'active' | 'disabled' | 'expired' | 'notBefore';

/** The token's state at `nowIso` (RFC 3339). */
export function tokenStateAt(token: ApiToken, nowMs: number): TokenState {
  if (token.status === 'disabled') return 'disabled';
  if (token.expiresOn !== null && Date.parse(token.expiresOn) <= nowMs) return 'expired';
  if (token.notBefore !== null && Date.parse(token.notBefore) > nowMs) return 'notBefore';
  return 'active';
}

/** Every zone the token names, in any grant. */
export function tokenZoneIds(token: ApiToken): readonly string[] {
  return [...new Set(token.policies.flatMap((p) => p.zoneIds))];
}

/** The zones on which the token has at least one of `permissions`. */
export function tokenZoneIdsWith(token: ApiToken, permissions: readonly Permission[]): readonly string[] {
  return [...new Set(token.policies.filter((p) => p.permissions.some((x) => permissions.includes(x))).flatMap((p) => p.zoneIds))];
}

/** Whether the token has one of `permissions` on the zone. */
export function tokenAllows(token: ApiToken, zoneId: string, permissions: readonly Permission[]): boolean {
  return token.policies.some((p) => p.zoneIds.includes(zoneId) && p.permissions.some((x) => permissions.includes(x)));
}
