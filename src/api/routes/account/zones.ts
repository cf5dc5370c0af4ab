import type { FastifyInstance } from 'fastify';
import { createZone } from '../../../accounts/accounts.ts';
import { AppError } from '../../../core/app-error.ts';
import type { Zone } from '../../../store/store.ts';
import { auditActorOf } from '../../audit-actor.ts';
import { authorizeZone, principalUserId } from '../../auth.ts';
import { page, success } from '../../envelope.ts';
import { bodyObject, pathId, queryInteger, rejectUnknownKeys } from '../../request-input.ts';
import { principalOf, type ApiDeps } from '../../request-context.ts';

/** A zone as the API shows it. */
function zoneView(zone: Zone) {
  return { id: zone.id, name: zone.name, status: 'active', created_on: zone.createdAt };
}

/** `GET/POST /zones`, `GET /zones/{zone_id}`. */
export function zoneRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/zones', async (request) => {
    const principal = principalOf(request);
    const query = request.query as Record<string, unknown>;
    let zones = await deps.store.listZones(principalUserId(principal));
    if (principal.kind === 'token') zones = zones.filter((z) => principal.token.zoneIds.includes(z.id));
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
    const zone = await createZone(deps.store, deps.clock, principal.user.id, body.name, await auditActorOf(request, deps.store));
    return success(zoneView(zone));
  });

  app.get('/zones/:zone_id', async (request) => {
    const zoneId = pathId((request.params as { zone_id?: string }).zone_id, 'zone');
    return success(zoneView(await authorizeZone(principalOf(request), zoneId, 'read', deps.store)));
  });
}
