/** `GET /user/tokens/permission_groups`: the three groups a token's policies can name (permission-groups.ts). */
import type { FastifyInstance } from 'fastify';
import { permissionGroups } from '../../../accounts/permission-groups.ts';
import { page } from '../../envelope.ts';
import type { ApiDeps } from '../../request-context.ts';
import { tokenManager } from '../../token-answers.ts';

export function tokenPermissionGroupRoutes(app: FastifyInstance, _deps: ApiDeps): void {
  app.get('/user/tokens/permission_groups', async (request) => {
    tokenManager(request);
    return page(permissionGroups.map((g) => ({ id: g.id, name: g.name, description: g.description, scopes: g.scopes })));
  });
}
