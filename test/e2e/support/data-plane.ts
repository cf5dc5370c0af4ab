/**
 * Helpers for tests that drive the data plane from outside: a node with fast retries, events to post,
 * jobs made through the API, destinations on loopback that can be told to fail, and readers of what
 * arrived at a destination.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { AppOptions } from '../../../src/app.ts';
import type { RawEnv } from '../../../src/config/env.ts';
import type { RetryPolicy } from '../../../src/delivery/deliver-with-retry.ts';
import { startTestApp, type ApiAnswer, type Credentials, type TestApp } from '../../support/test-app.ts';

/** Retries after tens of milliseconds instead of seconds; permanent failures after half a second. */
export const fastRetries: RetryPolicy = { baseDelayMs: 20, maxDelayMs: 200, permanentDelayMs: 500, jitter: 0.1, random: Math.random };

/** A node with a user and a zone, ready to take events. */
export interface PlaneHarness {
  readonly t: TestApp;
  readonly owner: { email: string; key: string; userId: string };
  readonly zone: string;
  stop(): Promise<void>;
}

/** Starts a node that allows loopback destinations, follows configuration every 100 ms and retries fast. */
export async function startPlane(env: RawEnv = {}, options: AppOptions = {}): Promise<PlaneHarness> {
  const t = await startTestApp(
    { LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS: 'true', ...env },
    { retryPolicy: fastRetries, configPollMs: 100, countersFlushMs: 200, ...options },
  );
  const owner = await t.user();
  const zone = await t.zone(owner);
  return { t, owner, zone, stop: () => t.stop() };
}

// ---------------------------------------------------------------------------------------------------------
// Events

/** Nanoseconds of 2026-05-02T10:00:00Z, the time the test events claim to be from. */
const eventEpochNanos = BigInt(Date.UTC(2026, 4, 2, 10, 0, 0)) * 1_000_000n;

/** One ingest event with a unique RayID and plausible fields; `extra` overrides or adds fields. */
export function event(rayId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    RayID: rayId,
    ClientIP: '192.0.2.1',
    ClientRequestHost: 'www.example.com',
    ClientRequestMethod: 'GET',
    ClientRequestPath: '/index.html',
    ClientCountry: 'us',
    EdgeResponseStatus: 200,
    EdgeStartTimestamp: (eventEpochNanos + 1_000_000n).toString(),
    EdgeEndTimestamp: (eventEpochNanos + 2_000_000n).toString(),
    ...extra,
  };
}

/** RayIDs `<prefix>-<n>` for n in [from, to). */
export function rayIds(prefix: string, from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, i) => `${prefix}-${from + i}`);
}

/** NDJSON text of events. */
export function ndjson(events: readonly unknown[]): string {
  return events.map((e) => JSON.stringify(e)).join('\n') + '\n';
}

/** What an ingest answer looks like to a test. */
export interface IngestAnswer {
  readonly status: number;
  readonly headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers freely
  readonly body: any;
  readonly text: string;
}

/** Posts a body to the ingest endpoint of a zone; credentials default to the harness owner's key. */
export async function postIngest(
  h: PlaneHarness,
  body: string | Uint8Array,
  options: { readonly auth?: Credentials; readonly headers?: Record<string, string>; readonly zone?: string } = {},
): Promise<IngestAnswer> {
  const auth = options.auth === undefined ? { email: h.owner.email, key: h.owner.key } : options.auth;
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson', ...authHeaders(auth), ...options.headers };
  const response = await fetch(`${h.t.app.url}/ingest/zones/${options.zone ?? h.zone}/http_requests`, { method: 'POST', headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

function authHeaders(auth: Credentials): Record<string, string> {
  if (auth === null) return {};
  if ('token' in auth) return { authorization: `Bearer ${auth.token}` };
  if ('headers' in auth) return { ...auth.headers };
  return { 'x-auth-email': auth.email, 'x-auth-key': auth.key };
}

/**
 * Posts a body without a Content-Length (chunked, as the OpenTelemetry exporters send theirs), in pieces of
 * `pieceBytes`, to `path` of the node; resolves the status and body of the answer.
 */
export function postChunked(h: PlaneHarness, path: string, body: Uint8Array, headers: Record<string, string>, pieceBytes = 64 * 1024): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${h.t.app.url}${path}`, { method: 'POST', headers: { 'x-auth-email': h.owner.email, 'x-auth-key': h.owner.key, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    // An answer sent before the whole body may end the connection under the rest of it.
    request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    for (let at = 0; at < body.length; at += pieceBytes) request.write(body.subarray(at, at + pieceBytes));
    request.end();
  });
}

/**
 * An ingest upload that announces `bytes` of body, sends a few, and stalls — once the node holds it. It asks
 * for `100 Continue`, which Node's server sends as it hands the request to the routes, whose admission runs
 * in the same turn: once the client reads it, the node has admitted the upload (or refused it: a 429).
 */
export async function stalledUpload(h: PlaneHarness, bytes: number): Promise<net.Socket> {
  const url = new URL(h.t.app.url);
  const socket = net.connect(Number(url.port), url.hostname);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write(
    `POST /ingest/zones/${h.zone}/http_requests HTTP/1.1\r\nHost: ${url.host}\r\nX-Auth-Email: ${h.owner.email}\r\n` +
      `X-Auth-Key: ${h.owner.key}\r\nContent-Length: ${bytes}\r\nExpect: 100-continue\r\n\r\n`,
  );
  const [answer] = (await once(socket, 'data')) as [Buffer];
  assert.match(answer.toString('latin1'), /^HTTP\/1\.1 100 /, 'the node took the upload');
  socket.write('{"RayID":');
  return socket;
}

/** Posts events and asserts they were accepted. */
export async function ingestEvents(h: PlaneHarness, events: readonly unknown[], gzip = false): Promise<void> {
  const text = ndjson(events);
  const res = gzip ? await postIngest(h, gzipSync(text), { headers: { 'content-encoding': 'gzip' } }) : await postIngest(h, text);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.result, { accepted: events.length });
}

// ---------------------------------------------------------------------------------------------------------
// Jobs

let dirCounter = 0;

/** A fresh directory name under the export root. */
export function freshDir(label: string): string {
  return `${label}-${process.pid}-${++dirCounter}`;
}

/** Asserts a successful API answer and returns its result. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers freely
export function resultOf(res: ApiAnswer): any {
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.success, true, res.text);
  return res.body.result;
}

/** The token of an ownership challenge for `conf`, read from the file logexport wrote. */
export async function challengeFor(h: PlaneHarness, conf: string): Promise<string> {
  const res = await h.t.call('POST', `/zones/${h.zone}/logexport/ownership`, { body: { destination_conf: conf } });
  const { filename } = resultOf(res) as { filename: string };
  return fs.readFileSync(path.join(h.t.config.exportRoot, filename), 'utf8');
}

/** A job as the API returns it. */
export interface JobAnswer {
  readonly id: number;
  readonly enabled: boolean;
  readonly last_complete: string | null;
  readonly last_error: string | null;
  readonly error_message: string | null;
  readonly [key: string]: unknown;
}

/** Creates a job through the API, enabled unless the body says otherwise; a `file://` destination gets its ownership challenge first. */
export async function createJob(h: PlaneHarness, body: Record<string, unknown>): Promise<JobAnswer> {
  const conf = body.destination_conf;
  assert.equal(typeof conf, 'string');
  const challenge = String(conf).startsWith('file://') ? { ownership_challenge: await challengeFor(h, String(conf)) } : {};
  return resultOf(await h.t.call('POST', `/zones/${h.zone}/logexport/jobs`, { body: { dataset: 'http_requests', enabled: true, ...challenge, ...body } }));
}

/** Reads a job through the API. */
export async function getJob(h: PlaneHarness, id: number): Promise<JobAnswer> {
  return resultOf(await h.t.call('GET', `/zones/${h.zone}/logexport/jobs/${id}`));
}

/** Polls a job through the API until `ready` holds for it, and returns it. */
export function waitForJob(h: PlaneHarness, id: number, what: string, ready: (job: JobAnswer) => boolean, timeoutMs = 10_000): Promise<JobAnswer> {
  return waitFor(what, async () => {
    const job = await getJob(h, id);
    return ready(job) ? job : undefined;
  }, timeoutMs);
}

/** Changes a job through the API. */
export async function updateJob(h: PlaneHarness, id: number, body: Record<string, unknown>): Promise<JobAnswer> {
  return resultOf(await h.t.call('PUT', `/zones/${h.zone}/logexport/jobs/${id}`, { body }));
}

// ---------------------------------------------------------------------------------------------------------
// Reading what was delivered

/** One object found under a directory of the export root. */
export interface DeliveredObject {
  /** Relative to the export root. */
  readonly key: string;
  readonly lines: readonly string[];
}

/** Every `.log.gz` object under `<export root>/<dir>`, gunzipped and split into lines, sorted by name. */
export function readObjects(exportRoot: string, dir: string): DeliveredObject[] {
  const found: DeliveredObject[] = [];
  const walk = (relative: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(exportRoot, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.log.gz')) {
        const text = gunzipSync(fs.readFileSync(path.join(exportRoot, child))).toString('utf8');
        found.push({ key: child, lines: text.split('\n').filter((l) => l !== '') });
      }
    }
  };
  walk(dir);
  return found.sort((a, b) => a.key.localeCompare(b.key));
}

/** The parsed records of every object under `dir`. */
export function readRecords(exportRoot: string, dir: string): Record<string, unknown>[] {
  return readObjects(exportRoot, dir).flatMap((o) => o.lines.map((l) => JSON.parse(l) as Record<string, unknown>));
}

/** Polls `check` until it returns something other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000, everyMs = 25): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

// ---------------------------------------------------------------------------------------------------------
// An HTTP destination on loopback

/** Waits until a receiver has accepted at least `records` records. */
export function waitForDelivered(receiver: Receiver, records: number, timeoutMs = 10_000): Promise<true> {
  return waitFor(`${records} records at the receiver`, () => (receiver.deliveredRayIds().length >= records ? true : undefined), timeoutMs);
}

/** One POST a receiver got. */
export interface ReceivedBatch {
  readonly at: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The gunzipped body split into lines. */
  readonly lines: readonly string[];
}

/** What the receiver does with the next request. */
export type ReceiverAnswer =
  | { readonly kind: 'status'; readonly status: number; readonly headers?: Record<string, string>; readonly delayMs?: number; readonly until?: Promise<void> }
  | { readonly kind: 'hang' }
  /** Held until `releaseHeld`, then answered with its status. */
  | { readonly kind: 'held' };

/** An HTTP endpoint on loopback that records batches and answers as told (200 unless told otherwise). */
export interface Receiver {
  readonly url: string;
  readonly port: number;
  /** Every request, failed ones too, in arrival order. */
  readonly requests: ReceivedBatch[];
  /** Answers for the next requests, taken one per request; `fallback` after they run out. */
  readonly script: ReceiverAnswer[];
  fallback: ReceiverAnswer;
  /** The RayIDs of requests answered 2xx. */
  deliveredRayIds(): string[];
  /** How many requests are held now (answer `held`). */
  heldCount(): number;
  /** Answers every held request with `status`. */
  releaseHeld(status?: number): void;
  close(): Promise<void>;
}

async function listen(server: net.Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Starts a receiver, on `port` when given (to bring a destination "back up" where it was down). */
export async function startReceiver(port = 0): Promise<Receiver> {
  const requests: ReceivedBatch[] = [];
  const okRayIds: string[] = [];
  const script: ReceiverAnswer[] = [];
  const state: { fallback: ReceiverAnswer } = { fallback: { kind: 'status', status: 200 } };
  const held: ((status: number) => void)[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      let text: string;
      try {
        text = request.headers['content-encoding'] === 'gzip' ? gunzipSync(body).toString('utf8') : body.toString('utf8');
      } catch {
        text = '';
      }
      const lines = text.split('\n').filter((l) => l !== '');
      requests.push({ at: performance.now(), headers: request.headers, lines });
      const answer = script.shift() ?? state.fallback;
      if (answer.kind === 'hang') return;
      const answerWith = (status: number, headers?: Record<string, string>): void => {
        if (status >= 200 && status < 300) {
          for (const line of lines) {
            const rayId = (JSON.parse(line) as { RayID?: unknown }).RayID;
            if (typeof rayId === 'string') okRayIds.push(rayId);
          }
        }
        response.writeHead(status, { 'content-type': 'text/plain', ...headers });
        response.end(status < 300 ? 'ok' : 'no');
      };
      if (answer.kind === 'held') {
        held.push(answerWith);
        return;
      }
      const send = (): void => answerWith(answer.status, answer.headers);
      // `until`: the answer waits for the test to release it (a condition the test drives, not a race with a timer).
      if (answer.until !== undefined) void answer.until.then(send);
      else if (answer.delayMs === undefined) send();
      else setTimeout(send, answer.delayMs);
    });
  });
  const bound = await listen(server, port);
  return {
    url: `http://127.0.0.1:${bound}/logs`,
    port: bound,
    requests,
    script,
    get fallback() {
      return state.fallback;
    },
    set fallback(answer: ReceiverAnswer) {
      state.fallback = answer;
    },
    deliveredRayIds: () => [...okRayIds],
    heldCount: () => held.length,
    releaseHeld: (status = 200) => {
      for (const answer of held.splice(0)) answer(status);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
