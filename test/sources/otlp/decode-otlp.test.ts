/**
 * Decoding OTLP logs requests: protobuf (through the package's generated schema) and the JSON mapping
 * (hex ids, 64-bit integers as strings, lower-camel names) give the same records; a body that is not a
 * request is refused with a reason; random bytes and random JSON never throw.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import generatedRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { decodeOtlpJson } from '../../../src/sources/otlp/decode-otlp-json.ts';
import { decodeOtlpProtobuf } from '../../../src/sources/otlp/decode-otlp-protobuf.ts';
import { exportResponseBody, statusBody } from '../../../src/sources/otlp/otlp-answer.ts';
import { decodeRequest } from './support/decode-request.ts';

interface MessageType {
  fromObject(object: unknown): unknown;
  encode(message: unknown): { finish(): Uint8Array };
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: unknown): unknown;
}
const logsV1 = (generatedRoot as unknown as { opentelemetry: { proto: { collector: { logs: { v1: Record<string, MessageType> } } } } }).opentelemetry.proto.collector.logs.v1;
const requestType = logsV1.ExportLogsServiceRequest as MessageType;
const responseType = logsV1.ExportLogsServiceResponse as MessageType;

const traceHex = '5b8efff798038103d269b633813fc60c';
const spanHex = 'eee19b7ec3c1b174';

/** One request in the JSON mapping; `protobufOf` encodes the same request as protobuf. */
const jsonRequest = {
  resourceLogs: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'edge' } }] },
      scopeLogs: [
        {
          scope: { name: 'access' },
          logRecords: [
            {
              timeUnixNano: '1790000000123456789',
              observedTimeUnixNano: '1790000000200000000',
              severityNumber: 9,
              body: { stringValue: 'GET /' },
              traceId: traceHex,
              spanId: spanHex,
              attributes: [
                { key: 'http.response.status_code', value: { intValue: '404' } },
                { key: 'http.request.header.accept', value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } } },
                { key: 'sampled', value: { boolValue: true } },
                { key: 'ratio', value: { doubleValue: 0.5 } },
                { key: 'nested', value: { kvlistValue: { values: [{ key: 'k', value: { intValue: 7 } }] } } },
              ],
              unknownFieldIsIgnored: 1,
            },
          ],
        },
      ],
    },
  ],
};

function protobufOf(request: typeof jsonRequest): Uint8Array {
  const object = structuredClone(request) as unknown as { resourceLogs: { scopeLogs: { logRecords: Record<string, unknown>[] }[] }[] };
  for (const rl of object.resourceLogs) {
    for (const sl of rl.scopeLogs) {
      for (const lr of sl.logRecords) {
        lr.traceId = Buffer.from(String(lr.traceId), 'hex');
        lr.spanId = Buffer.from(String(lr.spanId), 'hex');
      }
    }
  }
  return requestType.encode(requestType.fromObject(object)).finish();
}

describe('decoding an OTLP logs request', () => {
  it('gives the same records from protobuf and from the JSON mapping', () => {
    const fromJson = decodeOtlpJson(JSON.stringify(jsonRequest));
    const fromProtobuf = decodeOtlpProtobuf(protobufOf(jsonRequest));
    assert.ok(fromJson.ok && fromProtobuf.ok);
    assert.deepEqual(fromProtobuf.value, fromJson.value);
    const record = fromJson.value[0];
    assert.equal(record?.timeUnixNano, 1_790_000_000_123_456_789n);
    assert.equal(record?.traceId, traceHex);
    assert.equal(record?.spanId, spanHex);
    assert.equal(record?.attributes.get('http.response.status_code'), 404n);
    assert.deepEqual(record?.attributes.get('http.request.header.accept'), ['a', 'b']);
    assert.deepEqual(record?.attributes.get('nested'), new Map([['k', 7n]]));
    assert.equal(record?.resource.get('service.name'), 'edge');
  });

  it('takes 64-bit integers as JSON numbers too', () => {
    const decoded = decodeOtlpJson('{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":1790000000,"attributes":[{"key":"n","value":{"intValue":5}}]}]}]}]}');
    assert.ok(decoded.ok);
    assert.equal(decoded.value[0]?.timeUnixNano, 1_790_000_000n);
  });

  it('never makes a lone surrogate: bytes that are no UTF-8 read as U+FFFD from protobuf, and the JSON escape is rejected', () => {
    const attributes = (path: string) => [
      { key: 'server.address', value: { stringValue: 'www.example.com' } },
      { key: 'http.request.method', value: { stringValue: 'GET' } },
      { key: 'http.response.status_code', value: { intValue: '200' } },
      { key: 'url.path', value: { stringValue: path } },
    ];
    const request = (path: string) => ({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '1790000000000000000', attributes: attributes(path) }] }] }] });
    // `/XXX` encoded, then its three placeholder bytes replaced by the CESU-8 form of U+D800 (ED A0 80), which UTF-8 forbids.
    const bytes = Buffer.from(requestType.encode(requestType.fromObject(request('/XXX'))).finish());
    const at = bytes.indexOf('/XXX');
    bytes.set([0xed, 0xa0, 0x80], at + 1);
    const options = { encoding: 'protobuf', route: { kind: 'zone', zoneId: 'z' } } as const;
    const fromProtobuf = decodeRequest(bytes, options);
    assert.ok(fromProtobuf.ok);
    assert.equal(fromProtobuf.account.readBy, 'onePass');
    assert.equal(fromProtobuf.events[0]?.record.ClientRequestPath, '/\ufffd\ufffd\ufffd');
    const fromJson = decodeRequest(Buffer.from(JSON.stringify(request('/\ud800'))), { ...options, encoding: 'json' });
    assert.ok(fromJson.ok);
    assert.equal(fromJson.events.length, 0);
    assert.match(fromJson.account.rejections.first[0]?.reason ?? '', /lone surrogate/);
  });

  it('accepts an empty request in both encodings', () => {
    assert.deepEqual(decodeOtlpProtobuf(new Uint8Array(0)), { ok: true, value: [] });
    assert.deepEqual(decodeOtlpJson('{}'), { ok: true, value: [] });
  });

  const badJson: [string, string, RegExp][] = [
    ['text that is not JSON', 'nope', /not valid JSON/],
    ['an array', '[]', /JSON object/],
    ['resourceLogs of the wrong type', '{"resourceLogs":{}}', /resourceLogs must be an array/],
    ['a trace id that is not 32 hex digits', '{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"xyz"}]}]}]}', /traceId must be 32 hex digits/],
    ['a time that is no integer', '{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"soon"}]}]}]}', /timeUnixNano must be a 64-bit integer/],
    ['a negative time', '{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"-1"}]}]}]}', /out of the range/],
    ['a string value of the wrong type', '{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":3}}]}]}]}', /stringValue must be a string/],
  ];
  for (const [what, text, reason] of badJson) {
    it(`refuses JSON with ${what}`, () => {
      const decoded = decodeOtlpJson(text);
      assert.equal(decoded.ok, false);
      if (!decoded.ok) assert.match(decoded.error, reason);
    });
  }

  it('refuses protobuf bytes that are not the message', () => {
    const decoded = decodeOtlpProtobuf(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]));
    assert.equal(decoded.ok, false);
  });

  it('refuses values nested deeper than the limit', () => {
    let value = '{"stringValue":"x"}';
    for (let i = 0; i < 40; i++) value = `{"arrayValue":{"values":[${value}]}}`;
    const decoded = decodeOtlpJson(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":${value}}]}]}]}`);
    assert.equal(decoded.ok, false);
  });

  const zone = { kind: 'zone', zoneId: 'z' } as const;

  it('never throws on random bytes, and random bytes make no event', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        const decoded = decodeRequest(bytes, { encoding: 'protobuf', route: zone });
        if (decoded.ok) assert.equal(decoded.events.length, 0, 'random bytes name no HTTP attribute');
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on random JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        decodeRequest(Buffer.from(JSON.stringify(value) ?? 'null'), { encoding: 'json', route: zone });
        decodeRequest(Buffer.from(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [value] }] }] })), { encoding: 'json', route: zone });
      }),
      { numRuns: 1000 },
    );
  });
});

describe('OTLP answers', () => {
  it('write partial success in protobuf and in the JSON mapping', () => {
    const protobuf = exportResponseBody('protobuf', 2, 'two were bad');
    assert.equal(protobuf.contentType, 'application/x-protobuf');
    const decoded = responseType.toObject(responseType.decode(protobuf.body as Buffer), { longs: Number });
    assert.deepEqual(decoded, { partialSuccess: { rejectedLogRecords: 2, errorMessage: 'two were bad' } });
    assert.deepEqual(JSON.parse(String(exportResponseBody('json', 2, 'two were bad').body)), { partialSuccess: { rejectedLogRecords: '2', errorMessage: 'two were bad' } });
    assert.equal(exportResponseBody('json', 0, '').body, '{}');
    assert.equal((exportResponseBody('protobuf', 0, '').body as Buffer).length, 0);
  });

  it('write a Status with code and message', () => {
    assert.deepEqual(JSON.parse(String(statusBody('json', 3, 'bad').body)), { code: 3, message: 'bad' });
    assert.deepEqual([...(statusBody('protobuf', 3, 'bad').body as Buffer)], [0x08, 0x03, 0x12, 0x03, 0x62, 0x61, 0x64]);
  });
});
