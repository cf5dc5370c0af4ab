/**
 * The OTLP mapping, record by record: the HTTP semantic conventions on the record (falling back to the
 * resource) become the native event that HTTP ingest's line checks accept; headers become raw header pairs,
 * every value in order; a body holding a native event is taken as it is; the RayID is taken or derived
 * stably; a record that is not an HTTP request log is rejected with the reason.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import { compileIngestParser, type IngestEvent } from '../../../src/domain/datasets/ingest-event.ts';
import { mapLogRecord } from '../../../src/sources/otlp/map-log-record.ts';
import type { OtlpKeyValues, OtlpLogRecord, OtlpValue } from '../../../src/sources/otlp/otlp-logs.ts';

type Plain = string | number | bigint | boolean | readonly Plain[] | { readonly [key: string]: Plain } | Uint8Array;

/** A plain JS value as an OTLP value: objects become key-value lists; numbers stay doubles (use bigint for ints). */
function otlp(value: Plain): OtlpValue {
  if (Array.isArray(value)) return value.map(otlp);
  if (value instanceof Uint8Array || typeof value !== 'object') return value as OtlpValue;
  return keyValues(value as Record<string, Plain>);
}

function keyValues(object: Record<string, Plain>): OtlpKeyValues {
  return new Map(Object.entries(object).map(([k, v]) => [k, otlp(v)]));
}

const t = 1_790_000_000_123_456_789n;

function record(parts: { attributes?: Record<string, Plain>; resource?: Record<string, Plain>; body?: Plain; time?: bigint; observed?: bigint; traceId?: string; spanId?: string }): OtlpLogRecord {
  return {
    timeUnixNano: parts.time ?? t,
    observedTimeUnixNano: parts.observed ?? 0n,
    body: parts.body === undefined ? undefined : otlp(parts.body),
    attributes: keyValues(parts.attributes ?? {}),
    resource: keyValues(parts.resource ?? {}),
    traceId: parts.traceId ?? '',
    spanId: parts.spanId ?? '',
  };
}

const parse = compileIngestParser(httpRequests);

/** Maps a record and checks it with HTTP ingest's line parser. */
function mapped(r: OtlpLogRecord): { event: IngestEvent; host: string | undefined; line: string } {
  const result = mapLogRecord(r);
  assert.equal(result.kind, 'event', JSON.stringify(result));
  if (result.kind !== 'event') throw new Error('unreachable');
  const parsed = parse(result.line);
  assert.ok(parsed.ok, `the line passes ingest's checks: ${result.line} ${parsed.ok ? '' : parsed.error}`);
  return { event: parsed.value, host: result.host, line: result.line };
}

function rejected(r: OtlpLogRecord): string {
  const result = mapLogRecord(r);
  assert.equal(result.kind, 'rejected');
  return result.kind === 'rejected' ? result.reason : '';
}

describe('mapping an OTLP log record by the HTTP semantic conventions', () => {
  it('maps every listed attribute to its http_requests field', () => {
    const { event, host } = mapped(
      record({
        attributes: {
          'http.request.method': 'POST',
          'url.scheme': 'https',
          'url.path': '/cart/add',
          'url.query': 'id=7&q=1',
          'server.address': 'shop.example.com',
          'server.port': 443n,
          'client.address': '198.51.100.7',
          'client.port': 51234n,
          'user_agent.original': 'curl/8.5.0',
          'network.protocol.version': '1.1',
          'http.response.status_code': 201n,
          'http.request.body.size': 120n,
          'http.response.body.size': 3400n,
          'http.server.request.duration': 0.25,
          RayID: '8a1b2c3d4e5f6071',
        },
      }),
    );
    assert.equal(host, 'shop.example.com');
    assert.deepEqual(event.record, {
      EdgeStartTimestamp: String(t - 250_000_000n),
      EdgeEndTimestamp: String(t),
      ClientRequestMethod: 'POST',
      ClientRequestScheme: 'https',
      ClientRequestHost: 'shop.example.com',
      ClientRequestPath: '/cart/add',
      ClientRequestURI: '/cart/add?id=7&q=1',
      ClientIP: '198.51.100.7',
      ClientSrcPort: 51234,
      ClientRequestUserAgent: 'curl/8.5.0',
      ClientRequestProtocol: 'HTTP/1.1',
      ClientRequestBytes: 120,
      EdgeResponseBodyBytes: 3400,
      EdgeResponseStatus: 201,
      RayID: '8a1b2c3d4e5f6071',
    });
  });

  it('takes scheme, host, path and query from url.full when the parts are absent', () => {
    const { event } = mapped(record({ attributes: { 'http.request.method': 'GET', 'url.full': 'https://www.example.com:8443/a/b?x=1' } }));
    assert.equal(event.record.ClientRequestScheme, 'https');
    assert.equal(event.record.ClientRequestHost, 'www.example.com');
    assert.equal(event.record.ClientRequestPath, '/a/b');
    assert.equal(event.record.ClientRequestURI, '/a/b?x=1');
  });

  it('falls back to the resource for attributes the record lacks, and prefers the record', () => {
    const { event } = mapped(
      record({ attributes: { 'http.request.method': 'GET', 'url.path': '/' }, resource: { 'server.address': 'api.example.com', 'http.request.method': 'PUT' } }),
    );
    assert.equal(event.record.ClientRequestHost, 'api.example.com');
    assert.equal(event.record.ClientRequestMethod, 'GET');
  });

  it('uses network.peer.address when client.address is absent, http.route when no path is given, and the Host header for the host', () => {
    const { event } = mapped(
      record({ attributes: { 'http.response.status_code': 200n, 'network.peer.address': '203.0.113.9', 'http.route': '/users/:id', 'http.request.header.host': ['www.example.org'] } }),
    );
    assert.equal(event.record.ClientIP, '203.0.113.9');
    assert.equal(event.record.ClientRequestPath, '/users/:id');
    assert.equal(event.record.ClientRequestHost, 'www.example.org');
  });

  it('turns header attributes into raw headers, every value in order, and reads Referer and Content-Type from them', () => {
    const { event } = mapped(
      record({
        attributes: {
          'http.request.method': 'GET',
          'url.path': '/',
          'http.request.header.x-forwarded-for': ['198.51.100.7', '10.0.0.1'],
          'http.request.header.cookie': ['a=1; b=2'],
          'http.request.header.referer': 'https://www.example.com/',
          'http.request.header.:authority': ['www.example.com'],
          'http.response.header.set-cookie': ['s=1', 't=2'],
          'http.response.header.content-type': ['text/html'],
        },
      }),
    );
    assert.deepEqual(event.rawRequestHeaders, [
      ['x-forwarded-for', '198.51.100.7'],
      ['x-forwarded-for', '10.0.0.1'],
      ['cookie', 'a=1; b=2'],
      ['referer', 'https://www.example.com/'],
    ]);
    assert.deepEqual(event.rawResponseHeaders, [
      ['set-cookie', 's=1'],
      ['set-cookie', 't=2'],
      ['content-type', 'text/html'],
    ]);
    assert.equal(event.record.ClientRequestReferer, 'https://www.example.com/');
    assert.equal(event.record.EdgeResponseContentType, 'text/html');
  });

  it('keeps nanosecond timestamps exact, and uses observedTimeUnixNano when timeUnixNano is unset', () => {
    assert.equal(mapped(record({ attributes: { 'url.path': '/' } })).event.record.EdgeEndTimestamp, '1790000000123456789');
    const observed = mapped(record({ attributes: { 'url.path': '/' }, time: 0n, observed: 1_790_000_000_000_000_001n })).event.record;
    assert.equal(observed.EdgeEndTimestamp, '1790000000000000001');
    assert.equal(observed.EdgeStartTimestamp, '1790000000000000001');
  });

  it('takes the RayID from http.request.id, or derives the same 16 hex digits from the same record every time', () => {
    assert.equal(mapped(record({ attributes: { 'url.path': '/', 'http.request.id': 'req-42' } })).event.record.RayID, 'req-42');
    const r = record({ attributes: { 'url.path': '/' }, traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' });
    const first = mapped(r).event.record.RayID;
    assert.match(String(first), /^[0-9a-f]{16}$/);
    assert.equal(mapped(r).event.record.RayID, first);
    const otherSpan = mapped(record({ attributes: { 'url.path': '/' }, traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203332' })).event.record.RayID;
    assert.notEqual(otherSpan, first);
  });

  it('accepts a status code sent as a string of digits or an integral double', () => {
    assert.equal(mapped(record({ attributes: { 'http.response.status_code': '404' } })).event.record.EdgeResponseStatus, 404);
    assert.equal(mapped(record({ attributes: { 'http.response.status_code': 503 } })).event.record.EdgeResponseStatus, 503);
  });
});

describe('a body holding a native event', () => {
  it('is taken as that event (a key-value list), routed by its ClientRequestHost', () => {
    const { event, host } = mapped(
      record({
        body: {
          RayID: '7c1a',
          EdgeStartTimestamp: 1_790_000_000_000_000_123n,
          ClientRequestHost: 'www.example.com',
          EdgeResponseStatus: 200n,
          RawRequestHeaders: [['Host', 'www.example.com'], ['Cookie', 'a=1']],
        },
      }),
    );
    assert.equal(host, 'www.example.com');
    assert.deepEqual(event.record, { RayID: '7c1a', EdgeStartTimestamp: '1790000000000000123', ClientRequestHost: 'www.example.com', EdgeResponseStatus: 200 });
    assert.deepEqual(event.rawRequestHeaders, [['Host', 'www.example.com'], ['Cookie', 'a=1']]);
  });

  it('is taken as that event when it is the JSON text of one (a forwarded NDJSON line), routed by its Host header', () => {
    const { event, host } = mapped(record({ body: '{"RayID":"7c1b",\n"RawRequestHeaders":[["Host","api.example.com"]]}' }));
    assert.equal(host, 'api.example.com');
    assert.equal(event.record.RayID, '7c1b');
  });

  it('fails the line checks as HTTP ingest would when a field is wrong', () => {
    const result = mapLogRecord(record({ body: { RayID: '1', EdgeResponseStatus: 'ok' } }));
    assert.equal(result.kind, 'event');
    if (result.kind === 'event') assert.equal(parse(result.line).ok, false);
  });
});

describe('records that are not HTTP request logs', () => {
  it('rejects a record with no HTTP attribute and a plain body, saying why', () => {
    assert.match(rejected(record({ body: 'user signed in', attributes: { 'user.id': '42' } })), /not an HTTP request log/);
  });

  it('rejects a record without any timestamp', () => {
    assert.match(rejected(record({ attributes: { 'url.path': '/' }, time: 0n, observed: 0n })), /timeUnixNano/);
  });

  it('rejects a status code that is no integer', () => {
    assert.match(rejected(record({ attributes: { 'http.response.status_code': 'teapot' } })), /status_code/);
  });
});
