import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../core/app-error.ts';
import { otlpEncodingOf, statusBody } from '../sources/otlp/otlp-answer.ts';
import { failure } from './envelope.ts';

/** Fastify's own request errors that mean the client sent something wrong, mapped to our catalogue. */
function fromFastifyError(error: FastifyError): AppError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payloadTooLarge');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupportedMediaType');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalidInput', 'The request body is not valid');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('malformedJson');
    default:
      if (error instanceof SyntaxError) return new AppError('malformedJson');
      return undefined;
  }
}

/**
 * The one place a thrown error becomes an HTTP answer: AppErrors keep their code, status and
 * messages; a client error Fastify raised is mapped; anything else is a 500 that says "internal error".
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const mapped = fromFastifyError(error as FastifyError);
    if (mapped !== undefined) return mapped;
  }
  return new AppError('internal');
}

/** Fastify error handler writing the v4 envelope. */
export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const appError = toAppError(error);
  if (appError.kind === 'internal') request.log.error({ err: error }, 'A request failed with an unexpected error.');
  if (appError.retryAfterSeconds !== undefined) void reply.header('retry-after', String(appError.retryAfterSeconds));
  void reply.status(appError.status).type('application/json; charset=utf-8').send(failure(appError));
}

/** The google.rpc.Code an OTLP `Status` carries for an HTTP status. */
function rpcCodeOf(status: number): number {
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 403) return 7; // PERMISSION_DENIED
  if (status === 429) return 8; // RESOURCE_EXHAUSTED
  if (status === 503) return 14; // UNAVAILABLE
  if (status >= 500) return 13; // INTERNAL
  return 3; // INVALID_ARGUMENT
}

/**
 * Fastify error handler of the OTLP/HTTP endpoints: the same errors, answered as the OTLP specification
 * asks — a `Status` in the request's encoding, 401 for missing or malformed credentials (the API's 400),
 * and `Retry-After` on 429 and 503 so exporters retry.
 */
export function handleOtlpError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const appError = toAppError(error);
  if (appError.kind === 'internal') request.log.error({ err: error }, 'An OTLP request failed with an unexpected error.');
  const status = appError.kind === 'missingAuthHeaders' || appError.kind === 'malformedAuthHeaders' ? 401 : appError.status;
  if (appError.retryAfterSeconds !== undefined) void reply.header('retry-after', String(appError.retryAfterSeconds));
  const answer = statusBody(otlpEncodingOf(request.headers['content-type']) ?? 'json', rpcCodeOf(status), appError.message);
  void reply.status(status).type(answer.contentType).send(answer.body);
}
