import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, appError, type ErrorDetail } from '../../../core/app-error.ts';
import { httpRequests, type DatasetField } from '../../../domain/datasets/http-requests.ts';
import { logpullText } from '../../../retention/logpull-output.ts';
import { readRetainedNdjson } from '../../../retention/retained-ndjson.ts';
import { parseLogpullOutput, parseLogpullQuery, type LogpullOutput } from '../../../retention/logpull-query.ts';
import { readRetained, type ReceiveWindow } from '../../../retention/retained-reader.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';

/** What the reader must fetch: the written fields, plus RayID when sampling needs it to decide. */
function fieldsToRead(output: LogpullOutput): readonly DatasetField[] {
  const rayId = httpRequests.field('RayID');
  if (output.sample >= 1 || rayId === undefined || output.fields.some((f) => f.name === 'RayID')) return output.fields;
  return [...output.fields, rayId];
}

/**
 * The answer's text: for Unix-nanosecond timestamps DuckDB writes the lines of compacted segments and hot
 * lines are projected from their bytes (retained-ndjson.ts); other timestamp formats go through the job
 * formatter record by record.
 */
function answerText(deps: ApiDeps, zoneId: string, window: ReceiveWindow, output: LogpullOutput, only?: { readonly rayId: string }): AsyncIterable<Buffer> {
  if (output.timestamps === 'unixnano') return readRetainedNdjson(deps.retention.source, zoneId, window, output, httpRequests, only);
  return logpullText(readRetained(deps.retention.source, zoneId, window, httpRequests, fieldsToRead(output), only), output, httpRequests);
}

/** Streams NDJSON, gzip-compressed when the client accepts it; a failure mid-way ends the connection. */
function sendNdjson(request: FastifyRequest, reply: FastifyReply, pieces: AsyncIterable<Buffer>): FastifyReply {
  const text = Readable.from(pieces);
  const accepts = request.headers['accept-encoding'];
  const gzip = typeof accepts === 'string' && /\bgzip\b/.test(accepts);
  reply.header('content-type', 'application/x-ndjson');
  if (!gzip) return reply.send(text);
  reply.header('content-encoding', 'gzip');
  const compressed = zlib.createGzip({ level: 3 });
  text.on('error', (error) => compressed.destroy(error));
  return reply.send(text.pipe(compressed));
}

function logpullError(problems: readonly ErrorDetail[]): AppError {
  return new AppError('logpullInvalid', problems);
}

/**
 * Logpull over the zone's retained events, as the official client calls it: `logs/received`
 * (`client.logs.received.get`), `logs/received/fields` and `logs/rayids/{ray_id}` (`client.logs.RayID.get`).
 */
export function logpullRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const requireRetention = async (zoneId: string): Promise<void> => {
    if (!(await deps.store.getRetentionFlag(zoneId))) throw new AppError('retentionOff');
  };

  app.get('/logs/received', async (request, reply) => {
    const zone = zoneOf(request);
    const parsed = parseLogpullQuery(request.query as Record<string, unknown>, httpRequests, deps.clock.now(), deps.retention.retentionMs);
    if (!parsed.ok) throw logpullError(parsed.error);
    await requireRetention(zone.id);
    const query = parsed.value;
    return sendNdjson(request, reply, answerText(deps, zone.id, query.window, query));
  });

  app.get('/logs/received/fields', async () => {
    const fields: Record<string, string> = {};
    for (const field of httpRequests.fields) fields[field.name] = `type: ${field.type}; ${field.description}${field.deprecated === true ? ' (deprecated)' : ''}`;
    // The product answers this one route with the bare object, not the envelope (the client returns it as is).
    return fields;
  });

  app.get('/logs/rayids/:ray_id', async (request, reply) => {
    const zone = zoneOf(request);
    const rayId = (request.params as { ray_id?: string }).ray_id ?? '';
    if (!/^[0-9A-Za-z-]{1,64}$/.test(rayId)) throw appError('logpullInvalid', 'ray_id: must be a RayID (letters, digits and "-", at most 64)', '/ray_id');
    const problems: ErrorDetail[] = [];
    const output = parseLogpullOutput(request.query as Record<string, unknown>, httpRequests, ['fields', 'timestamps'], problems);
    if (problems.length > 0) throw logpullError(problems);
    await requireRetention(zone.id);
    const now = BigInt(deps.clock.now()) * 1_000_000n;
    const window: ReceiveWindow = { startNs: now - BigInt(deps.retention.retentionMs) * 1_000_000n, endNs: now + 3_600_000_000_000n };
    return sendNdjson(request, reply, answerText(deps, zone.id, window, output, { rayId }));
  });
}
