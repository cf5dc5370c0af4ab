/**
 * An OTLP logs request as the mapping reads it, whatever the wire encoding was: the log records of every
 * resource and scope, flattened, each with its resource's attributes beside it. Values keep the
 * distinctions OTLP makes (an integer is a bigint, a double a number), so the mapping can tell
 * `http.response.status_code = 200` from `200.5`.
 */

/** An OTLP `AnyValue`: string, bool, int (bigint), double (number), bytes, array, key-value list, or empty. */
export type OtlpValue =
  | string
  | boolean
  | bigint
  | number
  | Uint8Array
  | readonly OtlpValue[]
  | OtlpKeyValues
  | undefined;

/** An OTLP key-value list (`attributes`, `kvlistValue`): keys in the order they were sent, the first of a repeated key kept. */
export type OtlpKeyValues = ReadonlyMap<string, OtlpValue>;

/** One log record with what the mapping needs. */
export interface OtlpLogRecord {
  /** Unix nanoseconds; 0 when unset. */
  readonly timeUnixNano: bigint;
  /** Unix nanoseconds; 0 when unset. */
  readonly observedTimeUnixNano: bigint;
  readonly body: OtlpValue;
  readonly attributes: OtlpKeyValues;
  /** The resource's attributes (shared by the records of one resource). */
  readonly resource: OtlpKeyValues;
  /** Lower-case hex; empty when unset. */
  readonly traceId: string;
  /** Lower-case hex; empty when unset. */
  readonly spanId: string;
}

/** How deep arrays and key-value lists may nest inside one value; deeper values are refused as undecodable. */
export const maxValueDepth = 32;
