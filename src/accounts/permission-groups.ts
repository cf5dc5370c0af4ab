/**
 * The permission groups of API tokens, as the public API names them in a token's policies: one per logexport
 * permission. Their ids are logexport's own (the product's groups cover far more than logs), fixed forever so
 * scripts and Terraform files can name them; `GET /user/tokens/permission_groups` lists them.
 */
import type { Permission } from '../store/store.ts';

/** One permission group: what a policy names in `permission_groups`. */
export interface PermissionGroup {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly permission: Permission;
  readonly scopes: readonly string[];
}

/** The resource scope of a zone in a policy: `com.cloudflare.api.account.zone.<zone id>`. */
export const zoneResourcePrefix = 'com.cloudflare.api.account.zone.';

export const permissionGroups: readonly PermissionGroup[] = [
  {
    id: 'd6d39384c70aee11eec9d4c32cfe22cf',
    name: 'Logs Read',
    description: 'Read the zone\u2019s log export configuration, Logpull, Instant Logs and the zone\u2019s audit log (logs:read)',
    permission: 'logs:read',
    scopes: ['com.cloudflare.api.account.zone'],
  },
  {
    id: '8063f98f6a8c74e6c360883bda662583',
    name: 'Logs Write',
    description: 'Everything Logs Read allows, and change jobs, custom-field rulesets and retention (logs:edit)',
    permission: 'logs:edit',
    scopes: ['com.cloudflare.api.account.zone'],
  },
  {
    id: '0c18f4ec3148caf06841fafa16e82bc0',
    name: 'Logs Ingest',
    description: 'Send events to the zone: HTTP ingest and OTLP (logs:ingest)',
    permission: 'logs:ingest',
    scopes: ['com.cloudflare.api.account.zone'],
  },
];

const byId: ReadonlyMap<string, PermissionGroup> = new Map(permissionGroups.map((g) => [g.id, g]));
const byPermission: ReadonlyMap<Permission, PermissionGroup> = new Map(permissionGroups.map((g) => [g.permission, g]));

/** The group of a policy's `permission_groups[].id`, or undefined for one logexport does not have. */
export function permissionGroupById(id: string): PermissionGroup | undefined {
  return byId.get(id);
}

/** The group that grants a permission. */
export function permissionGroupOf(permission: Permission): PermissionGroup {
  const group = byPermission.get(permission);
  if (group === undefined) throw new Error(`no permission group grants ${permission}`);
  return group;
}
