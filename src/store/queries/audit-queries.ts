/** The audit log: entries appended (inside the transaction of the change they describe), listed per owner, pruned by age. */
import { sql, type Selectable } from 'kysely';
import { networkMatcher, parseIpNetwork } from '../../core/ip-network.ts';
import type { Database } from '../database.ts';
import type { AuditActor, AuditEntry, AuditQuery } from '../store.ts';
import type { Db } from './query-db.ts';

export async function appendAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: entry.id,
      at: entry.when,
      action_type: entry.action.type,
      action_result: entry.action.result ? 1 : 0,
      actor_type: entry.actor.type,
      actor_id: entry.actor.id,
      actor_email: entry.actor.email,
      actor_ip: entry.actor.ip,
      owner_id: entry.ownerId,
      resource_type: entry.resource.type,
      resource_id: entry.resource.id,
      zone_id: entry.zone?.id ?? null,
      zone_name: entry.zone?.name ?? null,
      old_value: entry.oldValue,
      new_value: entry.newValue,
      metadata: entry.metadata,
    })
    .execute();
}

function toEntry(row: Selectable<Database['audit_log']>): AuditEntry {
  return {
    id: row.id,
    when: row.at,
    action: { type: row.action_type, result: Number(row.action_result) === 1 },
    actor: { type: row.actor_type as AuditActor['type'], id: row.actor_id, email: row.actor_email, ip: row.actor_ip },
    ownerId: row.owner_id,
    resource: { type: row.resource_type, id: row.resource_id },
    zone: row.zone_id === null ? null : { id: row.zone_id, name: row.zone_name ?? '' },
    oldValue: row.old_value,
    newValue: row.new_value,
    metadata: row.metadata,
  };
}

export async function listAudit(db: Db, q: AuditQuery): Promise<{ readonly entries: readonly AuditEntry[]; readonly total: number }> {
  let query = db.selectFrom('audit_log').where('owner_id', '=', q.ownerId);
  if (q.zoneIds !== undefined) query = q.zoneIds.length === 0 ? query.where(sql<boolean>`1 = 0`) : query.where('zone_id', 'in', [...q.zoneIds]);
  if (q.since !== undefined) query = query.where('at', '>=', q.since);
  if (q.before !== undefined) query = query.where('at', '<', q.before);
  if (q.zoneName !== undefined) query = query.where('zone_name', '=', q.zoneName);
  if (q.actionType !== undefined) query = query.where('action_type', '=', q.actionType);
  if (q.actorEmail !== undefined) query = query.where('actor_email', '=', q.actorEmail);
  const network = q.actorIp === undefined ? undefined : parseIpNetwork(q.actorIp);
  if (q.actorIp !== undefined && network === undefined) query = query.where('actor_ip', '=', q.actorIp);
  if (q.id !== undefined) query = query.where('id', '=', q.id);
  if (q.resource !== undefined) query = query.where('resource_type', '=', q.resource.type).where('resource_id', '=', q.resource.id);
  if (q.zoneEntriesOnly === true) query = query.where('zone_id', 'is not', null);
  if (network !== undefined) {
    // SQL cannot test a range on both engines alike: the addresses are matched here, then one page read.
    const inRange = networkMatcher(network);
    const candidates = await query.select(['seq', 'actor_ip']).where('actor_ip', 'is not', null).orderBy('at', q.direction).orderBy('seq', q.direction).execute();
    const matching = candidates.filter((c) => c.actor_ip !== null && inRange(c.actor_ip)).map((c) => Number(c.seq));
    const pageSeqs = matching.slice((q.page - 1) * q.perPage, q.page * q.perPage);
    if (pageSeqs.length === 0) return { entries: [], total: matching.length };
    const rows = await db.selectFrom('audit_log').selectAll().where('seq', 'in', pageSeqs).orderBy('at', q.direction).orderBy('seq', q.direction).execute();
    return { entries: rows.map(toEntry), total: matching.length };
  }
  const { count } = await query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  const rows = await query
    .selectAll()
    .orderBy('at', q.direction)
    .orderBy('seq', q.direction)
    .limit(q.perPage)
    .offset((q.page - 1) * q.perPage)
    .execute();
  return { entries: rows.map(toEntry), total: Number(count) };
}

export async function pruneAudit(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
