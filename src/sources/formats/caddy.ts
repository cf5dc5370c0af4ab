/**
 * The `caddy` format: Caddy v2's JSON access log (a `log` directive in a site, `logger` `http.log.access…`,
 * `msg` `handled request`), mapped field by field onto an `http_requests` event (docs/sources.md has the
 * table), then checked by the same parser as HTTP ingest.
 *
 * - `ts` is when Caddy wrote the entry, after the response: it is `EdgeEndTimestamp`, and `ts - duration` is
 *   `EdgeStartTimestamp`.
 * - `request.headers` and `resp_headers` map a header name to the list of its values in the order they came;
 *   they become the raw headers, every value kept, so the first instance rule of custom fields holds. Go
 *   keeps headers in a map, so the order between different names is not the wire order; `Host` is not among
 *   them (Go moves it to `request.host`) and is put first.
 * - The client is `request.client_ip` when Caddy logs it (2.7 and later, behind trusted proxies), else
 *   `request.remote_ip`.
 * - Caddy writes `Cookie`, `Set-Cookie` and `Authorization` values as `REDACTED` unless the global
 *   `servers { log_credentials }` option is on; redacted values are left out, so they are never captured.
 */
import { err, ok, type Result } from '../../core/result.ts';
import type { IngestLineParser } from '../../domain/datasets/ingest-event.ts';
import { describeJson } from '../../domain/filters/filter-problem.ts';
import { derivedRayId } from './derived-ray-id.ts';
import type { LineDecoder, LineOrigin } from './source-format.ts';

/** TLS versions as Go's crypto/tls numbers them, by the names the dataset uses. */
const tlsVersions: Readonly<Record<number, string>> = { 0x0301: 'TLSv1', 0x0302: 'TLSv1.1', 0x0303: 'TLSv1.2', 0x0304: 'TLSv1.3' };

/** The cipher suites Go negotiates by default, by their OpenSSL names (as the dataset writes them). */
const cipherSuites: Readonly<Record<number, string>> = {
  0x1301: 'AEAD-AES128-GCM-SHA256',
  0x1302: 'AEAD-AES256-GCM-SHA384',
  0x1303: 'AEAD-CHACHA20-POLY1305-SHA256',
  0xc02b: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  0xc02c: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  0xc02f: 'ECDHE-RSA-AES128-GCM-SHA256',
  0xc030: 'ECDHE-RSA-AES256-GCM-SHA384',
  0xcca8: 'ECDHE-RSA-CHACHA20-POLY1305',
  0xcca9: 'ECDHE-ECDSA-CHACHA20-POLY1305',
};

/** What Caddy writes in place of a credential's value unless `log_credentials` is on. */
const redacted = 'REDACTED';

type Json = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whole nanoseconds of a float of seconds, as digits; microseconds are all a float of today's seconds holds exactly. */
function nanosOf(seconds: number): string {
  return (BigInt(Math.round(seconds * 1e6)) * 1000n).toString();
}

/** `{name: [values…]}` → `[name, value]` pairs, every value in order; redacted values left out. */
function headerPairs(value: unknown, where: string): Result<[string, string][], string> {
  if (value === undefined || value === null) return ok([]);
  if (!isObject(value)) return err(`"${where}" must be an object of header name → list of values, got ${describeJson(value)}`);
  const pairs: [string, string][] = [];
  for (const name of Object.keys(value)) {
    const values = value[name];
    if (!Array.isArray(values)) return err(`"${where}.${name}" must be a list of values, got ${describeJson(values)}`);
    for (const item of values) {
      if (typeof item !== 'string') return err(`"${where}.${name}" must hold strings, got ${describeJson(item)}`);
      if (item !== redacted) pairs.push([name, item]);
    }
  }
  return ok(pairs);
}

function firstValue(pairs: readonly (readonly [string, string])[], name: string): string | undefined {
  for (const [key, value] of pairs) if (key.toLowerCase() === name) return value;
  return undefined;
}

function optionalString(entry: Json, key: string, where: string): Result<string | undefined, string> {
  const value = entry[key];
  if (value === undefined || value === null || value === '') return ok(undefined);
  return typeof value === 'string' ? ok(value) : err(`"${where}" must be a string, got ${describeJson(value)}`);
}

function optionalCount(entry: Json, key: string): Result<number | undefined, string> {
  const value = entry[key];
  if (value === undefined || value === null) return ok(undefined);
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? ok(value) : err(`"${key}" must be a whole number of at least 0, got ${describeJson(value)}`);
}

/**
 * Maps one Caddy access log line onto an ingest event object (the `native` shape: dataset fields plus raw
 * headers); the error says why the line is not a Caddy access log entry or what in it is wrong.
 */
export function caddyEntryToEvent(line: string, origin: LineOrigin): Result<Record<string, unknown>, string> {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return err('the line is not valid JSON');
  }
  if (!isObject(entry)) return err(`the line must be a JSON object, got ${describeJson(entry)}`);
  const logger = entry.logger;
  if (typeof logger !== 'string' || !logger.startsWith('http.log.access')) {
    return err(`the line is not a Caddy access log entry (its "logger" is ${describeJson(logger)}, not http.log.access…)`);
  }
  const request = entry.request;
  if (!isObject(request)) return err(`"request" must be an object, got ${describeJson(request)}`);
  const ts = entry.ts;
  if (typeof ts !== 'number' || !Number.isFinite(ts) || ts <= 0) return err(`"ts" must be a positive number of seconds, got ${describeJson(ts)}`);
  const duration = entry.duration ?? 0;
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0 || duration > ts) {
    return err(`"duration" must be a number of seconds of at least 0, got ${describeJson(duration)}`);
  }
  const status = entry.status;
  if (typeof status !== 'number' || !Number.isSafeInteger(status) || status < 0) return err(`"status" must be a whole number, got ${describeJson(status)}`);
  const size = optionalCount(entry, 'size');
  if (!size.ok) return size;
  const bytesRead = optionalCount(entry, 'bytes_read');
  if (!bytesRead.ok) return bytesRead;

  const host = optionalString(request, 'host', 'request.host');
  if (!host.ok) return host;
  const method = optionalString(request, 'method', 'request.method');
  if (!method.ok) return method;
  const uri = optionalString(request, 'uri', 'request.uri');
  if (!uri.ok) return uri;
  const proto = optionalString(request, 'proto', 'request.proto');
  if (!proto.ok) return proto;
  const clientIp = optionalString(request, 'client_ip', 'request.client_ip');
  if (!clientIp.ok) return clientIp;
  const remoteIp = optionalString(request, 'remote_ip', 'request.remote_ip');
  if (!remoteIp.ok) return remoteIp;
  const remotePort = request.remote_port;
  let port: number | undefined;
  if (remotePort !== undefined && remotePort !== null && remotePort !== '') {
    port = typeof remotePort === 'number' ? remotePort : typeof remotePort === 'string' && /^\d{1,5}$/.test(remotePort) ? Number(remotePort) : Number.NaN;
    if (!Number.isSafeInteger(port) || port > 65535) return err(`"request.remote_port" must be a port number, got ${describeJson(remotePort)}`);
  }
  const requestHeaders = headerPairs(request.headers, 'request.headers');
  if (!requestHeaders.ok) return requestHeaders;
  const responseHeaders = headerPairs(entry.resp_headers, 'resp_headers');
  if (!responseHeaders.ok) return responseHeaders;
  const tls = request.tls;
  if (tls !== undefined && tls !== null && !isObject(tls)) return err(`"request.tls" must be an object, got ${describeJson(tls)}`);

  const event: Record<string, unknown> = {
    RayID: derivedRayId(origin),
    EdgeStartTimestamp: nanosOf(ts - duration),
    EdgeEndTimestamp: nanosOf(ts),
    EdgeResponseStatus: status,
  };
  const ip = clientIp.value ?? remoteIp.value;
  if (ip !== undefined) event.ClientIP = ip;
  if (port !== undefined) event.ClientSrcPort = port;
  if (host.value !== undefined) event.ClientRequestHost = host.value;
  if (method.value !== undefined) event.ClientRequestMethod = method.value;
  if (uri.value !== undefined) {
    event.ClientRequestURI = uri.value;
    const query = uri.value.indexOf('?');
    event.ClientRequestPath = query < 0 ? uri.value : uri.value.slice(0, query);
  }
  if (proto.value !== undefined) event.ClientRequestProtocol = proto.value;
  event.ClientRequestScheme = isObject(tls) ? 'https' : 'http';
  if (isObject(tls)) {
    const version = typeof tls.version === 'number' ? tlsVersions[tls.version] : undefined;
    if (version !== undefined) event.ClientSSLProtocol = version;
    const suite = tls.cipher_suite;
    if (typeof suite === 'number') event.ClientSSLCipher = cipherSuites[suite] ?? `0x${suite.toString(16).padStart(4, '0')}`;
  } else {
    event.ClientSSLProtocol = 'none';
  }
  if (size.value !== undefined) {
    event.EdgeResponseBodyBytes = size.value;
    event.EdgeResponseBytes = size.value;
  }
  if (bytesRead.value !== undefined) event.ClientRequestBytes = bytesRead.value;
  const rawRequest: [string, string][] = host.value === undefined ? requestHeaders.value : [['Host', host.value], ...requestHeaders.value];
  const userAgent = firstValue(rawRequest, 'user-agent');
  if (userAgent !== undefined) event.ClientRequestUserAgent = userAgent;
  const referer = firstValue(rawRequest, 'referer');
  if (referer !== undefined) event.ClientRequestReferer = referer;
  event.RawRequestHeaders = rawRequest;
  event.RawResponseHeaders = responseHeaders.value;
  return ok(event);
}

/** The decoder of Caddy lines: mapped by `caddyEntryToEvent`, then checked by `parse` like any ingest line. */
export function caddyDecoder(parse: IngestLineParser): LineDecoder {
  return (line, origin) => {
    const event = caddyEntryToEvent(line, origin);
    if (!event.ok) return event;
    return parse.check(event.value);
  };
}
