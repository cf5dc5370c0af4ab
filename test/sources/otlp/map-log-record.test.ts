/**
 * The OTLP mapping, record by record: the HTTP semantic conventions on the record (falling back to the
 * resource) become the native event that HTTP ingest's checks accept; headers become raw header pairs,
 * every value in order; an attribute named after a native field fills it; a body holding a native event is
 * taken as it is, its object exactly what its JSON text read back would be; the RayID is taken or derived
 * stably; a record that is not an HTTP request log, or whose values cannot be, is rejected with the reason.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import { compileIngestParser, type IngestEvent } from '../../../src/domain/datasets/ingest-event.ts';
import { mapLogRecord as mapMappedRecord, mappedRecordOf } from '../../../src/sources/otlp/map-log-record.ts';
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

/** Maps a decoded record (all of its attributes and its resource's), as the decoder does. */
const mapLogRecord = (r: OtlpLogRecord) => mapMappedRecord(mappedRecordOf(r));

/** Maps a record and checks the event with HTTP ingest's checks (a body's JSON text with its line parser). */
function checkedOf(r: OtlpLogRecord): { checked: ReturnType<typeof parse>; host: string | undefined } {
  const result = mapLogRecord(r);
  assert.notEqual(result.kind, 'rejected', JSON.stringify(result));
  if (result.kind === 'rejected') throw new Error('unreachable');
  if (result.kind === 'text') return { checked: parse(result.line), host: undefined };
  return { checked: parse.check(result.event), host: result.host };
}

function mapped(r: OtlpLogRecord): { event: IngestEvent; host: string | undefined } {
  const { checked, host } = checkedOf(r);
  assert.ok(checked.ok, `the event passes ingest's checks: ${checked.ok ? '' : checked.error}`);
  return { event: checked.value, host };
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

  it('is taken as that event when it is the JSON text of one (a forwarded NDJSON line), for the line parser to read', () => {
    const result = mapLogRecord(record({ body: '{"RayID":"7c1b",\n"RawRequestHeaders":[["Host","api.example.com"]]}' }));
    assert.deepEqual(result, { kind: 'text', line: '{"RayID":"7c1b", "RawRequestHeaders":[["Host","api.example.com"]]}' });
  });

  it('fails the checks as HTTP ingest would when a field is wrong', () => {
    const { checked } = checkedOf(record({ body: { RayID: '1', EdgeResponseStatus: 'ok' } }));
    assert.deepEqual(checked, { ok: false, error: '"EdgeResponseStatus" must be an integer, got the string "ok"' });
  });

  /** JSON text of an OTLP value, as a forwarder writing the event would (integers keep every digit). */
  function jsonTextOf(value: OtlpValue): string {
    if (value === undefined) return 'null';
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
    if (value instanceof Uint8Array) return JSON.stringify(Buffer.from(value).toString('base64'));
    if (value instanceof Map) return `{${[...value].map(([k, v]) => `${JSON.stringify(k)}:${jsonTextOf(v)}`).join(',')}}`;
    return `[${(value as readonly OtlpValue[]).map(jsonTextOf).join(',')}]`;
  }

  const scalar = fc.oneof(
    fc.string(),
    fc.boolean(),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.constantFrom(1_790_000_000_123_456_789n, 253_402_300_799_999_999_999n, 253_402_300_800_000_000_000n, -1n, 2n ** 53n + 1n),
    fc.double(),
    fc.constantFrom(-0, 1.7900000001234568e18, 2.5e20, 1e300, Number.NaN, Number.POSITIVE_INFINITY),
    fc.uint8Array({ maxLength: 8 }),
    fc.constant(undefined),
  );
  const memberKey = fc.oneof(fc.constantFrom('RayID', 'EdgeStartTimestamp', 'EdgeEndTimestamp', 'EdgeResponseStatus', 'ClientRequestHost', 'JA4Signals', 'BotScore', 'RawRequestHeaders', '__proto__', 'toString', '1', 'Unknown'), fc.string());
  const { value: otlpValue } = fc.letrec<{ value: OtlpValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      scalar,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.array(fc.tuple(memberKey, tie('value')), { maxLength: 4 }).map((pairs) => new Map(pairs) as OtlpKeyValues),
    ),
  }));

  it('makes of a body map exactly the event its JSON text, read by HTTP ingest, would be', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(memberKey, otlpValue), { minLength: 1, maxLength: 8 }), (pairs) => {
        const body = new Map<string, OtlpValue>([['RayID', 'r1'], ...pairs]);
        const { checked } = checkedOf({ ...record({}), body });
        const fromText = parse(jsonTextOf(body));
        // The same record and raw headers, or the same reason (whether the timestamps are as sent in a line is the line's own).
        const eventOf = (r: typeof checked) => (r.ok ? { record: r.value.record, rawRequestHeaders: r.value.rawRequestHeaders, rawResponseHeaders: r.value.rawResponseHeaders } : r);
        assert.deepEqual(eventOf(checked), eventOf(fromText));
      }),
      { numRuns: 3000 },
    );
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

  it('rejects a duration no nanosecond count can hold, instead of failing the request', () => {
    assert.equal(rejected(record({ attributes: { 'url.path': '/', 'http.server.request.duration': 1e300 } })), 'http.server.request.duration is not a duration in seconds that nanoseconds can hold, got 1e+300');
  });

  it('rejects, with HTTP ingest\'s reason, a native field attribute of the wrong type', () => {
    const { checked } = checkedOf(record({ attributes: { 'url.path': '/', BotScore: 'high' } }));
    assert.deepEqual(checked, { ok: false, error: '"BotScore" must be an integer, got the string "high"' });
  });
});

describe('attributes the semantic conventions leave to native fields', () => {
  it('fill ClientCountry from geo.country.iso_code (lower case, as the dataset writes countries) and EdgeResponseBytes from http.response.size', () => {
    const { event } = mapped(record({ attributes: { 'url.path': '/', 'geo.country.iso_code': 'DE', 'http.response.size': 5120n, 'http.response.body.size': 5000n } }));
    assert.equal(event.record.ClientCountry, 'de');
    assert.equal(event.record.EdgeResponseBytes, 5120);
    assert.equal(event.record.EdgeResponseBodyBytes, 5000);
  });

  it('fill a native field from the attribute of its name, on the record or its resource, over what the conventions gave', () => {
    const { event } = mapped(
      record({
        attributes: { 'url.path': '/', 'http.response.status_code': 200n, CacheCacheStatus: 'hit', EdgeResponseStatus: 304n, ClientASN: 3320n },
        resource: { EdgeColoCode: 'FRA', CacheCacheStatus: 'miss' },
      }),
    );
    assert.equal(event.record.CacheCacheStatus, 'hit', "the record's attribute before the resource's");
    assert.equal(event.record.EdgeColoCode, 'FRA');
    assert.equal(event.record.EdgeResponseStatus, 304);
    assert.equal(event.record.ClientASN, 3320);
  });

  it('fill, in its place, every field the conventions fill', () => {
    const conventions: Record<string, Plain> = {
      'http.request.method': 'POST',
      'url.scheme': 'https',
      'url.path': '/cart/add',
      'url.query': 'id=7',
      'server.address': 'shop.example.com',
      'client.address': '198.51.100.7',
      'client.port': 51234n,
      'user_agent.original': 'curl/8.5.0',
      'network.protocol.version': '1.1',
      'http.response.status_code': 201n,
      'http.request.body.size': 120n,
      'http.response.body.size': 3400n,
      'http.response.size': 3500n,
      'geo.country.iso_code': 'DE',
      'http.server.request.duration': 0.25,
      'http.request.header.referer': ['https://example.com/'],
      'http.response.header.content-type': ['text/html'],
    };
    const made = mapped(record({ attributes: conventions })).event.record;
    const fields = Object.keys(made).filter((key) => key !== 'RayID');
    assert.ok(fields.length >= 18, fields.join(', '));
    for (const field of fields) {
      const value = made[field];
      // Another value of the field's type: digits for a timestamp, one more for a number, other text for a string.
      const other: Plain = field.endsWith('Timestamp') ? BigInt(String(value)) + 1n : typeof value === 'number' ? BigInt(value + 1) : `${String(value)}x`;
      const { event } = mapped(record({ attributes: { ...conventions, [field]: other } }));
      assert.deepEqual(Object.keys(event.record), Object.keys(made), field);
      assert.equal(event.record[field], typeof other === 'bigint' && !field.endsWith('Timestamp') ? Number(other) : String(other), field);
    }
  });
});
