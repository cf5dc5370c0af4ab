import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/config.ts';
import { appError, AppError } from '../core/app-error.ts';
import type { Clock } from '../core/clock.ts';
import type { CounterRegistry } from '../pipeline/counter-registry.ts';
import type { Ingestor } from '../pipeline/ingest.ts';
import type { Job, Store, Zone } from '../store/store.ts';
import { authenticate, authorizeZone, type Access, type Principal } from './auth.ts';
import { handleError } from './error-handler.ts';
import { pathId } from './request-input.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { datasetRoutes } from './routes/datasets.ts';
import { ingestRoutes } from './routes/ingest.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { statsRoutes } from './routes/stats.ts';
import { jobRoutes } from './routes/jobs.ts';
import { ownershipRoutes } from './routes/ownership.ts';
import { rulesetRoutes } from './routes/rulesets.ts';
import { validateRoutes } from './routes/validate.ts';
import { sessionRoutes } from './routes/session.ts';
import { zoneRoutes } from './routes/zones.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    zone?: Zone;
  }
  interface FastifyContextConfig {
    /** What a zone route does with the zone; GET routes read, everything else edits, unless set. */
    access?: Access;
    /** The route answers without credentials (sign-in). */
    public?: boolean;
  }
}

/** Told when zone configuration changes, so the data plane can pick it up. */
export interface ConfigChangeListener {
  zoneChanged(zoneId: string): void;
}

/** What the data plane must do when a job starts or stops running. */
export interface JobLifecycle {
  /** Before a job is stored as enabled (created enabled, or enabled again): it exports events from now on. */
  beforeEnable(job: Job): Promise<void>;
  /** After a job was disabled or deleted. */
  afterDisable(job: Job): Promise<void>;
}

/** The data plane as the API sees it: ingest, back-pressure, and the job counters. */
export interface DataPlaneApi {
  readonly ingestor: Ingestor;
  readonly counters: CounterRegistry;
  /** Queued bytes not yet delivered by every job. */
  pendingBytes(): number;
  /** False once the node is stopping: ingest answers 503. */
  accepting(): boolean;
}

/** What the API needs from the rest of the service. */
export interface ApiDeps {
  readonly config: AppConfig;
  readonly store: Store;
  readonly clock: Clock;
  /** Signs ownership challenges and sessions. */
  readonly secret: string;
  readonly changes: ConfigChangeListener;
  readonly jobs: JobLifecycle;
  readonly dataPlane: DataPlaneApi;
  /** The built dashboard (web/dist). */
  readonly dashboardDir: string;
}

/** The authenticated principal of a request that passed the zone or user hook. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === undefined) throw new AppError('missingAuthHeaders');
  return request.principal;
}

/** The zone of a zone route, checked for access by the zone hook. */
export function zoneOf(request: FastifyRequest): Zone {
  if (request.zone === undefined) throw new AppError('notAuthorized');
  return request.zone;
}

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

/** Builds the HTTP server: the /client/v4 API (and, as they are added, ingest, metrics and the dashboard). */
export function buildServer(deps: ApiDeps): FastifyInstance {
  const app = Fastify({
    logger: deps.config.logLevel === 'silent' ? false : { level: deps.config.logLevel },
    // Per-request log lines would dominate at ingest rates; errors are still logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.apiBodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: true,
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
        request.principal = await authenticate(request.headers, request.method, deps.store, deps.clock);
      });

      zoneRoutes(api, deps);
      sessionRoutes(api, deps);

      await api.register(
        async (zoned) => {
          zoned.addHook('preHandler', async (request) => {
            const zoneId = pathId((request.params as { zone_id?: string }).zone_id, 'zone');
            const access = request.routeOptions.config.access ?? (request.method === 'GET' ? 'read' : 'edit');
            request.zone = await authorizeZone(principalOf(request), zoneId, access, deps.store);
          });
          rulesetRoutes(zoned, deps);
          // Every log export route answers under both path words, so clients written for the public
          // product (which say "logpush") work unchanged.
          for (const word of ['logexport', 'logpush']) {
            await zoned.register(
              async (logs) => {
                jobRoutes(logs, deps);
                ownershipRoutes(logs, deps);
                validateRoutes(logs, deps);
                datasetRoutes(logs);
                statsRoutes(logs, deps);
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
  void app.register(async (ingest) => ingestRoutes(ingest, deps));
  metricsRoutes(app, deps);
  dashboardRoutes(app, deps.dashboardDir);
  return app;
}
