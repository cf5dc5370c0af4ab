import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../core/app-error.ts';
import { ingestOtlpLogs, type OtlpTarget } from '../../../sources/otlp/ingest-otlp-logs.ts';
import { exportResponseBody, otlpEncodingOf } from '../../../sources/otlp/otlp-answer.ts';
import { authenticate, authorizeZone, type Principal } from '../../auth.ts';
import { handleOtlpError } from '../../error-handler.ts';
import { contentEncodingOf, pathId } from '../../request-input.ts';
import type { ApiDeps } from '../../request-context.ts';

/**
 * OTLP/HTTP logs in (docs/sources.md): `POST /ingest/otlp/v1/logs` routes each record to its zone by host,
 * among the zones the credentials may ingest for; `POST /ingest/zones/{zone_id}/otlp/v1/logs` sends every
 * record to that zone. Registered inside the ingest routes' scope, so the body limit and back-pressure
 * (429/503 with Retry-After) are HTTP ingest's; answers and errors are OTLP's (`handleOtlpError`).
 */
export function otlpIngestRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const limit = deps.config.ingestBodyLimitBytes;
  app.setErrorHandler(handleOtlpError);

  const handle = async (request: FastifyRequest, target: (principal: Principal) => Promise<OtlpTarget>) => {
    const encoding = otlpEncodingOf(request.headers['content-type']);
    if (encoding === undefined) {
      throw new AppError('unsupportedMediaType', 'OTLP/HTTP bodies are application/x-protobuf or application/json');
    }
    const principal = await authenticate(request, deps);
    const where = await target(principal);
    const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const body = { bytes, encoding: contentEncodingOf(request.headers), limitBytes: limit };
    const outcome = await ingestOtlpLogs(body, encoding, where, deps.dataPlane.ingestor);
    return exportResponseBody(encoding, outcome.rejected, outcome.errorMessage);
  };

  app.post('/ingest/otlp/v1/logs', { bodyLimit: limit }, async (request, reply) => {
    const answer = await handle(request, async (principal) => ({
      kind: 'byHost',
      zones: () => deps.zoneDirectory.entries(),
      mayIngest: async (zoneId) =>
        authorizeZone(principal, zoneId, 'ingest', deps.store).then(
          () => true,
          (error: unknown) => {
            if (error instanceof AppError) return false;
            throw error;
          },
        ),
    }));
    return reply.type(answer.contentType).send(answer.body);
  });

  app.post('/ingest/zones/:zone_id/otlp/v1/logs', { bodyLimit: limit }, async (request, reply) => {
    const zoneId = pathId((request.params as { zone_id?: string }).zone_id, 'zone');
    const answer = await handle(request, async (principal) => ({ kind: 'zone', zone: await authorizeZone(principal, zoneId, 'ingest', deps.store) }));
    return reply.type(answer.contentType).send(answer.body);
  });
}
