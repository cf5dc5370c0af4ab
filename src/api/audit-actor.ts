/** Who a request acts as, for the audit log: the principal and the client's address (behind a trusted proxy, the forwarded one). */
import type { FastifyRequest } from 'fastify';
import type { AuditActor, Store } from '../store/store.ts';
import { principalOf } from './request-context.ts';

export async function auditActorOf(request: FastifyRequest, store: Store): Promise<AuditActor> {
  const principal = principalOf(request);
  if (principal.kind === 'user') return { type: 'user', id: principal.user.id, email: principal.user.email, ip: request.ip };
  const owner = await store.findUserById(principal.userId);
  return { type: 'token', id: principal.token.id, email: owner?.email ?? null, ip: request.ip };
}
