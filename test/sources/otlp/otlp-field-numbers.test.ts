/**
 * The one-pass reader's field numbers, checked against the official generated code: for every field it
 * names, a message the official encoder wrote with only that field set starts with exactly the field's tag
 * (number and wire type), and the reader names every field the generated decoder knows.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs/minimal.js';
import generatedRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import {
  anyValueFields,
  arrayValueFields,
  exportLogsServiceRequestFields,
  instrumentationScopeFields,
  keyValueFields,
  keyValueListFields,
  logRecordFields,
  resourceFields,
  resourceLogsFields,
  scopeLogsFields,
  tagOf,
  type OtlpField,
} from '../../../src/sources/otlp/otlp-field-numbers.ts';

interface MessageType {
  readonly prototype: object;
  fromObject(object: unknown): unknown;
  encode(message: unknown): { finish(): Uint8Array };
}
type Namespace = Record<string, MessageType>;
const proto = (generatedRoot as unknown as { opentelemetry: { proto: { collector: { logs: { v1: Namespace } }; logs: { v1: Namespace }; common: { v1: Namespace }; resource: { v1: Namespace } } } }).opentelemetry.proto;

/** A value the encoder writes for each field, by its name (a repeated message field gets one empty message). */
const samples: Record<string, unknown> = {
  resourceLogs: [{}],
  resource: {},
  scopeLogs: [{}],
  schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
  attributes: [{}],
  droppedAttributesCount: 3,
  scope: {},
  logRecords: [{}],
  name: 'access',
  version: '1.0',
  timeUnixNano: '1790000000000000000',
  observedTimeUnixNano: '1790000000000000001',
  severityNumber: 9,
  severityText: 'INFO',
  body: {},
  flags: 1,
  traceId: new Uint8Array(16).fill(1),
  spanId: new Uint8Array(8).fill(2),
  key: 'k',
  value: {},
  stringValue: 's',
  boolValue: true,
  intValue: '-5',
  doubleValue: 0.5,
  arrayValue: {},
  kvlistValue: {},
  bytesValue: new Uint8Array([1, 2]),
  values: [{}],
};

const messages: [string, MessageType | undefined, Readonly<Record<string, OtlpField>>][] = [
  ['ExportLogsServiceRequest', proto.collector.logs.v1.ExportLogsServiceRequest, exportLogsServiceRequestFields],
  ['ResourceLogs', proto.logs.v1.ResourceLogs, resourceLogsFields],
  ['Resource', proto.resource.v1.Resource, resourceFields],
  ['ScopeLogs', proto.logs.v1.ScopeLogs, scopeLogsFields],
  ['InstrumentationScope', proto.common.v1.InstrumentationScope, instrumentationScopeFields],
  ['LogRecord', proto.logs.v1.LogRecord, logRecordFields],
  ['KeyValue', proto.common.v1.KeyValue, keyValueFields],
  ['AnyValue', proto.common.v1.AnyValue, anyValueFields],
  ['ArrayValue', proto.common.v1.ArrayValue, arrayValueFields],
  ['KeyValueList', proto.common.v1.KeyValueList, keyValueListFields],
];

describe('the field numbers of the one-pass OTLP reader', () => {
  for (const [name, type, fields] of messages) {
    it(`are those the official encoder writes for ${name}, and name every field it knows`, () => {
      assert.ok(type !== undefined, `the generated code has ${name}`);
      const generatedFields = Object.keys(type.prototype).filter((key) => key !== 'toJSON');
      assert.deepEqual(Object.keys(fields).sort(), generatedFields.sort());
      for (const [field, expected] of Object.entries(fields)) {
        assert.ok(field in samples, `a sample for ${field}`);
        const bytes = type.encode(type.fromObject({ [field]: samples[field] })).finish();
        const reader = protobuf.Reader.create(bytes);
        assert.equal(reader.uint32(), tagOf(expected), `${name}.${field}: number ${expected.number}, wire type ${expected.wire}`);
        reader.skipType(expected.wire);
        assert.equal(reader.pos, bytes.length, `${name}.${field} is the only field written`);
      }
    });
  }
});
