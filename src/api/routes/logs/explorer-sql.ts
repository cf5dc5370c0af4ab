import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../core/app-error.ts';
import { sqlRowsCutNotice } from '../../../core/notice.ts';
import { httpRequests } from '../../../domain/datasets/http-requests.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';

/** The query of a request: the body (POST, the SQL as text, as the official client sends it) or `?query=` (GET). */
function sqlOf(source: unknown, where: string): string {
  if (typeof source !== 'string' || source.trim() === '') {
    throw new AppError('sqlInvalid', `The query is empty: send one SELECT over http_requests ${where}, such as SELECT count(*) FROM http_requests`);
  }
  return source;
}

/**
 * `logs/explorer/query/sql`: one SELECT over the zone's `http_requests` table (its retained events), as
 * `client.logs.logExplorer.query.sql(body, {zone_id})` sends it (POST, text/plain) or as the public docs show
 * with curl (GET `?query=`). The answer's `result` is the rows as objects; `result_info` says how many, and
 * whether the row cap cut the answer (a notice in `messages` says so too). The server registers this
 * route in a scope whose body parser keeps any body as text.
 */
export function explorerSqlRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const answer = async (zoneId: string, sql: string) => {
    const { rows, truncated } = await deps.explorer.run(zoneId, httpRequests, sql);
    return {
      success: true,
      errors: [],
      messages: truncated ? [sqlRowsCutNotice(deps.config.sqlMaxRows)] : [],
      result: rows,
      result_info: { count: rows.length, truncated },
    };
  };

  app.post('/logs/explorer/query/sql', { config: { access: 'read' } }, async (request) => answer(zoneOf(request).id, sqlOf(request.body, 'as the request body')));

  app.get('/logs/explorer/query/sql', async (request) => answer(zoneOf(request).id, sqlOf((request.query as { query?: unknown }).query, 'in ?query=')));
}
