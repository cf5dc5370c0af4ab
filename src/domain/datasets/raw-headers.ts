/**
 * The raw request and response headers an event carries as `[name, value]` pairs (`RawRequestHeaders`,
 * `RawResponseHeaders`), which custom-field capture reads, and the check of one such list as parsed from
 * JSON: pairs of two strings, names HTTP tokens, within the ingest limits.
 */
import { describeJson, quote } from '../filters/filter-problem.ts';
import { findNonTokenChar, tokenPunctuation } from '../rulesets/token-char.ts';
import type { IngestLimits } from './ingest-limits.ts';

/** Raw headers as sent: `[name, value]` pairs in wire order, names in any case. */
export type RawHeaders = readonly (readonly [string, string])[];

/** The event key holding the request's raw headers. */
export const rawRequestHeadersKey = 'RawRequestHeaders';
/** The event key holding the response's raw headers. */
export const rawResponseHeadersKey = 'RawResponseHeaders';

/**
 * Checks that a parsed JSON value is a list of raw headers within `limits`, so it can be used as
 * {@link RawHeaders} as it is; returns the problem as one sentence naming the key `name`, or undefined.
 */
export function checkRawHeaders(value: unknown, name: string, limits: IngestLimits): string | undefined {
  if (!Array.isArray(value)) {
    return `"${name}" must be an array of [name, value] pairs such as [["Host","example.com"]], got ${describeJson(value)}`;
  }
  if (value.length > limits.maxHeaderPairs) return `"${name}" has more than ${limits.maxHeaderPairs} headers`;
  for (let i = 0; i < value.length; i++) {
    const pair: unknown = value[i];
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
      return `"${name}"[${i}] must be a [name, value] pair of two strings, got ${describePair(pair)}`;
    }
    const headerName: string = pair[0];
    const headerValue: string = pair[1];
    if (headerName.length === 0) return `"${name}"[${i}] has an empty header name`;
    if (headerName.length > limits.maxHeaderNameLength) {
      return `"${name}"[${i}] has a header name longer than ${limits.maxHeaderNameLength} characters`;
    }
    if (findNonTokenChar(headerName) >= 0) {
      return (
        `"${name}"[${i}] has the header name ${quote(headerName)}, which is not an HTTP token ` +
        `(letters, digits and ${tokenPunctuation})`
      );
    }
    if (headerValue.length > limits.maxStringLength) {
      return `"${name}"[${i}] has a value longer than ${limits.maxStringLength} characters`;
    }
  }
  return undefined;
}

function describePair(pair: unknown): string {
  if (!Array.isArray(pair)) return describeJson(pair);
  if (pair.length !== 2) return `an array of ${pair.length} item${pair.length === 1 ? '' : 's'}`;
  return `[${describeJson(pair[0])}, ${describeJson(pair[1])}]`;
}
