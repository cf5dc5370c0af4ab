/**
 * The HTTP server: the /client/v4 API (authentication hook, zone access hook, every route under both path
 * words), the ingest endpoints, /metrics and the dashboard. Errors of every route reach the one error
 * handler (error-handler.ts). Routes get what they need through request-context.ts, never from here.
 */
import websocket from '@fastify/websocket';
import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { TrustProxy } from '../config/config.ts';
import { appError, AppError } from '../core/app-error.ts';
import { authenticate, authorizeZone } from './auth.ts';
import { handleError } from './error-handler.ts';
import { principalOf, type ApiDeps } from './request-context.ts';
import { pathId } from './request-input.ts';
import { auditLogRoutes } from './routes/account/audit-logs.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { datasetRoutes } from './routes/logpush/datasets.ts';
import { ingestRoutes } from './routes/ingest/ingest.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { otlpIngestRoutes } from './routes/ingest/otlp-ingest.ts';
import { statsRoutes } from './routes/logpush/stats.ts';
import { sourcesRoutes } from './routes/logpush/sources.ts';
import { jobRoutes } from './routes/logpush/jobs.ts';
import { liveSessionRoutes, liveStreamRoutes } from './routes/logs/live-sessions.ts';
import { logpullRoutes } from './routes/logs/logpull.ts';
import { retentionFlagRoutes } from './routes/logs/retention-flag.ts';
import { explorerAccountRoutes, explorerDatasetRoutes } from './routes/logs/explorer-datasets.ts';
import { explorerSqlRoutes } from './routes/logs/explorer-sql.ts';
import { replayRoutes } from './routes/logpush/replay.ts';
import { ownershipRoutes } from './routes/logpush/ownership.ts';
import { rulesetRuleRoutes } from './routes/rulesets/ruleset-rules.ts';
import { rulesetRoutes } from './routes/rulesets/rulesets.ts';
import { rulesetVersionRoutes } from './routes/rulesets/ruleset-versions.ts';
import { validateRoutes } from './routes/logpush/validate.ts';
import { sessionRoutes } from './routes/account/session.ts';
import { zoneRoutes } from './routes/account/zones.ts';
import { tokenPermissionGroupRoutes } from './routes/account/token-permission-groups.ts';
import { tokenValueRoutes } from './routes/account/token-value.ts';
import { tokenRoutes } from './routes/account/tokens.ts';

function parseJsonBody(_request: FastifyRequest, body: string, done: (err: Error | null, value?: unknown) => void): void {
  if (body.trim() === '') {
    done(null, undefined);
    return;
  }
  try {
    done(null, JSON.parse(body));
  } catch {
    done(new AppError('malformedJson'));
  }
}

/** A body kept as the text it is (a Log Explorer query). */
function keepText(_request: FastifyRequest, body: string, done: (err: Error | null, value?: unknown) => void): void {
  done(null, body);
}

/**
 * LOGEXPORT_TRUST_PROXY as Fastify takes it (a hop count becomes the function proxy-addr would build). With a
 * list, proxy-addr walks X-Forwarded-For from the right and stops at the first address not in it: the client
 * is the right-most untrusted address, whatever the client wrote further left.
 */
function fastifyTrustProxy(trust: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust === false ? false : [...trust];
}

/** Builds the HTTP server: the /client/v4 API (and, as they are added, ingest, metrics and the dashboard). */
export function buildServer(deps: ApiDeps): FastifyInstance {
  const app = Fastify({
    logger: deps.config.logLevel === 'silent' ? false : { level: deps.config.logLevel },
    // Per-request log lines would dominate at ingest rates; errors are still logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.apiBodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: true,
    // Behind a reverse proxy the client's address and scheme come from X-Forwarded-For / -Proto, believed
    // only from the proxies this setting names (request.ip, request.protocol).
    trustProxy: fastifyTrustProxy(deps.config.trustProxy),
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    handleError(appError('routeNotFound', `No route for ${request.method} ${request.url.split('?')[0] ?? ''}`), request, reply);
  });

  void app.register(
    async (api) => {
      // Every API body is JSON, whatever the client calls it (curl -d sends form encoding by default).
      api.removeAllContentTypeParsers();
      api.addContentTypeParser('*', { parseAs: 'string' }, parseJsonBody);

      api.addHook('onRequest', async (request) => {
        if (request.routeOptions.config.public === true) return;
        request.principal = await authenticate(request, deps);
      });

      zoneRoutes(api, deps);
      sessionRoutes(api, deps);
      tokenRoutes(api, deps);
      tokenValueRoutes(api, deps);
      tokenPermissionGroupRoutes(api, deps);
      auditLogRoutes(api, deps);
      // Any body: these calls are answered with where to go instead, whatever they carry.
      await api.register(async (accounts) => {
        accounts.removeAllContentTypeParsers();
        accounts.addContentTypeParser('*', { parseAs: 'string' }, keepText);
        explorerAccountRoutes(accounts);
      });

      await api.register(
        async (zoned) => {
          zoned.addHook('preHandler', async (request) => {
            const zoneId = pathId((request.params as { zone_id?: string }).zone_id, 'zone');
            const access = request.routeOptions.config.access ?? (request.method === 'GET' ? 'read' : 'edit');
            request.zone = await authorizeZone(principalOf(request), zoneId, access, deps.store);
          });
          rulesetRoutes(zoned, deps);
          rulesetRuleRoutes(zoned, deps);
          rulesetVersionRoutes(zoned, deps);
          // Logpull and its retention flag have one path only (`/logs/…`), as in the product.
          retentionFlagRoutes(zoned, deps);
          logpullRoutes(zoned, deps);
          explorerDatasetRoutes(zoned, deps);
          // A Log Explorer query is SQL text, whatever the client calls its type (the official client says text/plain).
          await zoned.register(async (sql) => {
            sql.removeAllContentTypeParsers();
            sql.addContentTypeParser('*', { parseAs: 'string' }, keepText);
            explorerSqlRoutes(sql, deps);
          });
          // Every log export route answers under both path words, so clients written for the public
          // product (which say "logpush") work unchanged.
          for (const word of ['logexport', 'logpush']) {
            await zoned.register(
              async (logs) => {
                jobRoutes(logs, deps);
                replayRoutes(logs, deps);
                ownershipRoutes(logs, deps);
                validateRoutes(logs, deps);
                datasetRoutes(logs);
                statsRoutes(logs, deps);
                sourcesRoutes(logs, deps);
                liveSessionRoutes(logs, deps);
              },
              { prefix: `/${word}` },
            );
          }
        },
        { prefix: '/zones/:zone_id' },
      );
    },
    { prefix: '/client/v4' },
  );
  // Instant Logs viewers: a WebSocket per session, outside /client/v4 (the session id is the credential).
  void app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  void app.register(async (live) => liveStreamRoutes(live, deps));
  void app.register(async (ingest) => {
    ingestRoutes(ingest, deps);
    // A scope of its own for its OTLP error answers, inside ingest's for its body limit and back-pressure.
    await ingest.register(async (otlp) => otlpIngestRoutes(otlp, deps));
  });
  metricsRoutes(app, deps);
  dashboardRoutes(app, deps.dashboardDir);
  return app;
}
