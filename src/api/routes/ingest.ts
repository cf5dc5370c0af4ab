import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../core/app-error.ts';
import { findDataset } from '../../domain/datasets/http-requests.ts';
import { authenticate, authorizeZone } from '../auth.ts';
import { success } from '../envelope.ts';
import { pathId } from '../request-input.ts';
import type { ApiDeps } from '../server.ts';

/** The body's encoding, from Content-Encoding: as is, or gzip. */
function encodingOf(request: FastifyRequest): 'identity' | 'gzip' {
  const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  if (encoding === 'identity') return 'identity';
  if (encoding === 'gzip' || encoding === 'x-gzip') return 'gzip';
  throw new AppError('unsupportedMediaType', `Content-Encoding ${JSON.stringify(encoding)} is not supported: send the body as is or gzip-compressed`);
}

/** `POST /ingest/zones/{zone_id}/{dataset}`: NDJSON events in, `{accepted: N}` once they are durably queued. */
export function ingestRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const limit = deps.config.ingestBodyLimitBytes;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: limit }, (_request, body, done) => done(null, body));

  app.post('/ingest/zones/:zone_id/:dataset', { bodyLimit: limit }, async (request, reply) => {
    const plane = deps.dataPlane;
    if (!plane.accepting()) throw new AppError('shuttingDown', undefined, 5);
    const params = request.params as { zone_id?: string; dataset?: string };
    const principal = await authenticate(request.headers, request.method, deps.store, deps.clock);
    const zone = await authorizeZone(principal, pathId(params.zone_id, 'zone'), 'ingest', deps.store);
    const dataset = findDataset(params.dataset ?? '');
    if (dataset === undefined) throw new AppError('routeNotFound', `No route for dataset ${JSON.stringify(params.dataset)}: logexport ingests http_requests`);
    if (plane.pendingBytes() > deps.config.queueMaxPendingBytes) {
      throw new AppError('overloaded', 'Ingest is ahead of delivery: retry after the Retry-After delay', 1);
    }
    const body = request.body;
    if (!Buffer.isBuffer(body) || body.length === 0) throw new AppError('ingestInvalid', 'The request holds no events: send one JSON object per line (NDJSON)');
    const result = await plane.ingestor.ingest(zone.id, dataset, { bytes: body, encoding: encodingOf(request), limitBytes: limit });
    return reply.send(success(result));
  });
}
