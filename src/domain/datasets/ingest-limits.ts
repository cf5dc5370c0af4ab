/**
 * The size limits of one ingest event (string lengths, array items, object keys, raw header pairs), shared
 * by the line parser and the checks of field values and raw headers.
 */

/** Bounds that keep one line from growing any value without limit. */
export interface IngestLimits {
  /** Most characters (UTF-16 code units, as JSON strings are counted in JavaScript) in any string value. */
  readonly maxStringLength: number;
  /** Most items in an array field. */
  readonly maxArrayItems: number;
  /** Most keys in an object field (`JA4Signals`). */
  readonly maxObjectKeys: number;
  /** Most characters in a key of an object field. */
  readonly maxObjectKeyLength: number;
  /** Most `[name, value]` pairs in each of `RawRequestHeaders` and `RawResponseHeaders`. */
  readonly maxHeaderPairs: number;
  /** Most characters in a raw header name. */
  readonly maxHeaderNameLength: number;
}

/** The bounds ingest applies unless configured otherwise. */
export const defaultIngestLimits: IngestLimits = Object.freeze({
  maxStringLength: 65_536,
  maxArrayItems: 1000,
  maxObjectKeys: 1000,
  maxObjectKeyLength: 256,
  maxHeaderPairs: 500,
  maxHeaderNameLength: 256,
});
