/**
 * `PUT /user/tokens/{id}/value` (the official client's `user.tokens.value.update`): rolls a token's value.
 * The answer is the new value, shown once; the old one is refused from now on, on every node.
 */
import type { FastifyInstance } from 'fastify';
import { rollToken } from '../../../accounts/accounts.ts';
import { auditActorOf } from '../../audit-actor.ts';
import { success } from '../../envelope.ts';
import type { ApiDeps } from '../../request-context.ts';
import { pathToken, tokenManager } from '../../token-answers.ts';

export function tokenValueRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.put('/user/tokens/:token_id/value', async (request) => {
    const user = tokenManager(request);
    const token = await pathToken(request, deps.store, user);
    const value = await rollToken(deps.store, deps.clock, token, await auditActorOf(request, deps.store));
    deps.changes.tokenChanged(token.id);
    return success(value);
  });
}
