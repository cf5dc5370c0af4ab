/**
 * A DuckDB answer value as JSON, the contract Log Explorer's SQL answers keep (docs/log-explorer.md):
 * integers as JSON numbers (as decimal strings beyond 2^53, which a JSON number cannot hold exactly),
 * timestamps as RFC 3339 UTC strings, maps and structs as objects, lists as arrays, NULL as null, and
 * everything else (dates, intervals, UUIDs, decimals beyond a double…) as DuckDB writes it.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { setMember } from '../core/set-member.ts';
import type { DuckDBModule } from './duckdb-module.ts';

/** What a JSON answer holds. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);

/** An integer as a JSON number when it is exact as one, else its decimal digits. */
function integerJson(value: bigint): number | string {
  return value <= maxSafe && value >= -maxSafe ? Number(value) : value.toString();
}

/**
 * Nanoseconds since the epoch as RFC 3339 in UTC, with as many fraction digits as it needs (none, 3, 6 or
 * 9): `2026-11-26T16:00:00Z`, `2026-11-26T16:00:00.123456Z`.
 */
export function rfc3339OfNanos(nanos: bigint): string {
  let seconds = nanos / 1_000_000_000n;
  let fraction = nanos % 1_000_000_000n;
  if (fraction < 0n) {
    fraction += 1_000_000_000n;
    seconds -= 1n;
  }
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  if (fraction === 0n) return `${whole}Z`;
  let digits = fraction.toString().padStart(9, '0');
  digits = digits.endsWith('000000') ? digits.slice(0, 3) : digits.endsWith('000') ? digits.slice(0, 6) : digits;
  return `${whole}.${digits}Z`;
}

function timestampJson(nanos: bigint, text: string): string {
  // ±infinity (and dates beyond JavaScript's range) as DuckDB writes them.
  const ms = Number(nanos / 1_000_000n);
  return Math.abs(ms) <= 8.64e15 ? rfc3339OfNanos(nanos) : text;
}

function numberJson(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

/** The converter of one answer value to JSON, over the loaded DuckDB module's value classes. */
export function jsonConverter(duck: DuckDBModule): (value: DuckDBValue) => JsonValue {
  const jsonOf = (value: DuckDBValue): JsonValue => {
    if (value === null) return null;
    switch (typeof value) {
      case 'boolean':
      case 'string':
        return value;
      case 'number':
        return numberJson(value);
      case 'bigint':
        return integerJson(value);
      default:
        break;
    }
    if (value instanceof duck.DuckDBTimestampTZValue || value instanceof duck.DuckDBTimestampValue) return value.isFinite ? timestampJson(value.micros * 1000n, value.toString()) : value.toString();
    if (value instanceof duck.DuckDBTimestampNanosecondsValue) return timestampJson(value.nanos, value.toString());
    if (value instanceof duck.DuckDBTimestampMillisecondsValue) return timestampJson(value.millis * 1_000_000n, value.toString());
    if (value instanceof duck.DuckDBTimestampSecondsValue) return timestampJson(value.seconds * 1_000_000_000n, value.toString());
    if (value instanceof duck.DuckDBMapValue) {
      const object: Record<string, JsonValue> = {};
      for (const entry of value.entries) setMember(object, entry.key === null ? 'null' : typeof entry.key === 'string' ? entry.key : JSON.stringify(jsonOf(entry.key)), jsonOf(entry.value));
      return object;
    }
    if (value instanceof duck.DuckDBStructValue) {
      const object: Record<string, JsonValue> = {};
      for (const [key, item] of Object.entries(value.entries)) setMember(object, key, jsonOf(item));
      return object;
    }
    if (value instanceof duck.DuckDBListValue || value instanceof duck.DuckDBArrayValue) return value.items.map(jsonOf);
    if (value instanceof duck.DuckDBUnionValue) return jsonOf(value.value);
    if (value instanceof duck.DuckDBDecimalValue) return value.scale === 0 ? integerJson(value.value) : numberJson(value.toDouble());
    return value.toString();
  };
  return jsonOf;
}
