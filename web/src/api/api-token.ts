/** API tokens as `GET /user/tokens` lists them, and the body that creates one (the public API's shapes). */

/** One permission group a token's policy can name (`GET /user/tokens/permission_groups`). */
export interface PermissionGroup {
  readonly id: string;
  readonly name: string;
  readonly description: string;
}

/** One grant of a token: these permission groups on these zones. */
export interface TokenPolicy {
  readonly id: string;
  readonly effect: 'allow';
  readonly permission_groups: readonly { readonly id: string; readonly name: string }[];
  /** `com.cloudflare.api.account.zone.<zone id>` → `*`. */
  readonly resources: Readonly<Record<string, string>>;
}

/** A token (never its value, except in the answer that creates it). */
export interface ApiToken {
  readonly id: string;
  readonly name: string;
  readonly status: 'active' | 'disabled' | 'expired';
  readonly issued_on: string;
  readonly expires_on?: string;
  readonly policies: readonly TokenPolicy[];
  /** Only in the answer of `POST /user/tokens`: shown once. */
  readonly value?: string;
}

export const zoneResourcePrefix = 'com.cloudflare.api.account.zone.';

/** The zone ids a token's grants name. */
export function tokenZoneIds(token: ApiToken): string[] {
  return [...new Set(token.policies.flatMap((p) => Object.keys(p.resources).filter((k) => k.startsWith(zoneResourcePrefix)).map((k) => k.slice(zoneResourcePrefix.length))))];
}

/** The names of a token's permission groups. */
export function tokenPermissionNames(token: ApiToken): string[] {
  return [...new Set(token.policies.flatMap((p) => p.permission_groups.map((g) => g.name)))];
}

/** What the create form holds. */
export interface TokenDraft {
  readonly name: string;
  readonly zoneIds: readonly string[];
  readonly groupIds: readonly string[];
  /** YYYY-MM-DD, or empty for no expiry. */
  readonly expires: string;
}

/** The body of `POST /user/tokens` for a draft: one grant of the chosen groups on the chosen zones. */
export function tokenCreateBody(draft: TokenDraft) {
  return {
    name: draft.name.trim(),
    policies: [
      {
        effect: 'allow',
        permission_groups: draft.groupIds.map((id) => ({ id })),
        resources: Object.fromEntries(draft.zoneIds.map((id) => [`${zoneResourcePrefix}${id}`, '*'])),
      },
    ],
    ...(draft.expires === '' ? {} : { expires_on: `${draft.expires}T00:00:00Z` }),
  };
}
