import type { FastifyInstance } from 'fastify';
import { createZone, verificationRecordName, verifyZone } from '../../../accounts/accounts.ts';
import { tokenZoneIds } from '../../../accounts/token-access.ts';
import { AppError } from '../../../core/app-error.ts';
import type { Zone } from '../../../store/store.ts';
import { auditActorOf } from '../../audit-actor.ts';
import { authorizeZone, principalUserId } from '../../auth.ts';
import { page, success } from '../../envelope.ts';
import { bodyObject, pathId, queryInteger, rejectUnknownKeys } from '../../request-input.ts';
import { principalOf, type ApiDeps } from '../../request-context.ts';

/**
 * A zone as the API shows it. A pending zone says which DNS TXT record proves it (the public product's
 * `verification_key` holds the value; `verification` says where it goes).
 */
function zoneView(zone: Zone) {
  return {
    id: zone.id,
    name: zone.name,
    status: zone.status,
    created_on: zone.createdAt,
    ...(zone.status === 'pending' && zone.verificationToken !== null
      ? { verification_key: zone.verificationToken, verification: { type: 'TXT', name: verificationRecordName(zone), value: zone.verificationToken } }
      : {}),
  };
}

/** `GET/POST /zones`, `GET /zones/{zone_id}`, `PUT /zones/{zone_id}/activation_check`. */
export function zoneRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const rules = { requireVerification: deps.config.zoneVerification === 'dns', maxZonesPerUser: deps.config.maxZonesPerUser };

  app.get('/zones', async (request) => {
    const principal = principalOf(request);
    const query = request.query as Record<string, unknown>;
    let zones = await deps.store.listZones(principalUserId(principal));
    if (principal.kind === 'token') {
      const visible = tokenZoneIds(principal.token);
      zones = zones.filter((z) => visible.includes(z.id));
    }
    if (typeof query.name === 'string') zones = zones.filter((z) => z.name === query.name);
    const pageNumber = queryInteger(query, 'page', 1, 1, 1_000_000);
    const perPage = queryInteger(query, 'per_page', 20, 5, 1000);
    return page(zones.map(zoneView), pageNumber, perPage);
  });

  app.post('/zones', async (request) => {
    const principal = principalOf(request);
    // Zones belong to users; a token is scoped to zones that already exist.
    if (principal.kind === 'token') throw new AppError('notAuthorized', 'API tokens cannot create zones; use the global API key or the dashboard');
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['name', 'account', 'type', 'jump_start']);
    const zone = await createZone(deps.store, deps.clock, principal.user.id, body.name, await auditActorOf(request, deps.store), rules);
    deps.changes.zoneChanged(zone.id);
    return success(zoneView(zone));
  });

  app.get('/zones/:zone_id', async (request) => {
    const zoneId = pathId((request.params as { zone_id?: string }).zone_id, 'zone');
    return success(zoneView(await authorizeZone(principalOf(request), zoneId, 'read', deps.store)));
  });

  // The official client's `zones.activationCheck.trigger`: checks a pending zone's TXT record now.
  app.put('/zones/:zone_id/activation_check', async (request) => {
    const principal = principalOf(request);
    const zoneId = pathId((request.params as { zone_id?: string }).zone_id, 'zone');
    const zone = await authorizeZone(principal, zoneId, 'edit', deps.store);
    if (principal.kind === 'token') throw new AppError('notAuthorized', 'API tokens cannot verify zones; use the global API key or the dashboard');
    const checked = await verifyZone(deps.store, deps.clock, zone, deps.resolveTxt, await auditActorOf(request, deps.store));
    deps.changes.zoneChanged(checked.id);
    return success({ id: checked.id, status: checked.status });
  });
}
