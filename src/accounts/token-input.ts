/**
 * The body of `POST /user/tokens` and `PUT /user/tokens/{id}` as the public API shapes it (`name`, `policies`,
 * `expires_on`, `not_before`, `condition`, and `status` on update), parsed into a token spec. Only what
 * logexport can honour is accepted: `allow` policies of its three permission groups on named zones, no
 * address conditions. Everything else is a 400 that says why, with the pointer of the offending value.
 */
import type { ErrorDetail } from '../core/app-error.ts';
import { err, ok, type Result } from '../core/result.ts';
import type { Permission, TokenStatus } from '../store/store.ts';
import type { TokenSpec } from './accounts.ts';
import { permissionGroupById, permissionGroups, zoneResourcePrefix } from './permission-groups.ts';

/** Bounds on a token's parts. */
export const tokenInputLimits = { maxNameLength: 120, maxPolicies: 50, maxResources: 1000 } as const;

type Json = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A key's value when the object has it as its own (a client's `constructor` finds nothing on the prototype). */
function own(object: Json, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function token(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function shown(key: string): string {
  return JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key);
}

const zoneIdPattern = /^[0-9a-f]{32}$/;
const groupList = permissionGroups.map((g) => `${g.id} (${g.name}, ${g.permission})`).join(', ');

function parseDate(value: unknown, pointer: string, problems: ErrorDetail[]): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) || Number.isNaN(Date.parse(value))) {
    problems.push({ message: `${pointer.slice(1)} must be an RFC 3339 time such as 2030-01-01T00:00:00Z`, pointer });
    return null;
  }
  return new Date(Date.parse(value)).toISOString().replace(/\.000Z$/, 'Z');
}

function parsePolicy(value: unknown, pointer: string, problems: ErrorDetail[]): { zoneIds: string[]; permissions: Permission[] } | undefined {
  if (!isObject(value)) {
    problems.push({ message: 'a policy must be an object {"effect": "allow", "permission_groups": [{"id": …}], "resources": {…}}', pointer });
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(value)) {
    if (!['id', 'effect', 'permission_groups', 'resources'].includes(key)) problems.push({ message: `unknown key ${shown(key)} in a policy; a policy has effect, permission_groups and resources`, pointer: `${pointer}/${token(key)}` });
  }
  const effect = own(value, 'effect');
  if (effect !== 'allow') {
    problems.push({
      message: effect === 'deny' ? 'logexport cannot honour deny policies: list only what the token may do, with "effect": "allow"' : 'effect must be "allow"',
      pointer: `${pointer}/effect`,
    });
  }
  const permissions: Permission[] = [];
  const groups = own(value, 'permission_groups');
  if (!Array.isArray(groups) || groups.length === 0) {
    problems.push({ message: `permission_groups must be a non-empty array of {"id": …}; logexport has ${groupList}`, pointer: `${pointer}/permission_groups` });
  } else {
    groups.forEach((group: unknown, index: number) => {
      const at = `${pointer}/permission_groups/${index}`;
      const id = isObject(group) ? own(group, 'id') : undefined;
      const found = typeof id === 'string' ? permissionGroupById(id) : undefined;
      if (found === undefined) problems.push({ message: `unknown permission group ${typeof id === 'string' ? shown(id) : ''}; logexport has ${groupList}`.replace('group ;', 'group;'), pointer: `${at}/id` });
      else if (!permissions.includes(found.permission)) permissions.push(found.permission);
    });
  }
  const zoneIds: string[] = [];
  const resources = own(value, 'resources');
  if (!isObject(resources) || Object.keys(resources).length === 0) {
    problems.push({ message: `resources must be an object naming zones: {"${zoneResourcePrefix}<zone id>": "*"}`, pointer: `${pointer}/resources` });
  } else {
    const keys = Object.keys(resources);
    if (keys.length > tokenInputLimits.maxResources) problems.push({ message: `a policy names at most ${tokenInputLimits.maxResources} resources`, pointer: `${pointer}/resources` });
    for (const key of keys.slice(0, tokenInputLimits.maxResources)) {
      const at = `${pointer}/resources/${token(key)}`;
      const zoneId = key.startsWith(zoneResourcePrefix) ? key.slice(zoneResourcePrefix.length) : '';
      if (!zoneIdPattern.test(zoneId)) {
        problems.push({ message: `logexport tokens are scoped to zones named one by one: ${shown(key)} is not "${zoneResourcePrefix}<32 hex zone id>"`, pointer: at });
      } else if (own(resources, key) !== '*') {
        problems.push({ message: 'a zone resource\u2019s value must be "*"', pointer: at });
      } else if (!zoneIds.includes(zoneId)) zoneIds.push(zoneId);
    }
  }
  return problems.length === before ? { zoneIds, permissions } : undefined;
}

/** Parses a token body; `update` also takes `status` (active or disabled). */
export function parseTokenSpec(body: unknown, mode: 'create' | 'update'): Result<TokenSpec, ErrorDetail[]> {
  if (!isObject(body)) return err([{ message: 'the body must be a JSON object such as {"name": "ci", "policies": [...]}', pointer: '' }]);
  const problems: ErrorDetail[] = [];
  const allowed = ['id', 'name', 'policies', 'expires_on', 'not_before', 'condition', 'status', 'issued_on', 'modified_on', 'last_used_on'];
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) problems.push({ message: `unknown key ${shown(key)}; a token has name, policies, expires_on, not_before and status`, pointer: `/${token(key)}` });
  }
  const name = own(body, 'name');
  if (typeof name !== 'string' || name.trim() === '' || name.length > tokenInputLimits.maxNameLength) {
    problems.push({ message: `name must be a non-empty string of at most ${tokenInputLimits.maxNameLength} characters`, pointer: '/name' });
  }
  const policies: { zoneIds: string[]; permissions: Permission[] }[] = [];
  const rawPolicies = own(body, 'policies');
  if (!Array.isArray(rawPolicies) || rawPolicies.length === 0 || rawPolicies.length > tokenInputLimits.maxPolicies) {
    problems.push({ message: `policies must be an array of 1 to ${tokenInputLimits.maxPolicies} policies`, pointer: '/policies' });
  } else {
    rawPolicies.forEach((policy: unknown, index: number) => {
      const parsed = parsePolicy(policy, `/policies/${index}`, problems);
      if (parsed !== undefined) policies.push(parsed);
    });
  }
  const condition = own(body, 'condition');
  if (condition !== undefined && condition !== null && !(isObject(condition) && Object.keys(condition).every((k) => k === 'request_ip' && isEmptyCondition(own(condition, k))))) {
    problems.push({ message: 'logexport cannot restrict a token by client address: leave condition out', pointer: '/condition' });
  }
  const expiresOn = parseDate(own(body, 'expires_on'), '/expires_on', problems);
  const notBefore = parseDate(own(body, 'not_before'), '/not_before', problems);
  if (expiresOn !== null && notBefore !== null && Date.parse(expiresOn) <= Date.parse(notBefore)) {
    problems.push({ message: 'expires_on must be later than not_before', pointer: '/expires_on' });
  }
  let status: TokenStatus = 'active';
  const rawStatus = own(body, 'status');
  if (rawStatus !== undefined && rawStatus !== null) {
    if (mode === 'update' && (rawStatus === 'active' || rawStatus === 'disabled')) status = rawStatus;
    else if (mode === 'update') problems.push({ message: 'status must be "active" or "disabled" (a token expires by its expires_on)', pointer: '/status' });
    else if (rawStatus !== 'active') problems.push({ message: 'a new token is active; leave status out', pointer: '/status' });
  }
  if (problems.length > 0) return err(problems);
  return ok({ name: (name as string).trim(), policies, expiresOn, notBefore, status });
}

function isEmptyCondition(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (!isObject(value)) return false;
  return Object.keys(value).every((k) => (k === 'in' || k === 'not_in') && Array.isArray(own(value, k)) && (own(value, k) as unknown[]).length === 0);
}
