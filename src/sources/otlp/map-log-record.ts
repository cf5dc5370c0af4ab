/**
 * One OTLP log record → the event object of a native `http_requests` event (what HTTP ingest makes of an
 * NDJSON line), which then goes through exactly the checks, capture and jobs of HTTP ingest. Two shapes are
 * understood:
 *
 * - a body that is a map (or a JSON object text) of native event fields — what Fluent Bit or Vector send
 *   when they forward logexport NDJSON — is taken as that event, as it is;
 * - otherwise the OpenTelemetry HTTP semantic conventions on the record's attributes, each falling back
 *   to the resource's attribute of the same name, and any attribute named after a native field
 *   (docs/sources.md has the table).
 *
 * A record with neither shape is not an HTTP request log and is rejected with the reason. The objects hold
 * exactly what the JSON text of the event, read back, would (an integer beyond a double's precision as the
 * double JSON would give, except timestamps, which keep every digit), so no text is written and read again.
 */
import { createHash } from 'node:crypto';
import { httpRequests } from '../../domain/datasets/http-requests.ts';
import { rawRequestHeadersKey, rawResponseHeadersKey } from '../../domain/datasets/raw-headers.ts';
import { maxTimestampDouble } from '../../domain/datasets/timestamp-range.ts';
import { setMember } from '../../core/set-member.ts';
import { MemberList, ObjectShapes } from './object-shapes.ts';
import type { MappedAttributes, MappedLogRecord, OtlpKeyValues, OtlpLogRecord, OtlpValue } from './otlp-logs.ts';
import type { OtlpRejectCode } from './otlp-rejections.ts';

/**
 * A mapped record: the event object (not yet checked) and the host it is routed by; a body that is the JSON
 * text of an event, for the ingest line parser to read; or why the record was rejected.
 */
export type MappedRecord =
  | { readonly kind: 'event'; readonly event: Record<string, unknown>; readonly host: string | undefined }
  | { readonly kind: 'text'; readonly line: string }
  | { readonly kind: 'rejected'; readonly code: OtlpRejectCode; readonly reason: string };

/** Attribute key prefixes of the raw headers (HTTP semantic conventions: lower-case names, string arrays). */
const requestHeaderPrefix = 'http.request.header.';
const responseHeaderPrefix = 'http.response.header.';

/** The dataset's field names: an attribute named after one fills that field. */
const fieldNames: ReadonlySet<string> = new Set(httpRequests.fields.map((field) => field.name));
/** The keys a native event may have; a body map holding any of them is taken as a native event. */
export const nativeKeys: ReadonlySet<string> = new Set([...fieldNames, rawRequestHeadersKey, rawResponseHeadersKey]);
/** Fields whose values keep every digit of an integer (nanosecond timestamps). */
export const timestampFields: ReadonlySet<string> = new Set(httpRequests.fields.filter((field) => field.type === 'timestamp').map((field) => field.name));

/** The semantic-convention attributes the mapping reads by name, each at its index in `MappedAttributes.conventions`. */
export const conventionKeys = [
  'http.request.method',
  'http.response.status_code',
  'url.full',
  'url.path',
  'url.query',
  'url.scheme',
  'http.route',
  'server.address',
  'client.address',
  'network.peer.address',
  'client.port',
  'user_agent.original',
  'network.protocol.name',
  'network.protocol.version',
  'http.request.body.size',
  'http.response.body.size',
  'http.response.size',
  'geo.country.iso_code',
  'http.server.request.duration',
  'http.request.id',
  'RayID',
] as const;

type ConventionKey = (typeof conventionKeys)[number];
const conventionIndex = new Map<string, number>(conventionKeys.map((key, i) => [key, i]));

/** The index of a semantic-convention attribute the mapping reads; -1 for another key. */
export function conventionIndexOf(key: string): number {
  return conventionIndex.get(key) ?? -1;
}

/** Whether the mapping reads the attribute `key` besides the conventions: a header, or a native field (RayID is a convention). */
export function isOtherAttribute(key: string): boolean {
  return roleOf(key).kind !== 'none';
}

/** A 64-bit integer as the JSON value of its digits read back: a timestamp keeps them all (unless negative), others are the nearest double. */
export function jsonOfInteger(value: bigint, timestamp: boolean): number | string {
  return timestamp && value >= 0n ? value.toString() : Number(value);
}

/**
 * A double as the JSON value of its text read back: -0 is 0, a value JSON cannot hold is null, and a
 * timestamp beyond 2^53 keeps the digits JSON writes for it (a double above 2^53 has no fraction).
 */
export function jsonOfDouble(value: number, timestamp: boolean): number | string | null {
  if (value === 0) return 0;
  if (!Number.isFinite(value)) return null;
  return timestamp && value > Number.MAX_SAFE_INTEGER && value <= maxTimestampDouble ? String(value) : value;
}

/** Bytes as JSON holds them: base64. */
export function jsonOfBytes(value: Uint8Array): string {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
}

/** An OTLP value as the JSON value of a native event's member (`timestamp`: the member is a timestamp field). */
function jsonValueOf(value: OtlpValue, timestamp: boolean): unknown {
  if (value === undefined) return null;
  if (typeof value === 'bigint') return jsonOfInteger(value, timestamp);
  if (typeof value === 'number') return jsonOfDouble(value, timestamp);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (value instanceof Uint8Array) return jsonOfBytes(value);
  if (value instanceof Map) return objectOf(value, false);
  return (value as readonly OtlpValue[]).map((item) => jsonValueOf(item, false));
}

/** The shapes of the events this thread made (object-shapes.ts). */
const shapes = new ObjectShapes();

/** A key-value list as a JSON object; `top`: the event itself, whose timestamp members keep their digits. */
function objectOf(values: OtlpKeyValues, top: boolean): Record<string, unknown> {
  if (top) {
    const keys: string[] = [];
    const items: unknown[] = [];
    for (const [key, item] of values) {
      keys.push(key);
      items.push(jsonValueOf(item, timestampFields.has(key)));
    }
    return shapes.build(keys, items, keys.length);
  }
  const object: Record<string, unknown> = {};
  for (const [key, item] of values) setMember(object, key, jsonValueOf(item, false));
  return object;
}

/** The first `Host` of raw request headers (a key-value list body holds them as arrays of two strings). */
function hostOfRawHeaders(raw: unknown): string | undefined {
  if (!Array.isArray(raw)) return undefined;
  for (const pair of raw as unknown[]) {
    if (Array.isArray(pair) && typeof pair[0] === 'string' && pair[0].toLowerCase() === 'host' && typeof pair[1] === 'string') return pair[1];
  }
  return undefined;
}

/** The host a native event is routed by: its `ClientRequestHost`, else its first raw `Host` header. */
export function hostOfNativeEvent(event: Readonly<Record<string, unknown>>): string | undefined {
  const host = event.ClientRequestHost;
  return typeof host === 'string' && host !== '' ? host : hostOfRawHeaders(event[rawRequestHeadersKey]);
}

/** The host a native event's JSON text is routed by, when the text is JSON (for a line the checks refused). */
export function hostOfNativeLine(line: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  return typeof parsed === 'object' && parsed !== null ? hostOfNativeEvent(parsed as Record<string, unknown>) : undefined;
}

/** The native event a body carries, if it is one: a key-value list with a native key, or the JSON text of an object. */
function nativeEventOf(body: OtlpValue): MappedRecord | undefined {
  if (body instanceof Map) {
    for (const key of body.keys()) {
      if (!nativeKeys.has(key)) continue;
      const event = objectOf(body, true);
      return { kind: 'event', event, host: hostOfNativeEvent(event) };
    }
    return undefined;
  }
  if (typeof body === 'string') {
    const text = body.trim();
    if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
    // Whitespace between JSON tokens may be a line break, which would split an NDJSON line.
    return { kind: 'text', line: text.replace(/[\r\n]/g, ' ') };
  }
  return undefined;
}

/** Where each convention is in `MappedAttributes.conventions`. */
const at = Object.fromEntries(conventionKeys.map((key, i) => [key, i])) as Readonly<Record<ConventionKey, number>>;

/** A convention's value, by its place (`at[key]`, a load of a constant name: a load by a computed key costs a hash lookup each). */
function lookup(record: MappedLogRecord, index: number): OtlpValue {
  return record.attributes.conventions[index];
}

function stringOf(value: OtlpValue): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** An integer attribute: an OTLP int, an integral double, or a decimal string; undefined otherwise. */
const minSafe = BigInt(Number.MIN_SAFE_INTEGER);
const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);

function integerOf(value: OtlpValue): number | undefined {
  if (typeof value === 'bigint') return value >= minSafe && value <= maxSafe ? Number(value) : undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}

/** JSON text of an OTLP value, for a reason that quotes it. */
function textOf(value: OtlpValue): string {
  if (typeof value === 'bigint') return value.toString();
  const json = JSON.stringify(jsonValueOf(value, false));
  return json.length > 64 ? `${json.slice(0, 64)}…` : json;
}

/** The text of one header value: a string as it is, a scalar as its text; undefined for anything else. */
function headerTextOf(value: OtlpValue): string | undefined {
  return typeof value === 'string' ? value : stringOf(value);
}

/**
 * Raw header pairs being gathered for one record, in a list reused record after record (the mapping reads one
 * record at a time); the event gets a copy of its length.
 */
class HeaderList {
  private readonly pairs: [string, string][] = [];
  count = 0;

  /** Adds a header's values (a string array: every value, in order; or one string). */
  add(name: string, value: OtlpValue): void {
    if (!Array.isArray(value)) {
      const text = headerTextOf(value);
      if (text !== undefined) this.pairs[this.count++] = [name, text];
      return;
    }
    const items = value as readonly OtlpValue[];
    for (let i = 0; i < items.length; i++) {
      const text = headerTextOf(items[i]);
      if (text !== undefined) this.pairs[this.count++] = [name, text];
    }
  }

  /** The first value of a header, names compared ignoring case (`name` is in lower case; so are most names sent). */
  first(name: string): string | undefined {
    for (let i = 0; i < this.count; i++) {
      const pair = this.pairs[i] as [string, string];
      const key = pair[0];
      if (key === name || (key.length === name.length && key.toLowerCase() === name)) return pair[1];
    }
    return undefined;
  }

  /** The pairs gathered, as a list of their own. */
  take(): [string, string][] {
    return this.pairs.slice(0, this.count);
  }

  /** Starts over, holding on to no pair. */
  clear(): void {
    for (let i = 0; i < this.count; i++) this.pairs[i] = undefined as unknown as [string, string];
    this.count = 0;
  }
}

/** A header's first value (of a string array, or one string). */
function firstHeaderValue(value: OtlpValue): string | undefined {
  if (!Array.isArray(value)) return headerTextOf(value);
  const items = value as readonly OtlpValue[];
  for (let i = 0; i < items.length; i++) {
    const text = headerTextOf(items[i]);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** What an attribute's key is to the mapping, besides a convention it looks up by name. */
type AttributeRole =
  | { readonly kind: 'requestHeader' | 'responseHeader'; readonly name: string }
  /** `made`: a field the conventions may fill too (the attribute then replaces what they made). */
  | { readonly kind: 'field'; readonly timestamp: boolean; readonly made: boolean }
  | { readonly kind: 'none' };

const noRole: AttributeRole = { kind: 'none' };
/** Roles of the keys met lately (a request repeats the same keys record after record); bounded, as keys come from clients. */
const roles = new Map<string, AttributeRole>();

function roleOf(key: string): AttributeRole {
  let role = roles.get(key);
  if (role !== undefined) return role;
  if (key.startsWith(requestHeaderPrefix) && key.length > requestHeaderPrefix.length) role = { kind: 'requestHeader', name: key.slice(requestHeaderPrefix.length) };
  else if (key.startsWith(responseHeaderPrefix) && key.length > responseHeaderPrefix.length) role = { kind: 'responseHeader', name: key.slice(responseHeaderPrefix.length) };
  // RayID is read as a convention (a number is taken as its digits).
  else if (fieldNames.has(key) && key !== 'RayID') role = { kind: 'field', timestamp: timestampFields.has(key), made: conventionFields.has(key) };
  else role = noRole;
  if (roles.size >= 4096) roles.clear();
  roles.set(key, role);
  return role;
}

/**
 * What a record's header and native-field attributes give. One per thread, filled again for each record (the
 * mapping reads one record at a time).
 */
interface AttributeParts {
  /** Request and response headers, every value in order; pseudo-headers (`:authority`) apart, as they are no headers. */
  readonly requestHeaders: HeaderList;
  readonly responseHeaders: HeaderList;
  authority: string | undefined;
  /** Attributes named after a native field, in order: the first `fieldCount`, each with its role. */
  readonly fieldKeys: string[];
  readonly fieldValues: OtlpValue[];
  readonly fieldRoles: FieldRole[];
  fieldCount: number;
}

type FieldRole = Extract<AttributeRole, { kind: 'field' }>;

const parts: AttributeParts = { requestHeaders: new HeaderList(), responseHeaders: new HeaderList(), authority: undefined, fieldKeys: [], fieldValues: [], fieldRoles: [], fieldCount: 0 };

function partsOf(record: MappedLogRecord): AttributeParts {
  parts.requestHeaders.clear();
  parts.responseHeaders.clear();
  parts.authority = undefined;
  for (let i = 0; i < parts.fieldCount; i++) parts.fieldValues[i] = undefined;
  parts.fieldCount = 0;
  const { otherKeys, otherValues, otherCount } = record.attributes;
  for (let i = 0; i < otherCount; i++) {
    const key = otherKeys[i] as string;
    const value = otherValues[i];
    const role = roleOf(key);
    switch (role.kind) {
      case 'none':
        break;
      case 'field':
        if (value !== undefined) {
          parts.fieldKeys[parts.fieldCount] = key;
          parts.fieldValues[parts.fieldCount] = value;
          parts.fieldRoles[parts.fieldCount] = role;
          parts.fieldCount += 1;
        }
        break;
      case 'requestHeader':
      case 'responseHeader':
        // A pseudo-header (`:authority`) is no header.
        if (role.name.charCodeAt(0) === 0x3a) {
          if (role.kind === 'requestHeader' && role.name.toLowerCase() === ':authority') parts.authority ??= firstHeaderValue(value);
        } else {
          (role.kind === 'requestHeader' ? parts.requestHeaders : parts.responseHeaders).add(role.name, value);
        }
    }
  }
  return parts;
}

/**
 * The attributes the mapping reads, from a record's and its resource's key-value lists (as the generated
 * decoder and the JSON mapping read them; the one-pass reader builds these as it reads).
 */
export function mappedAttributesOf(attributes: OtlpKeyValues, resource: OtlpKeyValues): MappedAttributes {
  const conventions: OtlpValue[] = conventionKeys.map((key) => {
    const own = attributes.get(key);
    return own !== undefined ? own : resource.get(key);
  });
  const otherKeys: string[] = [];
  const otherValues: OtlpValue[] = [];
  for (const [key, value] of attributes) {
    if (!isOtherAttribute(key)) continue;
    otherKeys.push(key);
    otherValues.push(value);
  }
  for (const [key, value] of resource) {
    if (!isOtherAttribute(key) || attributes.has(key)) continue;
    otherKeys.push(key);
    otherValues.push(value);
  }
  return { conventions, otherKeys, otherValues, otherCount: otherKeys.length };
}

/** A decoded record as the mapping reads it. */
export function mappedRecordOf(record: OtlpLogRecord): MappedLogRecord {
  return {
    timeUnixNano: record.timeUnixNano,
    observedTimeUnixNano: record.observedTimeUnixNano,
    body: record.body,
    attributes: mappedAttributesOf(record.attributes, record.resource),
    traceId: record.traceId,
    spanId: record.spanId,
  };
}

interface UrlParts {
  readonly scheme?: string;
  readonly host?: string;
  readonly path?: string;
  readonly query?: string;
}

const noUrlParts: UrlParts = Object.freeze({});

function urlPartsOf(full: string | undefined): UrlParts {
  if (full === undefined) return noUrlParts;
  let url: URL;
  try {
    url = new URL(full);
  } catch {
    return noUrlParts;
  }
  return { scheme: url.protocol.replace(/:$/, ''), host: url.hostname.replace(/^\[|\]$/g, ''), path: url.pathname, query: url.search === '' ? undefined : url.search.slice(1) };
}

/** `HTTP/1.1` from `network.protocol.version` = `1.1` (and `network.protocol.name`, default `http`). */
function protocolOf(record: MappedLogRecord): string | undefined {
  const version = stringOf(lookup(record, at['network.protocol.version']));
  if (version === undefined) return undefined;
  const name = stringOf(lookup(record, at['network.protocol.name'])) ?? 'http';
  // Records repeat the same protocol: the last text made is made again only when its parts change.
  if (name !== lastProtocol.name || version !== lastProtocol.version) {
    lastProtocol.name = name;
    lastProtocol.version = version;
    lastProtocol.text = `${name.toUpperCase()}/${version}`;
  }
  return lastProtocol.text;
}

const lastProtocol = { name: 'http', version: '1.1', text: 'HTTP/1.1' };

/**
 * Nanoseconds of `http.server.request.duration` (seconds, as the semantic conventions measure it): 0 when it
 * is absent, not a number or not positive; undefined when it is too large to be a duration in nanoseconds.
 */
function durationNanosOf(record: MappedLogRecord): bigint | undefined {
  const value = lookup(record, at['http.server.request.duration']);
  const seconds = typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) return 0n;
  const nanos = Math.round(seconds * 1e9);
  return Number.isFinite(nanos) ? BigInt(nanos) : undefined;
}

/** A RayID-shaped id (16 hex digits) that the same record always gets. */
function derivedRayId(record: MappedLogRecord, end: bigint, identity: string): string {
  return createHash('sha256')
    .update(`${record.traceId}|${record.spanId}|${record.timeUnixNano}|${record.observedTimeUnixNano}|${end}|${identity}`)
    .digest('hex')
    .slice(0, 16);
}

/** The fields the conventions fill (mapLogRecord puts each before the attributes named after fields). */
const conventionFields: ReadonlySet<string> = new Set([
  'EdgeStartTimestamp',
  'EdgeEndTimestamp',
  'ClientRequestMethod',
  'ClientRequestScheme',
  'ClientRequestHost',
  'ClientRequestPath',
  'ClientRequestURI',
  'ClientIP',
  'ClientCountry',
  'ClientSrcPort',
  'ClientRequestUserAgent',
  'ClientRequestReferer',
  'ClientRequestProtocol',
  'ClientRequestBytes',
  'EdgeResponseBodyBytes',
  'EdgeResponseBytes',
  'EdgeResponseContentType',
  'EdgeResponseStatus',
  'RayID',
]);

/** The members of the event being mapped (one record at a time). */
const members = new MemberList();

/** Adds a member the conventions give, when they give it (each name once). */
function put(name: string, value: unknown): void {
  if (value !== undefined) members.add(name, value);
}

/** Maps one record (pure; the event is checked by ingest like any other). */
export function mapLogRecord(record: MappedLogRecord): MappedRecord {
  if (record.nativeEvent !== undefined) return { kind: 'event', event: record.nativeEvent, host: hostOfNativeEvent(record.nativeEvent) };
  const native = nativeEventOf(record.body);
  if (native !== undefined) return native;

  const method = stringOf(lookup(record, at['http.request.method']));
  const status = lookup(record, at['http.response.status_code']);
  const full = stringOf(lookup(record, at['url.full']));
  const urlPath = stringOf(lookup(record, at['url.path']));
  if (method === undefined && status === undefined && full === undefined && urlPath === undefined) {
    return { kind: 'rejected', code: 'not_http_request', reason: 'not an HTTP request log: it has none of http.request.method, http.response.status_code, url.full, url.path and its body is no logexport event' };
  }
  const end = record.timeUnixNano !== 0n ? record.timeUnixNano : record.observedTimeUnixNano;
  if (end === 0n) return { kind: 'rejected', code: 'no_timestamp', reason: 'the record has neither timeUnixNano nor observedTimeUnixNano' };
  const duration = durationNanosOf(record);
  if (duration === undefined) return { kind: 'rejected', code: 'bad_duration', reason: `http.server.request.duration is not a duration in seconds that nanoseconds can hold, got ${textOf(lookup(record, at['http.server.request.duration']))}` };

  const { requestHeaders, responseHeaders, authority, fieldKeys, fieldValues, fieldRoles, fieldCount } = partsOf(record);
  const fromUrl = urlPartsOf(full);
  const path = urlPath ?? fromUrl.path ?? stringOf(lookup(record, at['http.route']));
  const query = stringOf(lookup(record, at['url.query'])) ?? fromUrl.query;
  const host = stringOf(lookup(record, at['server.address'])) ?? fromUrl.host ?? requestHeaders.first('host') ?? authority;
  const uri = path === undefined ? undefined : query === undefined ? path : `${path}?${query}`;

  const since = end - duration;
  const start = since > 0n ? since : end;
  // The event's members in order (built at the end, as a known shape: object-shapes.ts). Timestamps as their digits: every one is kept.
  members.clear();
  members.add('EdgeStartTimestamp', start.toString());
  members.add('EdgeEndTimestamp', end.toString());
  put('ClientRequestMethod', method);
  put('ClientRequestScheme', stringOf(lookup(record, at['url.scheme'])) ?? fromUrl.scheme);
  put('ClientRequestHost', host);
  put('ClientRequestPath', path);
  put('ClientRequestURI', uri);
  put('ClientIP', stringOf(lookup(record, at['client.address'])) ?? stringOf(lookup(record, at['network.peer.address'])));
  put('ClientCountry', stringOf(lookup(record, at['geo.country.iso_code']))?.toLowerCase());
  put('ClientSrcPort', integerOf(lookup(record, at['client.port'])));
  put('ClientRequestUserAgent', stringOf(lookup(record, at['user_agent.original'])) ?? requestHeaders.first('user-agent'));
  put('ClientRequestReferer', requestHeaders.first('referer'));
  put('ClientRequestProtocol', protocolOf(record));
  put('ClientRequestBytes', integerOf(lookup(record, at['http.request.body.size'])));
  put('EdgeResponseBodyBytes', integerOf(lookup(record, at['http.response.body.size'])));
  put('EdgeResponseBytes', integerOf(lookup(record, at['http.response.size'])));
  put('EdgeResponseContentType', responseHeaders.first('content-type'));
  let code: number | undefined;
  if (status !== undefined) {
    code = integerOf(status);
    if (code === undefined) return { kind: 'rejected', code: 'bad_status_code', reason: `http.response.status_code must be an integer, got ${textOf(status)}` };
    put('EdgeResponseStatus', code);
  }
  const rayId = stringOf(lookup(record, at['RayID'])) ?? stringOf(lookup(record, at['http.request.id']));
  put('RayID', rayId ?? derivedRayId(record, end, `${method ?? ''}|${host ?? ''}|${uri ?? ''}|${code ?? ''}`));
  // An attribute named after a native field fills it, checked like any ingest value (RayID is read above).
  for (let i = 0; i < fieldCount; i++) {
    const key = fieldKeys[i] as string;
    const role = fieldRoles[i] as FieldRole;
    const value = jsonValueOf(fieldValues[i], role.timestamp);
    const at = role.made ? members.indexOf(key) : -1;
    if (at >= 0) members.values[at] = value;
    else put(key, value);
  }
  if (requestHeaders.count > 0) put(rawRequestHeadersKey, requestHeaders.take());
  if (responseHeaders.count > 0) put(rawResponseHeadersKey, responseHeaders.take());
  return { kind: 'event', event: members.build(shapes), host };
}
