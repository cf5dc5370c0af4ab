/**
 * An `application/x-protobuf` OTLP logs request → the flattened records of otlp-logs.ts, through the
 * package's generated decoder (otlp-schema.ts); this module only converts its objects: 64-bit integers to
 * bigint, ids to hex, key-value lists to maps. The one-pass reader (read-otlp-protobuf.ts) reads canonical
 * requests without it; this is the reading of every other request, and the reference the one-pass reader is
 * held equal to.
 */
import { err, ok, type Result } from '../../core/result.ts';
import { decodeLogsRequestMessage, type DecodedAnyValue, type DecodedKeyValue, type DecodedLong } from './otlp-schema.ts';
import { maxValueDepth, type OtlpKeyValues, type OtlpLogRecord, type OtlpValue } from './otlp-logs.ts';

const twoTo32 = 1n << 32n;

/** A decoded 64-bit integer as a bigint (`signed` for int64, unsigned for fixed64 timestamps). */
function bigintOf(value: DecodedLong | number | null | undefined, signed: boolean): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : 0n;
  const unsigned = BigInt(value.high >>> 0) * twoTo32 + BigInt(value.low >>> 0);
  return signed ? BigInt.asIntN(64, unsigned) : unsigned;
}

/** Thrown inside the conversion when a value nests deeper than allowed. */
class TooDeep extends Error {}

function valueOf(value: DecodedAnyValue | null | undefined, depth: number): OtlpValue {
  if (value === null || value === undefined) return undefined;
  if (depth > maxValueDepth) throw new TooDeep();
  switch (value.value) {
    case 'stringValue':
      return value.stringValue ?? '';
    case 'boolValue':
      return value.boolValue ?? false;
    case 'intValue':
      return bigintOf(value.intValue, true);
    case 'doubleValue':
      return value.doubleValue ?? 0;
    case 'bytesValue':
      return value.bytesValue ?? new Uint8Array(0);
    case 'arrayValue':
      return (value.arrayValue?.values ?? []).map((item) => valueOf(item, depth + 1));
    case 'kvlistValue':
      return keyValuesOf(value.kvlistValue?.values, depth + 1);
    case undefined:
      return undefined;
  }
}

function keyValuesOf(list: readonly DecodedKeyValue[] | null | undefined, depth: number): OtlpKeyValues {
  const map = new Map<string, OtlpValue>();
  if (list === undefined || list === null) return map;
  for (const entry of list) {
    const key = entry.key ?? '';
    if (!map.has(key)) map.set(key, valueOf(entry.value, depth));
  }
  return map;
}

const emptyMap: OtlpKeyValues = new Map();

function hexOf(bytes: Uint8Array | null | undefined): string {
  return bytes === undefined || bytes === null || bytes.length === 0 ? '' : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Decodes a protobuf body; the error is one sentence for the `Status` of a 400 answer. */
export function decodeOtlpProtobuf(bytes: Uint8Array): Result<readonly OtlpLogRecord[], string> {
  try {
    // Always a Buffer, whichever thread the body came from: protobufjs reads a Buffer's strings with Node's
    // UTF-8 decoder (and a plain byte array's with its own, which reads bad UTF-8 differently).
    const request = decodeLogsRequestMessage(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const records: OtlpLogRecord[] = [];
    for (const resourceLogs of request.resourceLogs ?? []) {
      const attributes = resourceLogs.resource?.attributes;
      const resource = attributes === undefined || attributes === null ? emptyMap : keyValuesOf(attributes, 0);
      for (const scopeLogs of resourceLogs.scopeLogs ?? []) {
        for (const record of scopeLogs.logRecords ?? []) {
          records.push({
            timeUnixNano: bigintOf(record.timeUnixNano, false),
            observedTimeUnixNano: bigintOf(record.observedTimeUnixNano, false),
            body: valueOf(record.body, 0),
            attributes: record.attributes === undefined || record.attributes === null ? emptyMap : keyValuesOf(record.attributes, 0),
            resource,
            traceId: hexOf(record.traceId),
            spanId: hexOf(record.spanId),
          });
        }
      }
    }
    return ok(records);
  } catch (error) {
    if (error instanceof TooDeep) return err(`A value nests arrays or key-value lists deeper than ${maxValueDepth} levels`);
    // protobufjs throws on truncated or malformed wire data (and a RangeError past its own nesting limit).
    const detail = error instanceof Error ? error.message : String(error);
    return err(`The body is not a protobuf ExportLogsServiceRequest: ${detail}`);
  }
}
