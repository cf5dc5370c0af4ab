import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../core/app-error.ts';
import { noEnabledJobNotice } from '../../../core/notice.ts';
import { findDataset } from '../../../domain/datasets/http-requests.ts';
import { authenticate, authorizeZone } from '../../auth.ts';
import { IngestAdmission } from '../../ingest-admission.ts';
import { success } from '../../envelope.ts';
import { contentEncodingOf, pathId } from '../../request-input.ts';
import type { ApiDeps } from '../../request-context.ts';

/**
 * `POST /ingest/zones/{zone_id}/{dataset}`: NDJSON events in, `{accepted: N}` once they are durably queued
 * (with a notice in `messages` when no enabled job exports the zone's events, so they were dropped).
 *
 * Back-pressure (ingest-admission.ts): a request is admitted only while the bodies being received and
 * processed stay under `LOGEXPORT_INGEST_MAX_BUFFERED` — a body with a Content-Length by that length before
 * it is read, a chunked body by the bytes that arrive — and while the queue's undelivered bytes stay under
 * `LOGEXPORT_QUEUE_MAX_PENDING_BYTES`. Otherwise it is answered with 429 and Retry-After, so a client faster
 * than delivery slows down instead of filling the node's memory.
 */
export function ingestRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const limit = deps.config.ingestBodyLimitBytes;
  const admission = new IngestAdmission<FastifyRequest>(deps.config.ingestMaxBufferedBytes, limit);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: limit }, (_request, body, done) => done(null, body));

  app.addHook('onRequest', async (request) => {
    const plane = deps.dataPlane;
    if (!plane.accepting()) throw new AppError('shuttingDown', undefined, 5);
    admission.admit(request, request.headers['content-length']);
    if (plane.pendingBytes() > deps.config.queueMaxPendingBytes) {
      admission.release(request);
      throw new AppError('overloaded', 'Ingest is ahead of delivery: retry after the Retry-After delay', 1);
    }
  });
  // A body without a Content-Length is counted as it streams in. Refused, the counter stops; the body's
  // stream is left as it is, so the 429 can still be sent on its connection.
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (request.headers['content-length'] !== undefined) return payload;
    const counted = admission.counter(request);
    payload.on('error', (error) => counted.destroy(error));
    return payload.pipe(counted);
  });
  const release = async (request: FastifyRequest) => admission.release(request);
  app.addHook('onResponse', release);
  // A client that gives up while its body is still arriving gets no response: its share is freed here.
  app.addHook('onRequestAbort', release);

  app.post('/ingest/zones/:zone_id/:dataset', { bodyLimit: limit }, async (request, reply) => {
    const plane = deps.dataPlane;
    const params = request.params as { zone_id?: string; dataset?: string };
    const principal = await authenticate(request, deps);
    const zone = await authorizeZone(principal, pathId(params.zone_id, 'zone'), 'ingest', deps.store);
    const dataset = findDataset(params.dataset ?? '');
    if (dataset === undefined) throw new AppError('routeNotFound', `No route for dataset ${JSON.stringify(params.dataset)}: logexport ingests http_requests`);
    const body = request.body;
    if (!Buffer.isBuffer(body) || body.length === 0) throw new AppError('ingestInvalid', 'The request holds no events: send one JSON object per line (NDJSON)');
    const result = await plane.ingestor.ingest(zone.id, dataset, { bytes: body, encoding: contentEncodingOf(request.headers), limitBytes: limit });
    const answer = success({ accepted: result.accepted });
    // Accepted, but nobody exports them: the answer says so (new jobs start disabled).
    if (result.droppedNoJob !== undefined) return reply.send({ ...answer, messages: [noEnabledJobNotice(result.droppedNoJob)] });
    return reply.send(answer);
  });
}
