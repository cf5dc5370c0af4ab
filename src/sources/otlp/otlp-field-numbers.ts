/**
 * The field numbers of the OTLP messages the one-pass reader walks (opentelemetry-proto: collector/logs/v1,
 * logs/v1, common/v1, resource/v1), each with the wire type its encoding uses. Every one is checked against
 * the official generated code by test/sources/otlp/otlp-field-numbers.test.ts: a message the official
 * encoder wrote with that field set starts with exactly this tag.
 */

/** Wire types of the protobuf encoding. */
export const wireType = { varint: 0, fixed64: 1, delimited: 2, fixed32: 5 } as const;

/** A field: its number and the wire type it is written with. */
export interface OtlpField {
  readonly number: number;
  readonly wire: (typeof wireType)[keyof typeof wireType];
}

const field = (number: number, wire: OtlpField['wire']): OtlpField => ({ number, wire });

export const exportLogsServiceRequestFields = { resourceLogs: field(1, wireType.delimited) } as const;
export const resourceLogsFields = { resource: field(1, wireType.delimited), scopeLogs: field(2, wireType.delimited), schemaUrl: field(3, wireType.delimited) } as const;
export const resourceFields = { attributes: field(1, wireType.delimited), droppedAttributesCount: field(2, wireType.varint) } as const;
export const scopeLogsFields = { scope: field(1, wireType.delimited), logRecords: field(2, wireType.delimited), schemaUrl: field(3, wireType.delimited) } as const;
export const instrumentationScopeFields = {
  name: field(1, wireType.delimited),
  version: field(2, wireType.delimited),
  attributes: field(3, wireType.delimited),
  droppedAttributesCount: field(4, wireType.varint),
} as const;
export const logRecordFields = {
  timeUnixNano: field(1, wireType.fixed64),
  severityNumber: field(2, wireType.varint),
  severityText: field(3, wireType.delimited),
  body: field(5, wireType.delimited),
  attributes: field(6, wireType.delimited),
  droppedAttributesCount: field(7, wireType.varint),
  flags: field(8, wireType.fixed32),
  traceId: field(9, wireType.delimited),
  spanId: field(10, wireType.delimited),
  observedTimeUnixNano: field(11, wireType.fixed64),
} as const;
export const keyValueFields = { key: field(1, wireType.delimited), value: field(2, wireType.delimited) } as const;
export const anyValueFields = {
  stringValue: field(1, wireType.delimited),
  boolValue: field(2, wireType.varint),
  intValue: field(3, wireType.varint),
  doubleValue: field(4, wireType.fixed64),
  arrayValue: field(5, wireType.delimited),
  kvlistValue: field(6, wireType.delimited),
  bytesValue: field(7, wireType.delimited),
} as const;
export const arrayValueFields = { values: field(1, wireType.delimited) } as const;
export const keyValueListFields = { values: field(1, wireType.delimited) } as const;

/** The tag a field is written with: its number and wire type in one varint. */
export function tagOf(f: OtlpField): number {
  return (f.number << 3) | f.wire;
}

/** The field numbers of a message's fields (a field met with another wire type is not in the canonical encoding). */
export function numbersOf(fields: Readonly<Record<string, OtlpField>>): ReadonlySet<number> {
  return new Set(Object.values(fields).map((f) => f.number));
}
