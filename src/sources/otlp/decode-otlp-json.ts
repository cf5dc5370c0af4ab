/**
 * An `application/json` OTLP logs request → the flattened records of otlp-logs.ts, per the OTLP/HTTP JSON
 * mapping of protobuf: lower-camel field names, 64-bit integers as decimal strings (numbers accepted too),
 * trace and span ids as hex, bytes as base64, enum values ignored. Unknown fields are ignored, as the
 * specification asks; a field of the wrong JSON type makes the body undecodable.
 */
import { err, ok, type Result } from '../../core/result.ts';
import { maxValueDepth, type OtlpKeyValues, type OtlpLogRecord, type OtlpValue } from './otlp-logs.ts';

/** Thrown inside the conversion; caught at the top and answered as the reason the body does not decode. */
class Undecodable extends Error {}

type JsonObject = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An optional object field: absent and null are the default (empty). */
function objectAt(parent: JsonObject, key: string, where: string): JsonObject | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new Undecodable(`${where}.${key} must be an object`);
  return value;
}

function arrayAt(parent: JsonObject, key: string, where: string): readonly unknown[] {
  const value = parent[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Undecodable(`${where}.${key} must be an array`);
  return value;
}

function stringAt(parent: JsonObject, key: string, where: string): string {
  const value = parent[key];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new Undecodable(`${where}.${key} must be a string`);
  return value;
}

/** A 64-bit integer: a decimal string (the mapping's form) or a JSON integer. */
function int64Of(value: unknown, where: string, signed: boolean): bigint {
  if (value === undefined || value === null) return 0n;
  let parsed: bigint | undefined;
  if (typeof value === 'string' && /^-?\d{1,20}$/.test(value)) parsed = BigInt(value);
  else if (typeof value === 'number' && Number.isSafeInteger(value)) parsed = BigInt(value);
  if (parsed === undefined) throw new Undecodable(`${where} must be a 64-bit integer (a decimal string or a JSON integer)`);
  const fits = signed ? BigInt.asIntN(64, parsed) === parsed : BigInt.asUintN(64, parsed) === parsed;
  if (!fits) throw new Undecodable(`${where} is out of the range of a ${signed ? 'signed' : 'unsigned'} 64-bit integer`);
  return parsed;
}

function doubleOf(value: unknown, where: string): number {
  if (typeof value === 'number') return value;
  if (value === 'NaN') return Number.NaN;
  if (value === 'Infinity') return Number.POSITIVE_INFINITY;
  if (value === '-Infinity') return Number.NEGATIVE_INFINITY;
  throw new Undecodable(`${where} must be a number`);
}

function idOf(value: unknown, where: string, bytes: number): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'string' || value.length !== bytes * 2 || !/^[0-9a-fA-F]+$/.test(value)) {
    throw new Undecodable(`${where} must be ${bytes * 2} hex digits`);
  }
  return value.toLowerCase();
}

function anyValueOf(value: unknown, where: string, depth: number): OtlpValue {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new Undecodable(`${where} must be an AnyValue object`);
  if (depth > maxValueDepth) throw new Undecodable(`${where} nests arrays or key-value lists deeper than ${maxValueDepth} levels`);
  if (value.stringValue !== undefined && value.stringValue !== null) {
    if (typeof value.stringValue !== 'string') throw new Undecodable(`${where}.stringValue must be a string`);
    return value.stringValue;
  }
  if (value.boolValue !== undefined && value.boolValue !== null) {
    if (typeof value.boolValue !== 'boolean') throw new Undecodable(`${where}.boolValue must be true or false`);
    return value.boolValue;
  }
  if (value.intValue !== undefined && value.intValue !== null) return int64Of(value.intValue, `${where}.intValue`, true);
  if (value.doubleValue !== undefined && value.doubleValue !== null) return doubleOf(value.doubleValue, `${where}.doubleValue`);
  if (value.bytesValue !== undefined && value.bytesValue !== null) {
    if (typeof value.bytesValue !== 'string') throw new Undecodable(`${where}.bytesValue must be a base64 string`);
    return new Uint8Array(Buffer.from(value.bytesValue, 'base64'));
  }
  const array = objectAt(value, 'arrayValue', where);
  if (array !== undefined) return arrayAt(array, 'values', `${where}.arrayValue`).map((item, i) => anyValueOf(item, `${where}.arrayValue.values[${i}]`, depth + 1));
  const kvlist = objectAt(value, 'kvlistValue', where);
  if (kvlist !== undefined) return keyValuesOf(arrayAt(kvlist, 'values', `${where}.kvlistValue`), `${where}.kvlistValue.values`, depth + 1);
  return undefined;
}

function keyValuesOf(list: readonly unknown[], where: string, depth: number): OtlpKeyValues {
  const map = new Map<string, OtlpValue>();
  for (let i = 0; i < list.length; i++) {
    const entry = list[i];
    const at = `${where}[${i}]`;
    if (!isObject(entry)) throw new Undecodable(`${at} must be a KeyValue object`);
    const key = stringAt(entry, 'key', at);
    const value = anyValueOf(entry.value, `${at}.value`, depth);
    if (!map.has(key)) map.set(key, value);
  }
  return map;
}

function recordsOf(request: unknown): OtlpLogRecord[] {
  if (!isObject(request)) throw new Undecodable('The body must be a JSON object (an ExportLogsServiceRequest)');
  const records: OtlpLogRecord[] = [];
  const resourceLogs = arrayAt(request, 'resourceLogs', '');
  for (let r = 0; r < resourceLogs.length; r++) {
    const rl = resourceLogs[r];
    const rlAt = `resourceLogs[${r}]`;
    if (!isObject(rl)) throw new Undecodable(`${rlAt} must be an object`);
    const resourceObject = objectAt(rl, 'resource', rlAt);
    const resource = keyValuesOf(resourceObject === undefined ? [] : arrayAt(resourceObject, 'attributes', `${rlAt}.resource`), `${rlAt}.resource.attributes`, 0);
    const scopeLogs = arrayAt(rl, 'scopeLogs', rlAt);
    for (let s = 0; s < scopeLogs.length; s++) {
      const sl = scopeLogs[s];
      const slAt = `${rlAt}.scopeLogs[${s}]`;
      if (!isObject(sl)) throw new Undecodable(`${slAt} must be an object`);
      const logRecords = arrayAt(sl, 'logRecords', slAt);
      for (let l = 0; l < logRecords.length; l++) {
        const record = logRecords[l];
        const at = `${slAt}.logRecords[${l}]`;
        if (!isObject(record)) throw new Undecodable(`${at} must be an object`);
        records.push({
          timeUnixNano: int64Of(record.timeUnixNano, `${at}.timeUnixNano`, false),
          observedTimeUnixNano: int64Of(record.observedTimeUnixNano, `${at}.observedTimeUnixNano`, false),
          body: anyValueOf(record.body, `${at}.body`, 0),
          attributes: keyValuesOf(arrayAt(record, 'attributes', at), `${at}.attributes`, 0),
          resource,
          traceId: idOf(record.traceId, `${at}.traceId`, 16),
          spanId: idOf(record.spanId, `${at}.spanId`, 8),
        });
      }
    }
  }
  return records;
}

/** Decodes a JSON body (already UTF-8 text); the error is one sentence for the `Status` of a 400 answer. */
export function decodeOtlpJson(text: string): Result<readonly OtlpLogRecord[], string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return err('The body is not valid JSON');
  }
  try {
    return ok(recordsOf(parsed));
  } catch (error) {
    if (error instanceof Undecodable) return err(`The body is not an OTLP JSON ExportLogsServiceRequest: ${error.message}`);
    throw error;
  }
}
