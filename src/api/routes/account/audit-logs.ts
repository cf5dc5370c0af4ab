/**
 * `GET /user/audit_logs`: the audit log as the public product serves it and the official client reads it
 * (`client.user.auditLogs.list`), filtered by time, zone, action and actor, newest first by default. A user
 * sees the entries of their own account (their zones' changes and their own sign-ins); an API token with
 * `logs:read` or `logs:edit` sees those of its zones.
 */
import type { FastifyInstance } from 'fastify';
import { AppError, appError } from '../../../core/app-error.ts';
import { parseIpNetwork } from '../../../core/ip-network.ts';
import { tokenZoneIdsWith } from '../../../accounts/token-access.ts';
import type { AuditEntry, AuditQuery } from '../../../store/store.ts';
import { permissionFor } from '../../auth.ts';
import { success } from '../../envelope.ts';
import { queryInteger } from '../../request-input.ts';
import { principalOf, type ApiDeps } from '../../request-context.ts';

const knownParameters = ['id', 'page', 'per_page', 'direction', 'since', 'before', 'zone.name', 'action.type', 'actor.email', 'actor.ip', 'export', 'hide_user_logs'];

/** An entry as the API shows it (the product's field names; values are JSON text with secrets masked). */
export function auditEntryView(entry: AuditEntry) {
  return {
    id: entry.id,
    when: entry.when,
    action: entry.action,
    actor: entry.actor,
    owner: { id: entry.ownerId },
    resource: entry.resource,
    zone: entry.zone,
    oldValue: entry.oldValue,
    newValue: entry.newValue,
    metadata: entry.metadata === null ? {} : (JSON.parse(entry.metadata) as unknown),
  };
}

/** A date (`2026-05-01`) or date-time in RFC 3339, as the stored form (ISO 8601 in UTC). */
function timeOf(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  const ok = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value);
  const ms = ok ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw appError('invalidInput', `${name} must be an RFC 3339 date or date-time such as 2026-05-01 or 2026-05-01T10:00:00Z`, `/${name}`);
  return new Date(ms).toISOString();
}

function text(query: Readonly<Record<string, unknown>>, name: string, maxLength = 255): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    throw appError('invalidInput', `${name} must be given once, as 1 to ${maxLength} characters`, `/${name}`);
  }
  return value;
}

function flag(query: Readonly<Record<string, unknown>>, name: string): boolean {
  const value = query[name];
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw appError('invalidInput', `${name} must be true or false`, `/${name}`);
}

/** The audit log of the caller's account. */
export function auditLogRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/user/audit_logs', async (request) => {
    const principal = principalOf(request);
    const query = (request.query ?? {}) as Readonly<Record<string, unknown>>;
    for (const name of Object.keys(query)) {
      if (!knownParameters.includes(name)) throw appError('invalidInput', `unknown query parameter ${JSON.stringify(name)}; known: ${knownParameters.join(', ')}`, `/${name}`);
    }
    if (flag(query, 'export')) throw appError('invalidInput', 'export (CSV) is not supported; page through the JSON answer instead', '/export');
    const direction = text(query, 'direction') ?? 'desc';
    if (direction !== 'desc' && direction !== 'asc') throw appError('invalidInput', 'direction must be desc or asc', '/direction');
    let ownerId: string;
    let zoneIds: readonly string[] | undefined;
    if (principal.kind === 'token') {
      zoneIds = tokenZoneIdsWith(principal.token, permissionFor.read);
      if (zoneIds.length === 0) throw new AppError('notAuthorized', 'reading the audit log needs a token with logs:read or logs:edit');
      ownerId = principal.userId;
    } else {
      ownerId = principal.user.id;
    }
    const since = timeOf(query.since, 'since');
    const before = timeOf(query.before, 'before');
    const zoneName = text(query, 'zone.name')?.toLowerCase();
    const actionType = text(query, 'action.type');
    const actorEmail = text(query, 'actor.email')?.toLowerCase();
    const actorIp = text(query, 'actor.ip', 64);
    if (actorIp !== undefined && actorIp.includes('/') && parseIpNetwork(actorIp) === undefined) {
      throw appError('invalidInput', 'actor.ip must be an IP address or a CIDR range such as 198.51.100.0/24', '/actor.ip');
    }
    const id = text(query, 'id', 64);
    const auditQuery: AuditQuery = {
      ownerId,
      direction,
      page: queryInteger(query, 'page', 1, 1, 1_000_000),
      perPage: queryInteger(query, 'per_page', 100, 1, 1000),
      ...(zoneIds === undefined ? {} : { zoneIds }),
      ...(since === undefined ? {} : { since }),
      ...(before === undefined ? {} : { before }),
      ...(zoneName === undefined ? {} : { zoneName }),
      ...(actionType === undefined ? {} : { actionType }),
      ...(actorEmail === undefined ? {} : { actorEmail }),
      ...(actorIp === undefined ? {} : { actorIp }),
      ...(id === undefined ? {} : { id }),
      ...(flag(query, 'hide_user_logs') ? { zoneEntriesOnly: true } : {}),
    };
    const { entries, total } = await deps.store.listAudit(auditQuery);
    return success(entries.map(auditEntryView), {
      page: auditQuery.page,
      per_page: auditQuery.perPage,
      count: entries.length,
      total_count: total,
      total_pages: Math.max(1, Math.ceil(total / auditQuery.perPage)),
    });
  });
}
