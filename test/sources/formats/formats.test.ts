/**
 * The source formats: a `native` line is checked exactly as HTTP ingest checks it; a Caddy access log entry
 * maps field by field onto the same event; both derive a stable RayID from where the line was read; and no
 * garbage line ever throws: it is refused with a sentence.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpRequests as httpRequestsDataset } from '../../../src/domain/datasets/http-requests.ts';
import { compileIngestParser, parseIngestLine } from '../../../src/domain/datasets/ingest-event.ts';
import { caddyEntryToEvent } from '../../../src/sources/formats/caddy.ts';
import { derivedRayId } from '../../../src/sources/formats/derived-ray-id.ts';
import { lineDecoderFor } from '../../../src/sources/formats/line-decoder.ts';
import { sourceFormats } from '../../../src/sources/formats/source-format.ts';

const parse = compileIngestParser(httpRequestsDataset);
const native = lineDecoderFor('native', parse);
const caddy = lineDecoderFor('caddy', parse);
const origin = { fileId: '2049:1234', offset: 4096 };

/** A Caddy 2.6 access log entry as Caddy writes it (Cookie only with log_credentials). */
const caddyEntry = {
  level: 'info',
  ts: 1_700_000_000.5,
  logger: 'http.log.access.log0',
  msg: 'handled request',
  request: {
    remote_ip: '192.0.2.7',
    remote_port: '51234',
    proto: 'HTTP/1.1',
    method: 'GET',
    host: 'www.example.com:8443',
    uri: '/cart?item=1',
    headers: { 'User-Agent': ['curl/8.0'], Cookie: ['a=1; b=2', 'c=3'], 'X-Trace': ['first', 'second'], Referer: ['https://example.org/'] },
  },
  bytes_read: 12,
  user_id: '',
  duration: 0.25,
  size: 5120,
  status: 200,
  resp_headers: { Server: ['Caddy', 'origin'], 'Set-Cookie': ['s=1', 's=2'] },
};

describe('the native format', () => {
  it('checks a line exactly as HTTP ingest does', () => {
    const lines = [
      '{"RayID":"abc","ClientRequestHost":"example.com","EdgeResponseStatus":200}',
      '{"ClientRequestHost":"example.com","Nope":1}',
      '{"EdgeResponseStatus":"200"}',
      'not json',
      '[1,2]',
      '{"RequestHeaders":{"a":"b"}}',
    ];
    for (const line of lines) {
      const ours = native(line, origin);
      const ingest = parseIngestLine(line, httpRequestsDataset);
      assert.equal(ours.ok, ingest.ok, line);
      if (!ours.ok && !ingest.ok) assert.equal(ours.error, ingest.error);
    }
  });

  it('keeps a RayID the event carries and derives one, the same on every read, when it carries none', () => {
    const kept = native('{"RayID":"7c0d1a2b3c4d5e6f"}', origin);
    assert.ok(kept.ok);
    assert.equal(kept.value.record.RayID, '7c0d1a2b3c4d5e6f');
    const first = native('{"ClientIP":"192.0.2.1"}', origin);
    const again = native('{"ClientIP":"192.0.2.1"}', origin);
    const elsewhere = native('{"ClientIP":"192.0.2.1"}', { ...origin, offset: origin.offset + 1 });
    assert.ok(first.ok && again.ok && elsewhere.ok);
    assert.match(String(first.value.record.RayID), /^[0-9a-f]{16}$/);
    assert.equal(first.value.record.RayID, again.value.record.RayID);
    assert.notEqual(first.value.record.RayID, elsewhere.value.record.RayID);
    assert.equal(derivedRayId(origin), first.value.record.RayID);
  });
});

describe('the caddy format', () => {
  it('maps an access log entry field by field', () => {
    const result = caddy(JSON.stringify(caddyEntry), origin);
    assert.ok(result.ok, result.ok ? '' : result.error);
    const { record, rawRequestHeaders, rawResponseHeaders } = result.value;
    assert.deepEqual(record, {
      RayID: derivedRayId(origin),
      EdgeStartTimestamp: '1700000000250000000',
      EdgeEndTimestamp: '1700000000500000000',
      EdgeResponseStatus: 200,
      ClientIP: '192.0.2.7',
      ClientSrcPort: 51234,
      ClientRequestHost: 'www.example.com:8443',
      ClientRequestMethod: 'GET',
      ClientRequestURI: '/cart?item=1',
      ClientRequestPath: '/cart',
      ClientRequestProtocol: 'HTTP/1.1',
      ClientRequestScheme: 'http',
      ClientSSLProtocol: 'none',
      EdgeResponseBodyBytes: 5120,
      EdgeResponseBytes: 5120,
      ClientRequestBytes: 12,
      ClientRequestUserAgent: 'curl/8.0',
      ClientRequestReferer: 'https://example.org/',
    });
    assert.deepEqual(rawRequestHeaders, [
      ['Host', 'www.example.com:8443'],
      ['User-Agent', 'curl/8.0'],
      ['Cookie', 'a=1; b=2'],
      ['Cookie', 'c=3'],
      ['X-Trace', 'first'],
      ['X-Trace', 'second'],
      ['Referer', 'https://example.org/'],
    ]);
    assert.deepEqual(rawResponseHeaders, [
      ['Server', 'Caddy'],
      ['Server', 'origin'],
      ['Set-Cookie', 's=1'],
      ['Set-Cookie', 's=2'],
    ]);
  });

  const variants: readonly [string, (entry: typeof caddyEntry) => unknown, Readonly<Record<string, unknown>>][] = [
    ['prefers request.client_ip (Caddy 2.7+) to remote_ip', (e) => ({ ...e, request: { ...e.request, client_ip: '203.0.113.9' } }), { ClientIP: '203.0.113.9' }],
    [
      'names TLS 1.3 and its cipher and says https',
      (e) => ({ ...e, request: { ...e.request, tls: { resumed: false, version: 772, cipher_suite: 4865, proto: 'h2', server_name: 'www.example.com' } } }),
      { ClientRequestScheme: 'https', ClientSSLProtocol: 'TLSv1.3', ClientSSLCipher: 'AEAD-AES128-GCM-SHA256' },
    ],
    ['writes an unknown cipher suite as hex', (e) => ({ ...e, request: { ...e.request, tls: { version: 771, cipher_suite: 0x9c } } }), { ClientSSLProtocol: 'TLSv1.2', ClientSSLCipher: '0x009c' }],
    ['takes a path without a query as the path', (e) => ({ ...e, request: { ...e.request, uri: '/a/b' } }), { ClientRequestURI: '/a/b', ClientRequestPath: '/a/b' }],
    ['leaves out what the entry lacks', (e) => ({ ...e, size: undefined, bytes_read: undefined, request: { ...e.request, remote_port: undefined } }), { EdgeResponseBytes: undefined, ClientRequestBytes: undefined, ClientSrcPort: undefined }],
  ];
  for (const [name, change, expected] of variants) {
    it(name, () => {
      const result = caddy(JSON.stringify(change(caddyEntry)), origin);
      assert.ok(result.ok, result.ok ? '' : result.error);
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(result.value.record[key], value, key);
    });
  }

  it('leaves out credentials Caddy redacted (log_credentials off), so they are never captured', () => {
    const entry = { ...caddyEntry, request: { ...caddyEntry.request, headers: { Cookie: ['REDACTED'], Authorization: ['REDACTED'] } }, resp_headers: { 'Set-Cookie': ['REDACTED'] } };
    const result = caddy(JSON.stringify(entry), origin);
    assert.ok(result.ok);
    assert.deepEqual(result.value.rawRequestHeaders, [['Host', 'www.example.com:8443']]);
    assert.deepEqual(result.value.rawResponseHeaders, []);
  });

  const refusals: readonly [string, unknown, RegExp][] = [
    ['a line of another logger', { ...caddyEntry, logger: 'http.handlers.reverse_proxy' }, /not a Caddy access log entry/],
    ['a line without a logger', { msg: 'hello' }, /not a Caddy access log entry/],
    ['a request that is not an object', { ...caddyEntry, request: 'GET /' }, /"request" must be an object/],
    ['a ts that is not a number', { ...caddyEntry, ts: '2023-11-14T22:13:20Z' }, /"ts" must be/],
    ['a negative duration', { ...caddyEntry, duration: -1 }, /"duration"/],
    ['a status that is not a number', { ...caddyEntry, status: '200' }, /"status"/],
    ['headers that are not lists', { ...caddyEntry, request: { ...caddyEntry.request, headers: { Accept: '*/*' } } }, /"request.headers.Accept" must be a list/],
    ['a header name that is no HTTP token', { ...caddyEntry, resp_headers: { 'Bad Name': ['x'] } }, /not an HTTP token/],
    ['a bad port', { ...caddyEntry, request: { ...caddyEntry.request, remote_port: '99999' } }, /remote_port/],
  ];
  for (const [name, entry, message] of refusals) {
    it(`refuses ${name}`, () => {
      const result = caddy(JSON.stringify(entry), origin);
      assert.ok(!result.ok);
      assert.match(result.error, message);
    });
  }

  it('derives the same RayID on every read of the same line', () => {
    const a = caddyEntryToEvent(JSON.stringify(caddyEntry), origin);
    const b = caddyEntryToEvent(JSON.stringify(caddyEntry), origin);
    assert.ok(a.ok && b.ok);
    assert.equal(a.value.RayID, b.value.RayID);
  });
});

describe('every format on garbage', () => {
  const garbage = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.json({ maxDepth: 4 }),
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify({ ...caddyEntry, request: value })),
    fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify({ ...caddyEntry, resp_headers: value, status: value })),
    fc.dictionary(fc.constantFrom('ts', 'duration', 'status', 'size', 'bytes_read', 'logger', 'request'), fc.jsonValue({ maxDepth: 2 })).map((change) => JSON.stringify({ ...caddyEntry, ...change })),
  );
  for (const format of sourceFormats) {
    it(`${format}: never throws, and a refusal is one sentence`, () => {
      const decode = lineDecoderFor(format, parse);
      fc.assert(
        fc.property(garbage, fc.nat(), (line, offset) => {
          const result = decode(line, { fileId: 'x', offset });
          if (!result.ok) assert.ok(result.error.length > 0 && !result.error.includes('\n'));
          else assert.equal(typeof result.value.record.RayID, 'string');
        }),
        { numRuns: 2000 },
      );
    });
  }
});
