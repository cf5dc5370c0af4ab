/**
 * The HTTP destination: each batch is one POST of the gzip bytes with `Content-Encoding: gzip`. node:http
 * is used rather than fetch because its agent takes a custom DNS `lookup`, which is where the
 * private-address guard sits at connection time. Redirects are never followed: a redirect could lead the
 * server anywhere, including past the guard.
 */
import http from 'node:http';
import https from 'node:https';
import { gzipSync } from 'node:zlib';
import { systemClock, type Clock } from '../core/clock.ts';
import type { HttpDestinationSpec } from '../domain/jobs/destination-spec.ts';
import { delivered, DestinationError, permanent, retry, validationContent, type Destination, type FailedOutcome, type OutgoingBatch, type SendOutcome } from './destination.ts';
import { guardedLookup, literalHostRefusal } from './private-address.ts';
import { parseRetryAfter } from './retry-after.ts';
import { classifyTransportError } from './transport-error.ts';

/** What an HTTP destination needs besides its spec. */
export interface HttpDestinationOptions {
  readonly allowPrivate: boolean;
  /** Deadline for one whole request (connect, upload, answer). */
  readonly timeoutMs: number;
  readonly clock?: Clock;
}

/** The header that names a batch, so a receiver can drop a batch it already has (delivery is at least once). */
export const batchHeader = 'X-Logexport-Batch';

const maxSnippetBytes = 64 * 1024;
const userAgent = 'logexport';

/** Builds a destination that POSTs every batch to `spec.url`. */
export function createHttpDestination(spec: HttpDestinationSpec, options: HttpDestinationOptions): Destination {
  const clock = options.clock ?? systemClock;
  const url = new URL(spec.url);
  const secure = url.protocol === 'https:';
  const lookup = guardedLookup(options.allowPrivate);
  const agent = secure ? new https.Agent({ keepAlive: true, lookup }) : new http.Agent({ keepAlive: true, lookup });
  const userHeaderNames = new Set(spec.headers.map((h) => h.name.toLowerCase()));

  function post(body: Uint8Array, contentType: string, batchName: string | undefined, signal?: AbortSignal): Promise<SendOutcome> {
    const refusal = literalHostRefusal(url.hostname, options.allowPrivate);
    if (refusal !== undefined) return Promise.resolve(permanent(refusal.message));

    const headers: Record<string, string> = {};
    for (const header of spec.headers) headers[header.name] = header.value;
    if (!userHeaderNames.has('content-type')) headers['Content-Type'] = contentType;
    if (!userHeaderNames.has('user-agent')) headers['User-Agent'] = userAgent;
    headers['Content-Encoding'] = 'gzip';
    headers['Content-Length'] = String(body.byteLength);
    if (batchName !== undefined) headers[batchHeader] = batchName;

    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: SendOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onAbort = (): void => {
        finish(retry('the delivery was stopped before the HTTP destination answered'));
        request.destroy();
      };
      const request = (secure ? https : http).request(url, { method: 'POST', agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < maxSnippetBytes) {
            chunks.push(chunk);
            kept += chunk.length;
          } else {
            response.destroy();
            finish(classifyStatus(response, Buffer.concat(chunks), clock.now()));
          }
        });
        response.on('end', () => finish(classifyStatus(response, Buffer.concat(chunks), clock.now())));
        response.on('error', (error) => finish(classifyNetworkError(error)));
        // 'end' comes first when the answer was complete; otherwise the connection dropped mid-answer.
        response.on('close', () => finish(retry('the HTTP destination closed the connection before its answer was complete')));
      });
      const timer = setTimeout(() => {
        finish(retry(`the HTTP destination did not answer within ${options.timeoutMs} ms`));
        request.destroy();
      }, options.timeoutMs);
      request.on('error', (error) => finish(classifyNetworkError(error)));
      if (signal?.aborted === true) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      request.end(body);
    });
  }

  return {
    send(batch: OutgoingBatch, signal?: AbortSignal): Promise<SendOutcome> {
      const name = batch.objectKey.slice(batch.objectKey.lastIndexOf('/') + 1);
      return post(batch.body, batch.contentType, name, signal).catch((error: unknown) => classifyNetworkError(error));
    },

    writeChallenge(): Promise<{ readonly filename: string }> {
      return Promise.reject(
        new DestinationError(permanent('HTTP destinations have no ownership challenge: a successful test upload proves them')),
      );
    },

    validate(): Promise<SendOutcome> {
      return post(gzipSync(Buffer.from(validationContent, 'utf8')), 'application/x-ndjson', undefined).catch((error: unknown) =>
        classifyNetworkError(error),
      );
    },

    async close(): Promise<void> {
      agent.destroy();
    },
  };
}

/** The one place HTTP answers become outcomes. */
export function classifyStatus(response: http.IncomingMessage, bodyStart: Buffer, nowMs: number): SendOutcome {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return delivered;
  if (status >= 300 && status < 400) {
    // Neither the Location nor the body is repeated: a redirect may point at an address the caller may not
    // learn of (a private network behind the destination), and the answer goes back to whoever set the job.
    return permanent(`the HTTP destination answered ${status} (a redirect); redirects are not followed, put the final URL in destination_conf`);
  }
  const answered = `the HTTP destination answered ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}${snippet(bodyStart)}`;
  if (status === 408 || status === 429 || status >= 500) {
    const header = response.headers['retry-after'];
    return retry(answered, parseRetryAfter(Array.isArray(header) ? header[0] : header, nowMs));
  }
  switch (status) {
    case 401:
    case 403:
      return permanent(`${answered}: the credentials (header_* parameters) were refused`);
    case 404:
      return permanent(`${answered}: check the URL path`);
    case 413:
      return permanent(`${answered}: the batch is too large for the receiver; lower max_upload_bytes or max_upload_records`);
    default:
      return permanent(answered);
  }
}

/** Transport failures of a POST; a `DestinationError` keeps the outcome it carries. */
export function classifyNetworkError(error: unknown): FailedOutcome {
  if (error instanceof DestinationError) return error.outcome;
  return classifyTransportError(error, 'the HTTP destination');
}

/** A short, single-line excerpt of an error answer, so users see what the receiver said. */
function snippet(body: Buffer): string {
  const text = body.subarray(0, 400).toString('utf8').replace(/\p{Cc}+/gu, ' ').trim();
  if (text === '') return '';
  return `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}
