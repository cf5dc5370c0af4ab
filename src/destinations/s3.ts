/**
 * The S3 destination, for AWS S3, S3-compatible services (an `endpoint`) and Cloudflare R2, all through
 * `@aws-sdk/client-s3`. The SDK's own retries are off (`maxAttempts: 1`): retrying is the delivery loop's
 * decision, made from the outcome classified here. Its http(s) agents carry the private-address guard's
 * DNS lookup, so an endpoint cannot be pointed at a private address after validation.
 */
import { DeleteObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { R2DestinationSpec, S3DestinationSpec } from '../domain/jobs/destination-spec.ts';
import { delivered, DestinationError, permanent, retry, type Destination, type FailedOutcome, type OutgoingBatch, type SendOutcome } from './destination.ts';
import { guardedLookup, literalHostRefusal } from './private-address.ts';
import { staticKey } from './object-key.ts';
import { classifyTransportError } from './transport-error.ts';

/** What an S3 or R2 destination needs besides its spec. */
export interface S3DestinationOptions {
  readonly allowPrivate: boolean;
  /** Deadline for one whole request, including credential resolution. */
  readonly timeoutMs: number;
}

/** Builds a destination that puts every batch as one object into the spec's bucket. */
export function createS3Destination(spec: S3DestinationSpec | R2DestinationSpec, options: S3DestinationOptions): Destination {
  const lookup = guardedLookup(options.allowPrivate);
  const customEndpoint = spec.endpoint !== undefined;
  const config: S3ClientConfig = {
    region: spec.region,
    maxAttempts: 1,
    forcePathStyle: customEndpoint || spec.bucket.includes('.'),
    requestHandler: {
      httpAgent: new http.Agent({ keepAlive: true, lookup }),
      httpsAgent: new https.Agent({ keepAlive: true, lookup }),
      connectionTimeout: options.timeoutMs,
      requestTimeout: options.timeoutMs,
      throwOnRequestTimeout: true,
    },
    ...(spec.endpoint === undefined ? {} : { endpoint: spec.endpoint }),
    ...(spec.credentials === undefined ? {} : { credentials: { ...spec.credentials } }),
    // Services other than AWS often reject the SDK's newer default checksum headers.
    ...(customEndpoint ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
  };
  const client = new S3Client(config);
  const service = spec.kind === 'r2' ? 'R2' : 'the storage service';

  async function put(key: string, body: Uint8Array, contentType: string, signal?: AbortSignal): Promise<SendOutcome> {
    if (spec.endpoint !== undefined) {
      const refusal = literalHostRefusal(new URL(spec.endpoint).hostname, options.allowPrivate);
      if (refusal !== undefined) return permanent(refusal.message);
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    const stop = (): void => controller.abort();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      if (signal?.aborted === true) return retry('the delivery was stopped before it started');
      await client.send(
        new PutObjectCommand({
          Bucket: spec.bucket,
          Key: key,
          Body: body,
          ContentLength: body.byteLength,
          ContentType: contentType,
          ...(spec.kind === 's3' && spec.sse !== undefined ? { ServerSideEncryption: spec.sse } : {}),
        }),
        { abortSignal: controller.signal },
      );
      return delivered;
    } catch (error) {
      if (signal?.aborted === true) return retry(`the delivery was stopped before ${service} answered`);
      return classifyS3Error(error, { bucket: spec.bucket, region: spec.region, service, timedOut: controller.signal.aborted, timeoutMs: options.timeoutMs });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    }
  }

  return {
    send(batch: OutgoingBatch, signal?: AbortSignal): Promise<SendOutcome> {
      return put(batch.objectKey, batch.body, 'application/gzip', signal).catch((error: unknown) =>
        classifyS3Error(error, { bucket: spec.bucket, region: spec.region, service, timedOut: false, timeoutMs: options.timeoutMs }),
      );
    },

    async writeChallenge(fileName: string, content: string): Promise<{ readonly filename: string }> {
      const key = staticKey(spec.path, fileName);
      const outcome = await put(key, Buffer.from(content, 'utf8'), 'text/plain; charset=utf-8');
      if (outcome.kind !== 'delivered') throw new DestinationError(outcome);
      return { filename: key };
    },

    async validate(): Promise<SendOutcome> {
      const key = staticKey(spec.path, `logexport-validation-${randomBytes(4).toString('hex')}.txt`);
      const outcome = await put(key, Buffer.from('logexport destination check\n', 'utf8'), 'text/plain; charset=utf-8');
      if (outcome.kind !== 'delivered') return outcome;
      // Write access is what delivery needs; a policy without s3:DeleteObject leaves the probe behind.
      await client.send(new DeleteObjectCommand({ Bucket: spec.bucket, Key: key })).catch(() => undefined);
      return delivered;
    },

    async close(): Promise<void> {
      client.destroy();
    },
  };
}

/** The context a classified S3 error is described in. */
export interface S3ErrorContext {
  readonly bucket: string;
  readonly region: string;
  /** How the service is named in reasons ("R2", "the storage service"). */
  readonly service: string;
  readonly timedOut: boolean;
  readonly timeoutMs: number;
}

const retryableNames = new Set(['SlowDown', 'RequestTimeout', 'InternalError', 'ServiceUnavailable', 'Throttling', 'ThrottlingException', 'RequestTimeTooSkewed', 'TimeoutError']);

/** The one place S3 SDK and transport errors become outcomes. */
export function classifyS3Error(error: unknown, context: S3ErrorContext): FailedOutcome {
  const fields = typeof error === 'object' && error !== null ? (error as { name?: unknown; message?: unknown; $metadata?: { httpStatusCode?: unknown } }) : {};
  const name = typeof fields.name === 'string' ? fields.name : '';
  const message = typeof fields.message === 'string' ? fields.message : String(error);
  const status = typeof fields.$metadata?.httpStatusCode === 'number' ? fields.$metadata.httpStatusCode : undefined;
  const { bucket, service } = context;

  if (context.timedOut || name === 'AbortError' || name === 'TimeoutError') return retry(`${service} did not answer within ${context.timeoutMs} ms`);
  switch (name) {
    case 'NoSuchBucket':
      return permanent(`bucket ${bucket} does not exist (NoSuchBucket)`);
    case 'InvalidAccessKeyId':
      return permanent(`${service} does not know the access key id (InvalidAccessKeyId)`);
    case 'SignatureDoesNotMatch':
      return permanent(`the secret access key does not match the access key id (SignatureDoesNotMatch)`);
    case 'AccessDenied':
    case 'AllAccessDisabled':
    case 'AccountProblem':
      return permanent(`access denied writing to bucket ${bucket} (${name}); the credentials need permission to put objects there`);
    case 'PermanentRedirect':
    case 'AuthorizationHeaderMalformed':
    case 'IllegalLocationConstraintException':
      return permanent(`bucket ${bucket} is not in region ${context.region} (${name}); set region= to the bucket's region`);
    case 'InvalidBucketName':
      return permanent(`${service} refused the bucket name ${bucket} (InvalidBucketName)`);
    case 'KeyTooLongError':
      return permanent(`the object name is too long for ${service}; shorten the destination path`);
    case 'CredentialsProviderError':
      return permanent('no AWS credentials were found: add access-key-id and secret-access-key, or give the server AWS credentials');
    default:
      break;
  }
  if (retryableNames.has(name)) return retry(`${service} is unavailable (${name})`);
  if (status !== undefined) {
    const answered = `${service} answered ${status}${name !== '' && name !== 'Error' ? ` ${name}` : ''}`;
    if (status === 408 || status === 429 || status >= 500) return retry(answered);
    if (status === 401 || status === 403) return permanent(`${answered}: the credentials were refused`);
    if (status >= 300) return permanent(`${answered}: ${message}`);
  }
  return classifyTransportError(error, service);
}
