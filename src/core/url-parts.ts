/**
 * The grammar of the storage URLs logexport reads, `scheme://authority/path?query`: a job's
 * destination_conf (domain/jobs/destination-conf) and the retained logs' LOGEXPORT_RETENTION_URL
 * (config/), taken apart and checked alike, so that a bad path, query or key pair is refused in the same
 * words wherever it is written. It lives below both, so configuration needs nothing of the domain. Paths
 * are parsed by hand rather than with WHATWG `URL`, because `URL` silently folds `..` and `%2e%2e` away, and
 * a refused `..` must be seen to be refused. Pure.
 */
import type { ErrorDetail } from './app-error.ts';
import { err, ok, type Result } from './result.ts';

/** The JSON pointer every destination_conf problem is reported at. */
export const destinationConfPointer = '/destination_conf';

/** What a masked secret reads as in API responses (and is refused as a value when sent back). */
export const maskedValue = 'REDACTED';

/** An access key pair for S3 or R2; both halves are always present together. */
export interface AccessKeyPair {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

const maxPathBytes = 900;
const maxKeyLength = 512;

interface RawParts {
  readonly authority: string;
  readonly path: string;
  readonly query: string | undefined;
}

/** Splits `scheme://authority/path?query`; a `#fragment` is refused because nothing could use it. */
export function splitRaw(conf: string): Result<RawParts, ErrorDetail[]> {
  if (conf.includes('#')) return fail("destination_conf must not contain '#'; percent-encode it as %23");
  const rest = conf.slice(conf.indexOf('://') + 3);
  const question = rest.indexOf('?');
  const beforeQuery = question === -1 ? rest : rest.slice(0, question);
  const query = question === -1 ? undefined : rest.slice(question + 1);
  const slash = beforeQuery.indexOf('/');
  const authority = slash === -1 ? beforeQuery : beforeQuery.slice(0, slash);
  const path = slash === -1 ? '' : beforeQuery.slice(slash + 1);
  return ok({ authority, path, query });
}

interface PathRules {
  readonly allowBackslash: boolean;
  readonly maxSegmentBytes: number | undefined;
}

/** Decodes and checks an object path: segments, `{DATE}`, `..`, NUL, length. */
export function parsePath(raw: string, rules: PathRules, problems: ErrorDetail[]): string {
  const trimmed = raw.endsWith('/') ? raw.slice(0, -1) : raw;
  if (trimmed === '') return '';
  const segments: string[] = [];
  for (const rawSegment of trimmed.split('/')) {
    const segment = decodePercent(rawSegment);
    if (segment === undefined) {
      problems.push(detail(`path segment '${rawSegment}' has an invalid percent-encoding`));
      return '';
    }
    if (segment === '') {
      problems.push(detail('path must not contain an empty segment (//)'));
      return '';
    }
    if (segment === '.' || segment === '..') {
      problems.push(detail(`path must not contain '${segment}' segments`));
      return '';
    }
    if (segment.includes('/')) {
      problems.push(detail('path segments must not contain an encoded slash (%2F)'));
      return '';
    }
    if (hasControlChar(segment, false)) {
      problems.push(detail('path must not contain NUL or control characters'));
      return '';
    }
    if (!rules.allowBackslash && segment.includes('\\')) {
      problems.push(detail('path must not contain a backslash'));
      return '';
    }
    if (rules.maxSegmentBytes !== undefined && utf8Length(segment.replaceAll('{DATE}', '20000101')) > rules.maxSegmentBytes) {
      problems.push(detail(`path segment '${segment.slice(0, 40)}…' is longer than ${rules.maxSegmentBytes} bytes`));
      return '';
    }
    segments.push(segment);
  }
  const path = segments.join('/');
  if (/[{}]/.test(path.replaceAll('{DATE}', ''))) {
    problems.push(detail("path may hold the placeholder {DATE} and no other '{' or '}'"));
    return '';
  }
  if (utf8Length(path) > maxPathBytes) problems.push(detail(`path must be at most ${maxPathBytes} bytes`));
  return path;
}

/** Form-decodes a query string, keeping only `allowed` keys and refusing duplicates. */
export function parseQuery(query: string | undefined, allowed: readonly string[], scheme: string, problems: ErrorDetail[]): Map<string, string> {
  const params = new Map<string, string>();
  if (query === undefined) return params;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodeFormComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeFormComponent(eq === -1 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) {
      problems.push(detail(`query parameter '${pair.slice(0, 40)}' has an invalid percent-encoding`));
      continue;
    }
    if (!allowed.includes(key)) {
      problems.push(detail(`unknown ${scheme} parameter '${key}'; allowed: ${allowed.join(', ')}`));
      continue;
    }
    if (params.has(key)) {
      problems.push(detail(`parameter '${key}' is given more than once`));
      continue;
    }
    params.set(key, value);
  }
  return params;
}

/** Reads `access-key-id` and `secret-access-key` as one pair, both or neither (neither is a problem when `required`). */
export function parseKeyPair(params: Map<string, string>, problems: ErrorDetail[], required: boolean): AccessKeyPair | undefined {
  const id = params.get('access-key-id');
  const secret = params.get('secret-access-key');
  if (id === undefined && secret === undefined) {
    if (required) problems.push(detail('access-key-id and secret-access-key are required'));
    return undefined;
  }
  if (id === undefined || secret === undefined) {
    problems.push(detail('access-key-id and secret-access-key must be given together'));
    return undefined;
  }
  const before = problems.length;
  if (id === '' || id.length > maxKeyLength || findControlOrSpace(id) !== -1) {
    problems.push(detail(`access-key-id must be 1 to ${maxKeyLength} characters without spaces or control characters`));
  }
  if (secret === maskedValue) {
    problems.push(detail(`secret-access-key holds the masked placeholder ${maskedValue}; send the real secret`));
  } else if (secret.includes(' ')) {
    problems.push(detail("secret-access-key contains a space; a '+' in a secret must be percent-encoded as %2B"));
  } else if (secret === '' || secret.length > maxKeyLength || hasControlChar(secret, false)) {
    problems.push(detail(`secret-access-key must be 1 to ${maxKeyLength} characters without control characters`));
  }
  return problems.length > before ? undefined : { accessKeyId: id, secretAccessKey: secret };
}

/** `+` is a space and `%XX` a byte, as Go's and WHATWG's query parsers read it. */
export function decodeFormComponent(raw: string): string | undefined {
  return decodePercent(raw.replaceAll('+', ' '));
}

function decodePercent(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** The index of the first space or control character in `text`, or -1. */
export function findControlOrSpace(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return i;
  }
  return -1;
}

/** Whether `text` holds a control character (tab excepted when `allowTab`). */
export function hasControlChar(text: string, allowTab: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && !(allowTab && code === 0x09)) || code === 0x7f) return true;
  }
  return false;
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** One problem with the destination_conf, reported at its pointer. */
export function detail(message: string): ErrorDetail {
  return { message, pointer: destinationConfPointer };
}

/** Refuses the destination_conf for one problem. */
export function fail(message: string): Result<never, ErrorDetail[]> {
  return err([detail(message)]);
}
