/**
 * The audit log as the API writes it: who a request acts as (the principal, and the client's address —
 * behind a trusted proxy, the forwarded one), and the entry of a change to one of the request's zone's
 * resources. Routes call `auditZoneChange` with the transaction's store, inside the transaction of the
 * change (audit/record-audit.ts says why).
 */
import type { FastifyRequest } from 'fastify';
import { recordAudit, type AuditRecord } from '../audit/record-audit.ts';
import type { Clock } from '../core/clock.ts';
import type { AuditActor, Store, Zone } from '../store/store.ts';
import { principalOf } from './request-context.ts';

/** The actor of an authenticated request. */
export async function auditActorOf(request: FastifyRequest, store: Store): Promise<AuditActor> {
  const principal = principalOf(request);
  if (principal.kind === 'user') return { type: 'user', id: principal.user.id, email: principal.user.email, ip: request.ip };
  const owner = await store.findUserById(principal.userId);
  return { type: 'token', id: principal.token.id, email: owner?.email ?? null, ip: request.ip };
}

/** Who changes which zone: read before the transaction, so the transaction only writes. */
export interface ZoneAudit {
  readonly actor: AuditActor;
  readonly zone: Zone;
}

/** The actor and zone of a zone route's request. */
export async function zoneAuditOf(request: FastifyRequest, store: Store, zone: Zone): Promise<ZoneAudit> {
  return { actor: await auditActorOf(request, store), zone };
}

/** Records a change to a resource of the audited zone, through `tx` (the change's transaction). */
export function auditZoneChange(
  tx: Store,
  clock: Clock,
  audit: ZoneAudit,
  change: Pick<AuditRecord, 'action' | 'resource' | 'oldValue' | 'newValue' | 'metadata'>,
): Promise<void> {
  return recordAudit(tx, clock, { ...change, actor: audit.actor, ownerId: audit.zone.userId, zone: audit.zone });
}
