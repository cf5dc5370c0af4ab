/**
 * The one way to write an audit log entry. Call it with the transaction's store, inside the same
 * `store.transaction` as the change it describes, so a change is never kept without its entry (nor an
 * entry without its change):
 *
 * ```ts
 * await deps.store.transaction(async (tx) => {
 *   const job = await tx.updateJob(…);
 *   await recordAudit(tx, deps.clock, { action: 'job.update', actor, ownerId: zone.userId, zone,
 *     resource: { type: 'logexport.job', id: String(job.id) }, oldValue: before, newValue: after });
 * });
 * ```
 *
 * Values are stored as JSON text with every `destination_conf` (at any depth) masked, so secrets never
 * reach the audit log whatever the caller passes.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import type { AuditAction } from './audit-action.ts';
import { maskDestinationConf } from '../domain/jobs/destination-conf.ts';
import type { AuditActor, Store, Zone } from '../store/store.ts';

/** What an entry says; everything else (id, time) is filled in. */
export interface AuditRecord {
  /** What was done: `job.create`, `ruleset.update`, `session.create`, … */
  readonly action: AuditAction;
  /** False for an attempt that failed (a wrong password); true when left out. */
  readonly result?: boolean;
  readonly actor: AuditActor;
  /** The user whose account the entry belongs to: the zone's owner, or who signed in. */
  readonly ownerId: string | null;
  readonly resource: { readonly type: string; readonly id: string | null };
  readonly zone?: Pick<Zone, 'id' | 'name'> | null;
  readonly oldValue?: unknown;
  readonly newValue?: unknown;
  readonly metadata?: unknown;
}

/** The actor of changes logexport makes itself (a job disabled after failing too long). */
export const systemActor: AuditActor = { type: 'system', id: null, email: null, ip: null };

/** A copy of `value` with every `destination_conf` string masked. */
export function maskAuditValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskAuditValue);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = (key === 'destination_conf' || key === 'destinationConf') && typeof v === 'string' ? maskDestinationConf(v) : maskAuditValue(v);
  }
  return out;
}

function asText(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(maskAuditValue(value));
}

/** Appends one entry through `store` (a transaction's store: the entry commits with the change). */
export async function recordAudit(store: Store, clock: Clock, record: AuditRecord): Promise<void> {
  await store.appendAudit({
    id: randomUUID().replace(/-/g, ''),
    when: new Date(clock.now()).toISOString(),
    action: { type: record.action, result: record.result ?? true },
    actor: record.actor,
    ownerId: record.ownerId,
    resource: record.resource,
    zone: record.zone === undefined || record.zone === null ? null : { id: record.zone.id, name: record.zone.name },
    oldValue: asText(record.oldValue),
    newValue: asText(record.newValue),
    metadata: asText(record.metadata),
  });
}
