/**
 * API tokens a user manages, in the public API's shapes so the official client's `user.tokens.{create, list,
 * get, update, delete, verify}` drive them: `GET/POST /user/tokens`, `GET/PUT/DELETE /user/tokens/{id}`,
 * `GET /user/tokens/verify`. Tokens are managed with the global key or the dashboard, never by a token (a token
 * only verifies itself). A token's value is shown once, on create (and on roll, token-value.ts).
 */
import type { FastifyInstance } from 'fastify';
import { createToken, deleteToken, updateToken } from '../../../accounts/accounts.ts';
import { tokenStateAt } from '../../../accounts/token-access.ts';
import { parseTokenSpec } from '../../../accounts/token-input.ts';
import { AppError, appError } from '../../../core/app-error.ts';
import { auditActorOf } from '../../audit-actor.ts';
import { page, success } from '../../envelope.ts';
import { queryInteger } from '../../request-input.ts';
import { principalOf, type ApiDeps } from '../../request-context.ts';
import { pathToken, tokenManager, tokenView } from '../../token-answers.ts';

function spec(body: unknown, mode: 'create' | 'update') {
  const parsed = parseTokenSpec(body, mode);
  if (!parsed.ok) throw new AppError('tokenInvalid', parsed.error);
  return parsed.value;
}

export function tokenRoutes(app: FastifyInstance, deps: ApiDeps): void {
  // Registered before `/user/tokens/:token_id`, so "verify" is never read as a token id.
  app.get('/user/tokens/verify', async (request) => {
    const principal = principalOf(request);
    if (principal.kind !== 'token') throw appError('invalidInput', 'GET /user/tokens/verify checks the token sent as Authorization: Bearer <token>');
    const view = tokenView(principal.token, deps.clock.now());
    return success({ id: view.id, status: view.status, ...(view.expires_on === undefined ? {} : { expires_on: view.expires_on }), ...(view.not_before === undefined ? {} : { not_before: view.not_before }) });
  });

  app.get('/user/tokens', async (request) => {
    const user = tokenManager(request);
    const query = request.query as Record<string, unknown>;
    const now = deps.clock.now();
    const includeExpired = query.include_expired === 'true';
    let tokens = (await deps.store.listTokens(user.id)).filter((t) => includeExpired || tokenStateAt(t, now) !== 'expired');
    if (query.direction === 'desc') tokens = [...tokens].reverse();
    return page(tokens.map((t) => tokenView(t, now)), queryInteger(query, 'page', 1, 1, 1_000_000), queryInteger(query, 'per_page', 20, 5, 1000));
  });

  app.post('/user/tokens', async (request) => {
    const user = tokenManager(request);
    const { token, value } = await createToken(deps.store, deps.clock, user.id, spec(request.body, 'create'), await auditActorOf(request, deps.store));
    return success({ ...tokenView(token, deps.clock.now()), value });
  });

  app.get('/user/tokens/:token_id', async (request) => {
    const user = tokenManager(request);
    return success(tokenView(await pathToken(request, deps.store, user), deps.clock.now()));
  });

  app.put('/user/tokens/:token_id', async (request) => {
    const user = tokenManager(request);
    const before = await pathToken(request, deps.store, user);
    const after = await updateToken(deps.store, deps.clock, before, spec(request.body, 'update'), await auditActorOf(request, deps.store));
    deps.changes.tokenChanged(after.id);
    return success(tokenView(after, deps.clock.now()));
  });

  app.delete('/user/tokens/:token_id', async (request) => {
    const user = tokenManager(request);
    const token = await pathToken(request, deps.store, user);
    await deleteToken(deps.store, deps.clock, token, await auditActorOf(request, deps.store));
    deps.changes.tokenChanged(token.id);
    return success({ id: token.id });
  });
}
