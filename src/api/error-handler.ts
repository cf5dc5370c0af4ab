import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../core/app-error.ts';
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
