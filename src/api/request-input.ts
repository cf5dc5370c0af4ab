import type { IncomingHttpHeaders } from 'node:http';
import { AppError, appError } from '../core/app-error.ts';
import { parseDestinationConf } from '../domain/jobs/destination-conf.ts';
import type { DestinationSpec } from '../domain/jobs/destination-spec.ts';

/** The request body as a JSON object, or a 400 saying it must be one. */
export function bodyObject(body: unknown): Readonly<Record<string, unknown>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw appError('invalidInput', 'The request body must be a JSON object', '');
  }
  return body as Readonly<Record<string, unknown>>;
}

/** Refuses keys of `body` that are not in `allowed`, naming each. */
export function rejectUnknownKeys(body: Readonly<Record<string, unknown>>, allowed: readonly string[], pointer = ''): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) {
      throw appError('invalidInput', `unknown field "${key}"; expected ${allowed.join(', ')}`, `${pointer}/${key}`);
    }
  }
}

/** `dry_run` query parameter: true or false, default false. */
export function dryRunOf(query: unknown): boolean {
  const value = (query as Record<string, unknown> | undefined)?.dry_run;
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw appError('invalidInput', 'dry_run must be true or false', '/dry_run');
}

/** A positive integer query parameter (page, per_page) within bounds. */
export function queryInteger(query: unknown, name: string, fallback: number, min: number, max: number): number {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw appError('invalidInput', `${name} must be an integer from ${min} to ${max}`, `/${name}`);
  }
  return Number(value);
}

/** A 32-hex identifier from the path, or the product's 7003 answer. */
export function pathId(value: string | undefined, what: string): string {
  if (value === undefined || !/^[0-9a-f]{32}$/.test(value)) {
    throw appError('invalidIdentifier', `Could not route to the ${what} "${value ?? ''}", perhaps your object identifier is invalid?`);
  }
  return value;
}

/** A job id from the path: a positive integer. */
export function jobIdOf(value: string | undefined): number {
  if (value === undefined || !/^[1-9]\d{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw appError('invalidIdentifier', `Could not route to the job "${value ?? ''}", perhaps your object identifier is invalid? Job ids are positive integers.`);
  }
  return Number(value);
}

/** The destination of a request body, parsed; a bad one is a 400 pointing at it. */
export function destinationOf(body: Readonly<Record<string, unknown>>): { conf: string; spec: DestinationSpec } {
  const parsed = parseDestinationConf(body.destination_conf);
  if (!parsed.ok) throw new AppError('jobInvalid', parsed.error);
  return { conf: body.destination_conf as string, spec: parsed.value };
}

/** An ingest body's encoding, from Content-Encoding: as is, or gzip (415 for another). */
export function contentEncodingOf(headers: IncomingHttpHeaders): 'identity' | 'gzip' {
  const encoding = (headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  if (encoding === 'identity') return 'identity';
  if (encoding === 'gzip' || encoding === 'x-gzip') return 'gzip';
  throw new AppError('unsupportedMediaType', `Content-Encoding ${JSON.stringify(encoding)} is not supported: send the body as is or gzip-compressed`);
}
