import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../core/app-error.ts';
import type { Result } from '../../core/result.ts';
import { decodeOtlpJson } from '../../sources/otlp/decode-otlp-json.ts';
import { decodeOtlpProtobuf } from '../../sources/otlp/decode-otlp-protobuf.ts';
import { ingestOtlpLogs, type OtlpTarget } from '../../sources/otlp/ingest-otlp-logs.ts';
import { exportResponseBody, otlpEncodingOf, type OtlpEncoding } from '../../sources/otlp/otlp-answer.ts';
import type { OtlpLogRecord } from '../../sources/otlp/otlp-logs.ts';
import { authenticate, authorizeZone } from '../auth.ts';
import { handleOtlpError } from '../error-handler.ts';
import { contentEncodingOf, pathId } from '../request-input.ts';
import type { ApiDeps } from '../request-context.ts';

const gunzip = promisify(zlib.gunzip);

/** The body as sent, decompressed when gzip, within the limit. */
async function bodyBytesOf(request: FastifyRequest, limit: number): Promise<Buffer> {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  if (contentEncodingOf(request.headers) === 'identity') return body;
  try {
    return await gunzip(body, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new AppError('payloadTooLarge', `The decompressed body is over the ${limit}-byte limit`);
    }
    throw new AppError('otlpUndecodable', 'The body is not valid gzip');
  }
}

function decode(encoding: OtlpEncoding, bytes: Buffer): Result<readonly OtlpLogRecord[], string> {
  switch (encoding) {
    case 'protobuf':
      return decodeOtlpProtobuf(bytes);
    case 'json':
      return decodeOtlpJson(bytes.toString('utf8'));
  }
}

/**
 * OTLP/HTTP logs in (docs/sources.md): `POST /ingest/otlp/v1/logs` routes each record to its zone by host,
 * among the zones the credentials may ingest for; `POST /ingest/zones/{zone_id}/otlp/v1/logs` sends every
 * record to that zone. Registered inside the ingest routes' scope, so the body limit and back-pressure
 * (429/503 with Retry-After) are HTTP ingest's; answers and errors are OTLP's (`handleOtlpError`).
 */
export function otlpIngestRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const limit = deps.config.ingestBodyLimitBytes;
  app.setErrorHandler(handleOtlpError);

  const handle = async (request: FastifyRequest, target: (principal: Awaited<ReturnType<typeof authenticate>>) => Promise<OtlpTarget>) => {
    const encoding = otlpEncodingOf(request.headers['content-type']);
    if (encoding === undefined) {
      throw new AppError('unsupportedMediaType', 'OTLP/HTTP bodies are application/x-protobuf or application/json');
    }
    const principal = await authenticate(request.headers, request.method, deps.store, deps.clock);
    const where = await target(principal);
    const decoded = decode(encoding, await bodyBytesOf(request, limit));
    if (!decoded.ok) throw new AppError('otlpUndecodable', decoded.error);
    const outcome = await ingestOtlpLogs(decoded.value, where, deps.dataPlane.ingestor);
    return exportResponseBody(encoding, outcome.rejected, outcome.errorMessage);
  };

  app.post('/ingest/otlp/v1/logs', { bodyLimit: limit }, async (request, reply) => {
    const answer = await handle(request, async (principal) => ({
      kind: 'byHost',
      zoneForHost: (host) => deps.zoneDirectory.zoneForHost(host),
      mayIngest: async (zone) =>
        authorizeZone(principal, zone.id, 'ingest', deps.store).then(
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
