/**
 * An OTLP logs request as the mapping reads it, whatever the wire encoding was: the log records of every
 * resource and scope, flattened, each with its resource's attributes beside it. An integer is a bigint,
 * or a number when it is not negative and below 2^53 (the one-pass reader spares the bigint then); the
 * mapping reads both alike, and never takes a double for more than its value (`200.5` is no status code).
 */

/** An OTLP `AnyValue`: string, bool, int (bigint or number), double (number), bytes, array, key-value list, or empty. */
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

/** One log record as a decoder reads it: every attribute of the record and of its resource. */
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

/** The attributes of a record that the mapping reads, sorted the way it reads them. */
export interface MappedAttributes {
  /**
   * Each semantic-convention attribute by its index in `conventionKeys` (map-log-record.ts): the record's
   * (the first of a repeated key) when it has a value, else the resource's; undefined when neither has one.
   */
  readonly conventions: readonly OtlpValue[];
  /**
   * Header and native-field attributes, in order: the first of each key on the record, then those of the
   * resource whose key the record lacks. The first `otherCount` keys and values are theirs (the one-pass
   * reader fills the same lists record after record).
   */
  readonly otherKeys: readonly string[];
  readonly otherValues: readonly OtlpValue[];
  readonly otherCount: number;
}

/** One log record as the mapping reads it (map-log-record.ts builds it from an OtlpLogRecord; the one-pass reader reads it directly). */
export interface MappedLogRecord {
  readonly timeUnixNano: bigint;
  readonly observedTimeUnixNano: bigint;
  readonly body: OtlpValue;
  /**
   * The body's native event, already read into the object the mapping would make of it (the one-pass reader
   * builds it as it reads the body, instead of a key-value list); `body` is then not read.
   */
  readonly nativeEvent?: Record<string, unknown>;
  readonly attributes: MappedAttributes;
  readonly traceId: string;
  readonly spanId: string;
}

/** How deep arrays and key-value lists may nest inside one value; deeper values are refused as undecodable. */
export const maxValueDepth = 32;
