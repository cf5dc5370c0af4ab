/**
 * Equivalence is the test of the one-pass OTLP reader: on `ExportLogsServiceRequest`s the official encoder
 * wrote — semantic-convention records, native-event bodies, unknown fields of every wire type spliced into
 * every message, empty and missing fields, nested `kvlistValue`s and `arrayValue`s, repeated keys, extreme
 * numbers, truncated and garbage bytes — it gives exactly what the generated decoder and the mapping give
 * (the same events for the same zones, the same rejections with the same reasons, the same refusal), and
 * never throws. Requests as official encoders write them (the 0.52 schema's code, the 0.223 exporters'
 * serializer) are read in one pass, never by the fallback.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import protobuf from 'protobufjs/minimal.js';
import generatedRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { LoggerProvider, InMemoryLogRecordExporter, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import type { OtlpDecoderOptions, OtlpRoute } from '../../../src/sources/otlp/otlp-decoder.ts';
import { decodeRequest, type DecodedRequest } from './support/decode-request.ts';

interface MessageType {
  fromObject(object: unknown): unknown;
  encode(message: unknown): { finish(): Uint8Array };
}
const requestType = (generatedRoot as unknown as { opentelemetry: { proto: { collector: { logs: { v1: Record<string, MessageType> } } } } }).opentelemetry.proto.collector.logs.v1
  .ExportLogsServiceRequest as MessageType;

const zones: [string, string][] = [
  ['example.com', 'zone-example'],
  ['shop.example.net', 'zone-shop'],
];
/** Cases per property: enough that every kind of value meets every kind of record. */
const runs = 1500;
const routes: OtlpRoute[] = [{ kind: 'zone', zoneId: 'zone-path' }, { kind: 'byHost', zones }];

// ---------------------------------------------------------------------------------------------------------
// Requests, as objects for the official encoder (protobufjs `fromObject` form)

const int64Edges = ['0', '1', '-1', '200', '9007199254740991', '9007199254740993', '-9007199254740993', '9223372036854775807', '-9223372036854775808', '1790000000123456789'];
const uint64Edges = ['0', '1', '1790000000123456789', '9223372036854775808', '18446744073709551615'];
const doubleEdges = [0, -0, 0.5, 200, 1e300, -1e300, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 5e-324, 1.7900000001234568e18, 2 ** 53 + 2];

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('GET', 'POST', '/a/b', 'https://www.example.com:8443/p?q=1', 'www.shop.example.net', 'nowhere.test', 'example.com', '{"RayID":"t1","EdgeResponseStatus":200}', '{"RayID":1}', '{ bad json }', 'US', ''),
);

const scalarValue = fc.oneof(
  text.map((s) => ({ stringValue: s })),
  fc.boolean().map((b) => ({ boolValue: b })),
  fc.oneof(fc.constantFrom(...int64Edges), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String)).map((i) => ({ intValue: i })),
  fc.oneof(fc.constantFrom(...doubleEdges), fc.double()).map((d) => ({ doubleValue: d })),
  fc.uint8Array({ maxLength: 6 }).map((b) => ({ bytesValue: b })),
  fc.constant({}),
);

const attributeKey = fc.oneof(
  fc.constantFrom(
    'http.request.method',
    'http.response.status_code',
    'url.full',
    'url.path',
    'url.query',
    'url.scheme',
    'server.address',
    'client.address',
    'client.port',
    'user_agent.original',
    'network.protocol.version',
    'http.response.size',
    'http.response.body.size',
    'geo.country.iso_code',
    'http.server.request.duration',
    'http.request.id',
    'http.request.header.host',
    'http.request.header.cookie',
    'http.request.header.:authority',
    'http.response.header.content-type',
    'RayID',
    'EdgeResponseStatus',
    'CacheCacheStatus',
    'EdgeStartTimestamp',
    'JA4Signals',
    'RequestHeaders',
    'RawRequestHeaders',
    '__proto__',
    'service.name',
  ),
  fc.string({ maxLength: 6 }),
);

/** A value that nests arrays around the limit (deeper than it is refused, or read by the generated decoder). */
const deepValue = fc.integer({ min: 31, max: 36 }).map((depth) => {
  let value: Record<string, unknown> = { stringValue: 'deep' };
  for (let i = 0; i < depth; i++) value = { arrayValue: { values: [value] } };
  return value;
});

const headerValues = fc.array(text, { maxLength: 3 }).map((values) => ({ arrayValue: { values: values.map((s) => ({ stringValue: s })) } }));

/**
 * Requests as objects for the official encoder. `canonical`: as official encoders write them; otherwise
 * also with two members of an AnyValue's oneof set and values nested around the depth limit.
 */
function requestArbitrary(canonical: boolean): fc.Arbitrary<unknown> {
  /** AnyValue objects, nested arrays and key-value lists among them. */
  const { anyValue } = fc.letrec<{ anyValue: Record<string, unknown>; keyValue: Record<string, unknown> }>((tie) => ({
    anyValue: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalarValue,
      fc.array(tie('anyValue'), { maxLength: 3 }).map((values) => ({ arrayValue: { values } })),
      fc.array(tie('keyValue'), { maxLength: 3 }).map((values) => ({ kvlistValue: { values } })),
      ...(canonical ? [] : [fc.tuple(scalarValue, scalarValue).map(([a, b]) => ({ ...a, ...b })), deepValue]),
    ),
    keyValue: fc.record({ key: attributeKey, value: tie('anyValue') }, { requiredKeys: [] }),
  }));

  /** Attributes as proxies and SDKs send them, with repeated keys and stray values among them. */
  const attributes = fc.array(
    fc.oneof(
      { weight: 3, arbitrary: fc.record({ key: attributeKey, value: anyValue }) },
      { weight: 2, arbitrary: fc.record({ key: fc.constantFrom('http.request.header.x-forwarded-for', 'http.response.header.set-cookie', 'http.request.header.user-agent'), value: headerValues }) },
      {
        weight: 2,
        arbitrary: fc.record({
          key: fc.constantFrom('http.response.status_code', 'client.port', 'http.response.size'),
          value: fc.oneof(fc.integer({ min: 100, max: 599 }).map((i) => ({ intValue: i })), fc.constantFrom({ stringValue: '404' }, { doubleValue: 503 })),
        }),
      },
      { weight: 2, arbitrary: fc.record({ key: fc.constantFrom('server.address', 'url.full'), value: fc.constantFrom('www.example.com', 'https://shop.example.net/x', 'elsewhere.test', 'https://[::1]:8080/').map((s) => ({ stringValue: s })) }) },
    ),
    { maxLength: 8 },
  );

  /** A body holding a native event: known field names among others, values of every kind. */
  const nativeBody = fc
    .array(
      fc.record({
        key: fc.oneof(
          fc.constantFrom('RayID', 'EdgeStartTimestamp', 'EdgeEndTimestamp', 'EdgeResponseStatus', 'ClientRequestHost', 'ClientIP', 'JA4Signals', 'BotScore', 'RawRequestHeaders', 'RawResponseHeaders', 'Cookies', '__proto__', '7'),
          fc.string({ maxLength: 5 }),
        ),
        value: fc.oneof(
          anyValue,
          fc.constantFrom('www.example.com', 'shop.example.net', 'x.test').map((s) => ({ stringValue: s })),
          fc.constantFrom(...uint64Edges).map((i) => ({ intValue: i })),
          fc.constant({ arrayValue: { values: [{ arrayValue: { values: [{ stringValue: 'Host' }, { stringValue: 'www.example.com' }] } }] } }),
        ),
      }),
      { maxLength: 8 },
    )
    .map((values) => ({ kvlistValue: { values: [{ key: 'RayID', value: { stringValue: 'n1' } }, ...values] } }));

  const logRecord = fc.record(
    {
      timeUnixNano: fc.constantFrom(...uint64Edges),
      observedTimeUnixNano: fc.constantFrom(...uint64Edges),
      severityNumber: fc.integer({ min: -3, max: 24 }),
      severityText: fc.constantFrom('INFO', ''),
      body: fc.oneof(nativeBody, anyValue, text.map((s) => ({ stringValue: s }))),
      attributes,
      droppedAttributesCount: fc.nat(5),
      flags: fc.nat(3),
      traceId: fc.uint8Array({ minLength: 0, maxLength: 16 }),
      spanId: fc.uint8Array({ minLength: 0, maxLength: 8 }),
    },
    { requiredKeys: [] },
  );

  const scopeLogs = fc.record(
    {
      scope: fc.record({ name: fc.constantFrom('access', ''), version: fc.constant('1'), attributes: fc.array(fc.record({ key: attributeKey, value: anyValue }), { maxLength: 2 }) }, { requiredKeys: [] }),
      logRecords: fc.array(logRecord, { maxLength: 4 }),
      schemaUrl: fc.constant('s'),
    },
    { requiredKeys: [] },
  );
  return fc.record({
    resourceLogs: fc.array(
      fc.record(
        {
          resource: fc.record({ attributes, droppedAttributesCount: fc.nat(2) }, { requiredKeys: [] }),
          scopeLogs: fc.array(scopeLogs, { maxLength: 3 }),
          schemaUrl: fc.constant('https://opentelemetry.io/schemas/1.26.0'),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 3 },
    ),
  });
}

const canonicalRequest = requestArbitrary(true);
const anyRequest = requestArbitrary(false);

function encode(request: unknown): Uint8Array {
  return requestType.encode(requestType.fromObject(request)).finish();
}

// ---------------------------------------------------------------------------------------------------------
// Bytes as no official encoder writes them

/** The messages of a request by name, and which of their fields hold messages. */
const nested: Record<string, Record<number, string>> = {
  request: { 1: 'resourceLogs' },
  resourceLogs: { 1: 'resource', 2: 'scopeLogs' },
  resource: { 1: 'keyValue' },
  scopeLogs: { 1: 'scope', 2: 'logRecord' },
  scope: { 3: 'keyValue' },
  logRecord: { 5: 'anyValue', 6: 'keyValue' },
  keyValue: { 2: 'anyValue' },
  anyValue: { 5: 'list', 6: 'kvlist' },
  list: { 1: 'anyValue' },
  kvlist: { 1: 'keyValue' },
};

/** A small seeded generator, so a splice is the same every time fast-check replays it. */
function randomOf(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An unknown field of any wire type (a group included), with a number no message of the request uses. */
function unknownField(writer: protobuf.Writer, random: () => number): void {
  const number = 13 + Math.floor(random() * 2000);
  switch (Math.floor(random() * 5)) {
    case 0:
      writer.uint32((number << 3) | 0).uint64(Math.floor(random() * 2 ** 40));
      break;
    case 1:
      writer.uint32((number << 3) | 1).double(random());
      break;
    case 2:
      writer.uint32((number << 3) | 2).bytes(new Uint8Array(Math.floor(random() * 5)).fill(7));
      break;
    case 3:
      writer.uint32((number << 3) | 5).fixed32(7);
      break;
    default:
      writer.uint32((number << 3) | 3).uint32((1 << 3) | 0).uint32(5).uint32((number << 3) | 4);
  }
}

/**
 * The same request written again with unknown fields spliced into its messages (and, as `reorder` says,
 * fields in another order or a field written twice): what a newer schema's encoder or a hand-rolled one may send.
 */
function respliced(bytes: Uint8Array, seed: number, reorder: boolean): Uint8Array {
  const random = randomOf(seed);
  const rewrite = (message: string, from: Uint8Array, depth: number): Uint8Array => {
    const reader = protobuf.Reader.create(from);
    const fields: Uint8Array[] = [];
    while (reader.pos < reader.len) {
      const start = reader.pos;
      const tag = reader.uint32();
      const child = (tag & 7) === 2 ? nested[message]?.[tag >>> 3] : undefined;
      if (child !== undefined) {
        fields.push(protobuf.Writer.create().uint32(tag).bytes(rewrite(child, reader.bytes(), depth + 1)).finish());
      } else {
        reader.skipType(tag & 7);
        fields.push(from.subarray(start, reader.pos));
      }
    }
    if (reorder && fields.length > 1 && random() < 0.5) fields.reverse();
    // A field written twice, in the outer messages only (doubling a field at every level of a deep value would double the request as often).
    if (reorder && depth < 6 && fields.length > 0 && random() < 0.3) fields.push(fields[Math.floor(random() * fields.length)] as Uint8Array);
    const out: Uint8Array[] = [];
    for (const field of fields) {
      if (random() < 0.3) {
        const writer = protobuf.Writer.create();
        unknownField(writer, random);
        out.push(writer.finish());
      }
      out.push(field);
    }
    if (random() < 0.3) {
      const writer = protobuf.Writer.create();
      unknownField(writer, random);
      out.push(writer.finish());
    }
    return Buffer.concat(out);
  };
  return rewrite('request', bytes, 0);
}

/** Bytes changed where the request is fragile: cut short, a byte replaced, or random bytes appended. */
function damaged(bytes: Uint8Array, seed: number): Uint8Array {
  const random = randomOf(seed);
  const copy = Buffer.from(bytes);
  switch (Math.floor(random() * 3)) {
    case 0:
      return copy.subarray(0, Math.floor(random() * copy.length));
    case 1:
      if (copy.length > 0) copy[Math.floor(random() * copy.length)] = Math.floor(random() * 256);
      return copy;
    default:
      return Buffer.concat([copy, Buffer.from(Array.from({ length: 1 + Math.floor(random() * 6) }, () => Math.floor(random() * 256)))]);
  }
}

// ---------------------------------------------------------------------------------------------------------

/** The keys of a value's objects in their order, nested as the objects are (deepEqual compares members, not their order). */
function keyOrderOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keyOrderOf);
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return null;
  return Object.entries(value).map(([key, member]) => [key, keyOrderOf(member)]);
}

/** What the decoder gave, without saying how it read the request (which is all that may differ): its events' members in their order too. */
function answerOf(decoded: DecodedRequest): unknown {
  if (!decoded.ok) return decoded;
  const { readBy: _readBy, ...account } = decoded.account;
  return { events: decoded.events, keyOrder: keyOrderOf(decoded.events.map((event) => event.record)), account };
}

function decodeBoth(bytes: Uint8Array, route: OtlpRoute): { onePass: DecodedRequest; generated: DecodedRequest } {
  const options: OtlpDecoderOptions = { encoding: 'protobuf', route };
  // Each decodes a copy of its own: the events it makes must not depend on the other's.
  return { onePass: decodeRequest(Buffer.from(bytes), options), generated: decodeRequest(Buffer.from(bytes), { ...options, generatedOnly: true }) };
}

describe('the one-pass OTLP protobuf reader', () => {
  it('reads what the official encoder writes in one pass, to exactly what the generated decoder and the mapping give', () => {
    let events = 0;
    let rejections = 0;
    fc.assert(
      fc.property(canonicalRequest, fc.constantFrom(...routes), (request, route) => {
        const { onePass, generated } = decodeBoth(encode(request), route);
        assert.deepEqual(answerOf(onePass), answerOf(generated));
        assert.equal(onePass.ok && onePass.account.readBy, 'onePass');
        if (onePass.ok) {
          events += onePass.events.length;
          rejections += onePass.account.rejections.count;
        }
      }),
      { numRuns: runs },
    );
    // The property is worth something only if both outcomes happen a lot.
    assert.ok(events > 300 && rejections > 300, `${events} events, ${rejections} rejections`);
  });

  it('gives what the generated decoder and the mapping give for unknown fields of every wire type in every message, other field orders, repeated fields, two members of a oneof and values nested around the limit', () => {
    fc.assert(
      fc.property(anyRequest, fc.constantFrom(...routes), fc.integer(), fc.boolean(), (request, route, seed, reorder) => {
        const { onePass, generated } = decodeBoth(respliced(encode(request), seed, reorder), route);
        assert.deepEqual(answerOf(onePass), answerOf(generated));
      }),
      { numRuns: runs },
    );
  });

  it('gives what the generated decoder gives for truncated and damaged bodies, and random bytes, never throwing', () => {
    fc.assert(
      fc.property(anyRequest, fc.constantFrom(...routes), fc.integer(), (request, route, seed) => {
        const { onePass, generated } = decodeBoth(damaged(encode(request), seed), route);
        assert.deepEqual(answerOf(onePass), answerOf(generated));
      }),
      { numRuns: runs },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.constantFrom(...routes), (bytes, route) => {
        const { onePass, generated } = decodeBoth(bytes, route);
        assert.deepEqual(answerOf(onePass), answerOf(generated));
      }),
      { numRuns: runs },
    );
  });

  it('keeps the first of each repeated header among more header names than it has slots for known keys', () => {
    // 240 header names in one record (under the 500 pairs an event may have), each sent twice: many share a
    // slot of the known keys (1,024), and a repeated name must still be found however its slot was taken since.
    const names = Array.from({ length: 240 }, (_, i) => `http.request.header.x-h${i.toString(36)}`);
    const attributes = [...names, ...names.slice().reverse()].map((key, i) => ({ key, value: { stringValue: `v${i}` } }));
    const request = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '1790000000000000000', attributes: [{ key: 'url.path', value: { stringValue: '/' } }, { key: 'server.address', value: { stringValue: 'www.example.com' } }, ...attributes] }] }] }] };
    for (const route of routes) {
      const { onePass, generated } = decodeBoth(encode(request), route);
      assert.equal(onePass.ok && onePass.account.readBy, 'onePass');
      assert.deepEqual(answerOf(onePass), answerOf(generated));
      const headers = onePass.ok ? onePass.events[0]?.rawRequestHeaders : undefined;
      assert.deepEqual(headers, names.map((key, i) => [key.slice('http.request.header.'.length), `v${i}`]));
    }
  });

  it('reads lengths of one, two and three bytes, and takes a resource\'s conventions where a record has none of its own, as the generated decoder does', () => {
    // The reader reads one-byte lengths and tags itself and longer ones with protobufjs; a resource that
    // met no convention is not merged into its records.
    const longKey = `http.request.header.x-${'k'.repeat(120)}`;
    const record = (attributes: unknown[]) => ({ timeUnixNano: '1790000000000000000', attributes });
    const string = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const request = {
      resourceLogs: [
        {
          resource: { attributes: [string('server.address', 'www.example.com'), string('url.path', '/from-resource')] },
          scopeLogs: [{ logRecords: [record([string('user_agent.original', 'u'.repeat(200)), string(longKey, 'v'.repeat(20_000))]), record([string('url.path', '/own')])] }],
        },
        { resource: { attributes: [string('service.name', 'shop')] }, scopeLogs: [{ logRecords: [record([string('url.path', '/p'), string('server.address', 'shop.example.com')])] }] },
      ],
    };
    for (const route of routes) {
      const { onePass, generated } = decodeBoth(encode(request), route);
      assert.equal(onePass.ok && onePass.account.readBy, 'onePass');
      assert.deepEqual(answerOf(onePass), answerOf(generated));
    }
    const { onePass } = decodeBoth(encode(request), routes[0] as OtlpRoute);
    const events = onePass.ok ? onePass.events.map((event) => [event.record.ClientRequestHost, event.record.ClientRequestPath]) : [];
    assert.deepEqual(events, [
      ['www.example.com', '/from-resource'],
      ['www.example.com', '/own'],
      ['shop.example.com', '/p'],
    ]);
  });

  it('reads in one pass what the 0.223 exporters serialize, every kind of attribute value among it', async () => {
    // The serializer the exporters use (their own copy of @opentelemetry/otlp-transformer, 0.223).
    const requireFromExporter = createRequire(createRequire(import.meta.url).resolve('@opentelemetry/exporter-logs-otlp-proto'));
    const { ProtobufLogsSerializer } = requireFromExporter('@opentelemetry/otlp-transformer') as { ProtobufLogsSerializer: { serializeRequest(records: unknown[]): Uint8Array } };
    const memory = new InMemoryLogRecordExporter();
    const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: memory })] });
    const logger = provider.getLogger('access');
    logger.emit({
      body: { RayID: 'sdk-1', EdgeResponseStatus: 201, ClientRequestHost: 'www.example.com', RawRequestHeaders: [['Host', 'www.example.com']] },
      timestamp: new Date('2026-05-02T10:00:00Z'),
    });
    logger.emit({
      body: 'GET /',
      timestamp: new Date('2026-05-02T10:00:01Z'),
      attributes: {
        'http.request.method': 'GET',
        'url.full': 'https://shop.example.net/cart?x=1',
        'http.response.status_code': 200,
        'http.server.request.duration': 0.25,
        'http.request.header.cookie': ['a=1', 'b=2'],
        sampled: true,
        ratio: 0.5,
        nested: { k: [1, 'two'] },
      },
    });
    await provider.forceFlush();
    const bytes = ProtobufLogsSerializer.serializeRequest(memory.getFinishedLogRecords());
    await provider.shutdown();
    for (const route of routes) {
      const { onePass, generated } = decodeBoth(bytes, route);
      assert.equal(onePass.ok && onePass.account.readBy, 'onePass');
      assert.deepEqual(answerOf(onePass), answerOf(generated));
      assert.equal(onePass.ok && onePass.events.length, 2);
    }
  });
});
