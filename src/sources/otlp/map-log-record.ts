/**
 * One OTLP log record → one ingest line (the NDJSON text of a native `http_requests` event), which then
 * goes through exactly the checks, capture and jobs of HTTP ingest. Two shapes are understood:
 *
 * - a body that is a map (or a JSON object text) of native event fields — what Fluent Bit or Vector send
 *   when they forward logexport NDJSON — is taken as that event, as it is;
 * - otherwise the OpenTelemetry HTTP semantic conventions on the record's attributes, each falling back
 *   to the resource's attribute of the same name (docs/sources.md has the table).
 *
 * A record with neither shape is not an HTTP request log and is rejected with the reason.
 */
import { createHash } from 'node:crypto';
import { httpRequests } from '../../domain/datasets/http-requests.ts';
import { rawRequestHeadersKey, rawResponseHeadersKey } from '../../domain/datasets/raw-headers.ts';
import type { OtlpKeyValues, OtlpLogRecord, OtlpValue } from './otlp-logs.ts';
import type { OtlpRejectCode } from './otlp-lines.ts';

/** A mapped record: the ingest line and the host it is routed by, or why it was rejected. */
export type MappedRecord =
  | { readonly kind: 'event'; readonly line: string; readonly host: string | undefined }
  | { readonly kind: 'rejected'; readonly code: OtlpRejectCode; readonly reason: string };

/** Attribute key prefixes of the raw headers (HTTP semantic conventions: lower-case names, string arrays). */
const requestHeaderPrefix = 'http.request.header.';
const responseHeaderPrefix = 'http.response.header.';

/** The keys a native event may have; a body map holding any of them is taken as a native event. */
const nativeKeys: ReadonlySet<string> = new Set([...httpRequests.fields.map((field) => field.name), rawRequestHeadersKey, rawResponseHeadersKey]);

/** JSON text of an OTLP value; integers keep every digit (timestamps above 2^53 ns stay exact). */
function jsonOf(value: OtlpValue): string {
  if (value === undefined) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (value instanceof Uint8Array) return JSON.stringify(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64'));
  if (value instanceof Map) {
    const parts: string[] = [];
    for (const [key, item] of value) parts.push(`${JSON.stringify(key)}:${jsonOf(item)}`);
    return `{${parts.join(',')}}`;
  }
  return `[${(value as readonly OtlpValue[]).map(jsonOf).join(',')}]`;
}

/** The native event a body carries, as a JSON line with the host it names, if it is one. */
function nativeEventOf(body: OtlpValue): MappedRecord | undefined {
  if (body instanceof Map) {
    for (const key of body.keys()) {
      if (!nativeKeys.has(key)) continue;
      const host = body.get('ClientRequestHost');
      return { kind: 'event', line: jsonOf(body), host: typeof host === 'string' && host !== '' ? host : hostOfRawHeaders(body.get(rawRequestHeadersKey)) };
    }
    return undefined;
  }
  if (typeof body === 'string') {
    const text = body.trim();
    if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
    // Whitespace between JSON tokens may be a line break, which would split the NDJSON line.
    const line = text.replace(/[\r\n]/g, ' ');
    return { kind: 'event', line, host: hostOfNativeLine(line) };
  }
  return undefined;
}

/** The first `Host` of raw request headers (a key-value list body holds them as arrays of two strings). */
function hostOfRawHeaders(raw: unknown): string | undefined {
  if (!Array.isArray(raw)) return undefined;
  for (const pair of raw as unknown[]) {
    if (Array.isArray(pair) && typeof pair[0] === 'string' && pair[0].toLowerCase() === 'host' && typeof pair[1] === 'string') return pair[1];
  }
  return undefined;
}

function lookup(record: OtlpLogRecord, key: string): OtlpValue {
  const own = record.attributes.get(key);
  return own !== undefined ? own : record.resource.get(key);
}

function stringOf(value: OtlpValue): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** An integer attribute: an OTLP int, an integral double, or a decimal string; undefined otherwise. */
function integerOf(value: OtlpValue): number | undefined {
  if (typeof value === 'bigint') return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}

/** Header values: a string array (every value, in order), or one string. */
function headerValuesOf(value: OtlpValue): string[] {
  if (Array.isArray(value)) {
    const values: string[] = [];
    for (const item of value as readonly OtlpValue[]) {
      const text = typeof item === 'string' ? item : stringOf(item);
      if (text !== undefined) values.push(text);
    }
    return values;
  }
  const text = typeof value === 'string' ? value : stringOf(value);
  return text === undefined ? [] : [text];
}

/** `[name, value]` pairs of the headers whose attributes start with `prefix`: the record's, then the resource's names it lacks. */
function headersOf(record: OtlpLogRecord, prefix: string): [string, string][] {
  const pairs: [string, string][] = [];
  const seen = new Set<string>();
  const collect = (attributes: OtlpKeyValues) => {
    for (const [key, value] of attributes) {
      if (!key.startsWith(prefix) || key.length === prefix.length || seen.has(key)) continue;
      seen.add(key);
      for (const text of headerValuesOf(value)) pairs.push([key.slice(prefix.length), text]);
    }
  };
  collect(record.attributes);
  if (record.resource.size > 0) collect(record.resource);
  return pairs;
}

/** The first value of a header in raw pairs, names compared ignoring case. */
function firstHeader(pairs: readonly (readonly [string, string])[], name: string): string | undefined {
  for (const [key, value] of pairs) if (key.toLowerCase() === name) return value;
  return undefined;
}

interface UrlParts {
  readonly scheme?: string;
  readonly host?: string;
  readonly path?: string;
  readonly query?: string;
}

function urlPartsOf(full: string | undefined): UrlParts {
  if (full === undefined) return {};
  let url: URL;
  try {
    url = new URL(full);
  } catch {
    return {};
  }
  return { scheme: url.protocol.replace(/:$/, ''), host: url.hostname.replace(/^\[|\]$/g, ''), path: url.pathname, query: url.search === '' ? undefined : url.search.slice(1) };
}

/** `HTTP/1.1` from `network.protocol.version` = `1.1` (and `network.protocol.name`, default `http`). */
function protocolOf(record: OtlpLogRecord): string | undefined {
  const version = stringOf(lookup(record, 'network.protocol.version'));
  if (version === undefined) return undefined;
  const name = stringOf(lookup(record, 'network.protocol.name')) ?? 'http';
  return `${name.toUpperCase()}/${version}`;
}

/** Nanoseconds of `http.server.request.duration` (seconds, as the semantic conventions measure it). */
function durationNanosOf(record: OtlpLogRecord): bigint {
  const value = lookup(record, 'http.server.request.duration');
  const seconds = typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) return 0n;
  return BigInt(Math.round(seconds * 1e9));
}

/** A RayID-shaped id (16 hex digits) that the same record always gets. */
function derivedRayId(record: OtlpLogRecord, end: bigint, identity: string): string {
  return createHash('sha256')
    .update(`${record.traceId}|${record.spanId}|${record.timeUnixNano}|${record.observedTimeUnixNano}|${end}|${identity}`)
    .digest('hex')
    .slice(0, 16);
}

/** Maps one record (pure; the line is checked by ingest like any other). */
export function mapLogRecord(record: OtlpLogRecord): MappedRecord {
  const native = nativeEventOf(record.body);
  if (native !== undefined) return native;

  const method = stringOf(lookup(record, 'http.request.method'));
  const status = lookup(record, 'http.response.status_code');
  const full = stringOf(lookup(record, 'url.full'));
  const urlPath = stringOf(lookup(record, 'url.path'));
  if (method === undefined && status === undefined && full === undefined && urlPath === undefined) {
    return { kind: 'rejected', code: 'not_http_request', reason: 'not an HTTP request log: it has none of http.request.method, http.response.status_code, url.full, url.path and its body is no logexport event' };
  }
  const end = record.timeUnixNano !== 0n ? record.timeUnixNano : record.observedTimeUnixNano;
  if (end === 0n) return { kind: 'rejected', code: 'no_timestamp', reason: 'the record has neither timeUnixNano nor observedTimeUnixNano' };

  const requestHeaders = headersOf(record, requestHeaderPrefix);
  const responseHeaders = headersOf(record, responseHeaderPrefix);
  const fromUrl = urlPartsOf(full);
  const path = urlPath ?? fromUrl.path ?? stringOf(lookup(record, 'http.route'));
  const query = stringOf(lookup(record, 'url.query')) ?? fromUrl.query;
  const host =
    stringOf(lookup(record, 'server.address')) ?? fromUrl.host ?? firstHeader(requestHeaders, 'host') ?? firstHeader(requestHeaders, ':authority');
  const uri = path === undefined ? undefined : query === undefined ? path : `${path}?${query}`;

  const event: Record<string, string | number | [string, string][]> = {};
  const put = (name: string, value: string | number | undefined) => {
    if (value !== undefined) event[name] = value;
  };
  put('ClientRequestMethod', method);
  put('ClientRequestScheme', stringOf(lookup(record, 'url.scheme')) ?? fromUrl.scheme);
  put('ClientRequestHost', host);
  put('ClientRequestPath', path);
  put('ClientRequestURI', uri);
  put('ClientIP', stringOf(lookup(record, 'client.address')) ?? stringOf(lookup(record, 'network.peer.address')));
  put('ClientSrcPort', integerOf(lookup(record, 'client.port')));
  put('ClientRequestUserAgent', stringOf(lookup(record, 'user_agent.original')) ?? firstHeader(requestHeaders, 'user-agent'));
  put('ClientRequestReferer', firstHeader(requestHeaders, 'referer'));
  put('ClientRequestProtocol', protocolOf(record));
  put('ClientRequestBytes', integerOf(lookup(record, 'http.request.body.size')));
  put('EdgeResponseBodyBytes', integerOf(lookup(record, 'http.response.body.size')));
  put('EdgeResponseContentType', firstHeader(responseHeaders, 'content-type'));
  if (status !== undefined) {
    const code = integerOf(status);
    if (code === undefined) return { kind: 'rejected', code: 'bad_status_code', reason: `http.response.status_code must be an integer, got ${jsonOf(status)}` };
    event.EdgeResponseStatus = code;
  }
  const rayId = stringOf(lookup(record, 'RayID')) ?? stringOf(lookup(record, 'http.request.id'));
  event.RayID = rayId ?? derivedRayId(record, end, `${method ?? ''}|${host ?? ''}|${uri ?? ''}|${typeof event.EdgeResponseStatus === 'number' ? event.EdgeResponseStatus : ''}`);
  // HTTP/2 pseudo-headers are not headers (and their names are not HTTP tokens).
  const wireRequest = requestHeaders.filter(([name]) => !name.startsWith(':'));
  const wireResponse = responseHeaders.filter(([name]) => !name.startsWith(':'));
  if (wireRequest.length > 0) event[rawRequestHeadersKey] = wireRequest;
  if (wireResponse.length > 0) event[rawResponseHeadersKey] = wireResponse;

  const duration = durationNanosOf(record);
  const start = end - duration > 0n ? end - duration : end;
  // Timestamps are written as digits: the ingest check reads nanoseconds above 2^53 from the line text.
  const rest = JSON.stringify(event);
  const line = `{"EdgeStartTimestamp":${start},"EdgeEndTimestamp":${end}${rest === '{}' ? '}' : `,${rest.slice(1)}`}`;
  return { kind: 'event', line, host };
}

/** The host a native event's JSON text is routed by: its `ClientRequestHost`, else its first raw `Host` header. */
function hostOfNativeLine(line: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const event = parsed as Record<string, unknown>;
  if (typeof event.ClientRequestHost === 'string' && event.ClientRequestHost !== '') return event.ClientRequestHost;
  return hostOfRawHeaders(event[rawRequestHeadersKey]);
}
