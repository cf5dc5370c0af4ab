import type { FastifyInstance } from 'fastify';
import { appError } from '../../../core/app-error.ts';
import { auditZoneChange, zoneAuditOf } from '../../audit-actor.ts';
import { success } from '../../envelope.ts';
import { retainsWith } from '../../zone-retention.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';
import { bodyObject, rejectUnknownKeys } from '../../request-input.ts';

/**
 * `logs/control/retention/flag`: the zone's Logpull retention flag, as the official client calls it
 * (`client.logs.control.retention.get` / `.create`). Off by default; turning it on starts keeping the
 * events that arrive from then on, turning it off keeps what was stored until it ages out.
 */
export function retentionFlagRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/logs/control/retention/flag', async (request) => {
    const zone = zoneOf(request);
    return success({ flag: await deps.store.getRetentionFlag(zone.id) });
  });

  app.post('/logs/control/retention/flag', async (request) => {
    const zone = zoneOf(request);
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['flag']);
    if (typeof body.flag !== 'boolean') throw appError('invalidInput', 'flag must be true or false', '/flag');
    const flag = body.flag;
    const was = await deps.store.getRetentionFlag(zone.id);
    const datasets = await deps.store.listExplorerDatasets(zone.id);
    // An enabled Log Explorer dataset keeps the zone retaining whatever the flag says.
    const retainedBefore = retainsWith(was, datasets);
    const retainsAfter = retainsWith(flag, datasets);
    const audit = await zoneAuditOf(request, deps.store, zone);
    if (retainsAfter && !retainedBefore) await deps.retention.beforeEnable(zone.id);
    try {
      await deps.store.transaction(async (tx) => {
        await tx.setRetentionFlag(zone.id, flag, new Date(deps.clock.now()).toISOString());
        await auditZoneChange(tx, deps.clock, audit, {
          action: 'retention.update',
          resource: { type: 'logs.retention', id: zone.id },
          oldValue: { flag: was },
          newValue: { flag },
        });
      });
    } catch (error) {
      // A consumer nobody reads would hold the zone's events in the queue: it goes with the failed change.
      if (retainsAfter && !retainedBefore) await deps.retention.afterDisable(zone.id).catch(() => {});
      throw error;
    }
    deps.changes.zoneChanged(zone.id);
    if (!retainsAfter && retainedBefore) await deps.retention.afterDisable(zone.id);
    return success({ flag });
  });
}
