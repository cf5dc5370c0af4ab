/**
 * `destination_conf`: the one string that says where a job delivers. It is parsed once, here, into a
 * kind-tagged `DestinationSpec`; everything after this module works with the spec and never re-reads the
 * string. Object-store paths are parsed by hand rather than with WHATWG `URL`, because `URL` silently
 * folds `..` and `%2e%2e` away, and a refused `..` must be seen to be refused.
 */
import type { ErrorDetail } from '../../core/app-error.ts';
import { err, ok, type Result } from '../../core/result.ts';
import { findNonTokenChar, tokenPunctuation } from '../rulesets/token-char.ts';

/** The JSON pointer every destination_conf problem is reported at. */
export const destinationConfPointer = '/destination_conf';

/** The longest destination_conf accepted, in characters (the public product's limit). */
export const maxDestinationConfLength = 4096;

/** What a masked secret reads as in API responses. */
export const maskedValue = 'REDACTED';

/** The schemes a destination_conf may use, as listed in messages. */
export const supportedSchemes = ['file', 's3', 'r2', 'https', 'http'] as const;

/** An access key pair for S3 or R2; both halves are always present together. */
export interface AccessKeyPair {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/**
 * A directory under the export root. `path` is relative, `/`-separated, percent-decoded, without leading
 * or trailing `/`, and may hold `{DATE}`; `""` is the export root itself.
 */
export interface FileDestinationSpec {
  readonly kind: 'file';
  readonly path: string;
}

/** An AWS S3 bucket, or a bucket of an S3-compatible service when `endpoint` is set. */
export interface S3DestinationSpec {
  readonly kind: 's3';
  readonly bucket: string;
  /** Key prefix inside the bucket, same form as `FileDestinationSpec.path`. */
  readonly path: string;
  readonly region: string;
  /** `http(s)://host[:port]` of an S3-compatible service; absent for AWS itself. */
  readonly endpoint: string | undefined;
  /** Absent: the AWS SDK's default credential chain is used. */
  readonly credentials: AccessKeyPair | undefined;
  readonly sse: 'AES256' | undefined;
}

/** A Cloudflare R2 bucket, reached through its S3-compatible endpoint. */
export interface R2DestinationSpec {
  readonly kind: 'r2';
  readonly bucket: string;
  readonly path: string;
  readonly accountId: string;
  /** `https://<account-id>.r2.cloudflarestorage.com`. */
  readonly endpoint: string;
  readonly region: 'auto';
  readonly credentials: AccessKeyPair;
}

/** One request header an HTTP destination sends with every POST. */
export interface HttpHeader {
  readonly name: string;
  readonly value: string;
}

/** An HTTP(S) endpoint that receives every batch as a POST. */
export interface HttpDestinationSpec {
  readonly kind: 'http';
  /** The URL posted to: the destination_conf without its `header_*` parameters. */
  readonly url: string;
  readonly headers: readonly HttpHeader[];
}

/** A parsed destination_conf. */
export type DestinationSpec = FileDestinationSpec | S3DestinationSpec | R2DestinationSpec | HttpDestinationSpec;

/** The kinds of destination, one per spec variant. */
export type DestinationKind = DestinationSpec['kind'];

const s3QueryKeys = ['region', 'endpoint', 'access-key-id', 'secret-access-key', 'sse'] as const;
const r2QueryKeys = ['account-id', 'access-key-id', 'secret-access-key'] as const;

/**
 * Headers an HTTP destination may not set through `header_*`: they frame the request, so letting a user set
 * them would corrupt it (or smuggle a second one).
 */
const reservedHeaders = new Set([
  'host',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
]);

const maxHeaders = 50;
const maxPathBytes = 900;
const maxFileSegmentBytes = 255;
const maxKeyLength = 512;

/** Parses a destination_conf into a spec, or lists every problem found (all at `/destination_conf`). */
export function parseDestinationConf(value: unknown): Result<DestinationSpec, ErrorDetail[]> {
  if (typeof value !== 'string') return fail('destination_conf must be a string');
  if (value.length === 0) return fail('destination_conf must not be empty');
  if (value.length > maxDestinationConfLength) {
    return fail(`destination_conf is ${value.length} characters long; the limit is ${maxDestinationConfLength}`);
  }
  const badChar = findControlOrSpace(value);
  if (badChar !== -1) {
    return fail(`destination_conf contains a space or control character at position ${badChar + 1}; percent-encode it`);
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value);
  if (scheme === null) {
    return fail(`destination_conf must be a URL such as file:///logs, s3://bucket/logs?region=us-east-1 or https://example.com/ingest`);
  }
  const name = (scheme[1] ?? '').toLowerCase();
  switch (name) {
    case 'file':
      return parseFile(value);
    case 's3':
      return parseS3(value);
    case 'r2':
      return parseR2(value);
    case 'http':
    case 'https':
      return parseHttp(value);
    default:
      return fail(`destination scheme '${name}' is not supported; supported schemes: ${supportedSchemes.join(', ')}`);
  }
}

/** Whether creating a job for this destination needs a valid ownership challenge token first. */
export function ownershipRequired(spec: DestinationSpec): boolean {
  switch (spec.kind) {
    case 'file':
      return true;
    case 's3':
      return spec.credentials === undefined;
    case 'r2':
    case 'http':
      return false;
  }
}

/**
 * A secret-free string naming where a destination writes; two specs with the same identity deliver to the
 * same place (used for "does a job already deliver here", and safe to log).
 */
export function destinationIdentity(spec: DestinationSpec): string {
  switch (spec.kind) {
    case 'file':
      return `file:///${spec.path}`;
    case 's3':
      return `s3://${spec.endpoint ?? `aws:${spec.region}`}/${spec.bucket}/${spec.path}`;
    case 'r2':
      return `r2://${spec.accountId}/${spec.bucket}/${spec.path}`;
    case 'http':
      return spec.url;
  }
}

/** Whether two specs deliver to the same place, whatever credentials or headers they carry. */
export function sameDestination(a: DestinationSpec, b: DestinationSpec): boolean {
  return destinationIdentity(a) === destinationIdentity(b);
}

/**
 * The destination_conf as shown in API responses: the values of `secret-access-key`, of every `header_*`
 * parameter, of parameters whose names suggest a secret (key, token, secret, password, signature, auth,
 * credential, `sig`, `code`; `access-key-id` excepted, it is an identifier), and any password in the URL are
 * replaced by `REDACTED`. Works on any string, valid or not, so nothing can slip through unparsed.
 */
export function maskDestinationConf(conf: string): string {
  const withoutUserinfo = conf.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#@]*)@/, (_all, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return colon === -1 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:${maskedValue}@`;
  });
  const question = withoutUserinfo.indexOf('?');
  if (question === -1) return withoutUserinfo;
  const hash = withoutUserinfo.indexOf('#', question);
  const end = hash === -1 ? withoutUserinfo.length : hash;
  const query = withoutUserinfo.slice(question + 1, end);
  const masked = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const key = decodeFormComponent(pair.slice(0, eq)) ?? pair.slice(0, eq);
      return isSecretParameter(key) ? `${pair.slice(0, eq)}=${maskedValue}` : pair;
    })
    .join('&');
  return `${withoutUserinfo.slice(0, question + 1)}${masked}${withoutUserinfo.slice(end)}`;
}

/** Whether a query parameter of a destination_conf carries a secret, and so is masked in responses. */
export function isSecretParameter(key: string): boolean {
  const lower = key.toLowerCase();
  if (lower === 'access-key-id' || lower === 'account-id') return false;
  if (lower.startsWith('header_')) return true;
  if (lower === 'sig' || lower === 'code') return true;
  return /key|token|secret|passw|signature|auth|credential/.test(lower);
}

// ---------------------------------------------------------------------------------------------------------

interface RawParts {
  readonly authority: string;
  readonly path: string;
  readonly query: string | undefined;
}

/** Splits `scheme://authority/path?query`; a `#fragment` is refused because nothing could use it. */
function splitRaw(conf: string): Result<RawParts, ErrorDetail[]> {
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
function parsePath(raw: string, rules: PathRules, problems: ErrorDetail[]): string {
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

function parseFile(conf: string): Result<DestinationSpec, ErrorDetail[]> {
  const split = splitRaw(conf);
  if (!split.ok) return split;
  const problems: ErrorDetail[] = [];
  const { authority, path, query } = split.value;
  if (authority !== '') problems.push(detail(`file destinations take no host ('${authority}'); write file:///path/under/the/export/root`));
  if (query !== undefined) problems.push(detail('file destinations take no query parameters'));
  const parsed = parsePath(path, { allowBackslash: false, maxSegmentBytes: maxFileSegmentBytes }, problems);
  if (problems.length > 0) return err(problems);
  return ok({ kind: 'file', path: parsed });
}

function parseS3(conf: string): Result<DestinationSpec, ErrorDetail[]> {
  const split = splitRaw(conf);
  if (!split.ok) return split;
  const problems: ErrorDetail[] = [];
  const { authority, path, query } = split.value;
  checkS3Bucket(authority, problems);
  const parsedPath = parsePath(path, { allowBackslash: true, maxSegmentBytes: undefined }, problems);
  const params = parseQuery(query, s3QueryKeys, 's3', problems);

  const region = params.get('region');
  if (region === undefined || region === '') problems.push(detail('s3 destinations need region=<region> (for example region=us-east-1)'));
  else if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(region)) problems.push(detail(`region '${region}' is not a valid region name`));

  const endpointRaw = params.get('endpoint');
  const endpoint = endpointRaw === undefined ? undefined : parseEndpoint(endpointRaw, problems);
  const credentials = parseKeyPair(params, problems, false);

  const sse = params.get('sse');
  if (sse !== undefined && sse !== 'AES256') problems.push(detail(`sse must be AES256, not '${sse}'`));

  if (problems.length > 0) return err(problems);
  return ok({
    kind: 's3',
    bucket: authority,
    path: parsedPath,
    region: region ?? '',
    endpoint,
    credentials,
    sse: sse === 'AES256' ? 'AES256' : undefined,
  });
}

function parseR2(conf: string): Result<DestinationSpec, ErrorDetail[]> {
  const split = splitRaw(conf);
  if (!split.ok) return split;
  const problems: ErrorDetail[] = [];
  const { authority, path, query } = split.value;
  if (!/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(authority)) {
    problems.push(detail(`'${authority}' is not a valid R2 bucket name (3 to 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit)`));
  }
  const parsedPath = parsePath(path, { allowBackslash: true, maxSegmentBytes: undefined }, problems);
  const params = parseQuery(query, r2QueryKeys, 'r2', problems);
  const accountId = params.get('account-id');
  if (accountId === undefined || accountId === '') problems.push(detail('r2 destinations need account-id=<your 32-hex account id>'));
  else if (!/^[0-9a-fA-F]{32}$/.test(accountId)) problems.push(detail('account-id must be 32 hexadecimal characters'));
  const credentials = parseKeyPair(params, problems, true);
  if (problems.length > 0 || credentials === undefined || accountId === undefined) return err(problems);
  const account = accountId.toLowerCase();
  return ok({
    kind: 'r2',
    bucket: authority,
    path: parsedPath,
    accountId: account,
    endpoint: `https://${account}.r2.cloudflarestorage.com`,
    region: 'auto',
    credentials,
  });
}

function parseHttp(conf: string): Result<DestinationSpec, ErrorDetail[]> {
  if (conf.includes('#')) return fail("destination_conf must not contain '#'; percent-encode it as %23");
  let url: URL;
  try {
    url = new URL(conf);
  } catch {
    return fail('destination_conf is not a valid http(s) URL');
  }
  const problems: ErrorDetail[] = [];
  if (url.hostname === '') problems.push(detail('the URL needs a host'));
  if (url.username !== '' || url.password !== '') {
    problems.push(detail('put credentials in a header (header_Authorization=…), not in the URL'));
  }
  const question = conf.indexOf('?');
  const rawQuery = question === -1 ? '' : conf.slice(question + 1);
  const headers: HttpHeader[] = [];
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const key = decodeFormComponent(rawKey);
    if (key === undefined || !key.startsWith('header_')) {
      kept.push(pair);
      continue;
    }
    const value = decodeFormComponent(eq === -1 ? '' : pair.slice(eq + 1));
    const name = key.slice('header_'.length);
    if (value === undefined) {
      problems.push(detail(`${key} has an invalid percent-encoding`));
      continue;
    }
    const header = checkHeader(name, value, key, problems);
    if (header === undefined) continue;
    const lower = name.toLowerCase();
    if (seen.has(lower)) {
      problems.push(detail(`header ${name} is given more than once`));
      continue;
    }
    seen.add(lower);
    headers.push(header);
  }
  if (headers.length > maxHeaders) problems.push(detail(`at most ${maxHeaders} header_* parameters are allowed`));
  if (problems.length > 0) return err(problems);
  url.search = kept.length === 0 ? '' : `?${kept.join('&')}`;
  return ok({ kind: 'http', url: url.toString(), headers });
}

function checkHeader(name: string, value: string, key: string, problems: ErrorDetail[]): HttpHeader | undefined {
  if (name === '') {
    problems.push(detail('header_ needs a header name after it, as in header_Authorization=…'));
    return undefined;
  }
  const bad = findNonTokenChar(name);
  if (bad !== -1) {
    problems.push(detail(`header name '${name}' is not a valid HTTP token (letters, digits and ${tokenPunctuation})`));
    return undefined;
  }
  if (reservedHeaders.has(name.toLowerCase())) {
    problems.push(detail(`header ${name} is set by logexport and cannot be given in destination_conf`));
    return undefined;
  }
  if (hasControlChar(value, true)) {
    problems.push(detail(`the value of ${key} must not contain control characters or line breaks`));
    return undefined;
  }
  if (value === maskedValue) {
    problems.push(detail(`${key} holds the masked placeholder ${maskedValue}; send the real value`));
    return undefined;
  }
  return { name, value };
}

/** Form-decodes a query string, keeping only `allowed` keys and refusing duplicates. */
function parseQuery(query: string | undefined, allowed: readonly string[], scheme: string, problems: ErrorDetail[]): Map<string, string> {
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

function parseKeyPair(params: Map<string, string>, problems: ErrorDetail[], required: boolean): AccessKeyPair | undefined {
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

/** Accepts `https://host[:port]`, `http://host[:port]`, or a bare `host[:port]` (meaning https). */
function parseEndpoint(raw: string, problems: ErrorDetail[]): string | undefined {
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(raw) ? raw : `https://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    problems.push(detail(`endpoint '${raw}' is not a valid URL`));
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    problems.push(detail(`endpoint must be an http or https URL, not ${url.protocol.slice(0, -1)}`));
    return undefined;
  }
  if (url.hostname === '' || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || (url.pathname !== '/' && url.pathname !== '')) {
    problems.push(detail('endpoint must be just scheme://host[:port], without bucket, path, query or credentials'));
    return undefined;
  }
  return `${url.protocol}//${url.host}`;
}

/** Bucket naming rules of S3 (general purpose buckets), which S3-compatible services also accept. */
function checkS3Bucket(bucket: string, problems: ErrorDetail[]): void {
  const why = s3BucketProblem(bucket);
  if (why !== undefined) problems.push(detail(`'${bucket}' is not a valid S3 bucket name: ${why}`));
}

function s3BucketProblem(bucket: string): string | undefined {
  if (bucket.length < 3 || bucket.length > 63) return 'it must be 3 to 63 characters long';
  if (!/^[a-z0-9.-]+$/.test(bucket)) return 'only lowercase letters, digits, dots and hyphens are allowed';
  if (!/^[a-z0-9]/.test(bucket) || !/[a-z0-9]$/.test(bucket)) return 'it must start and end with a letter or digit';
  if (bucket.includes('..')) return 'it must not contain two adjacent dots';
  if (/^\d+\.\d+\.\d+\.\d+$/.test(bucket)) return 'it must not look like an IP address';
  if (bucket.startsWith('xn--') || bucket.startsWith('sthree-')) return "it must not start with 'xn--' or 'sthree-'";
  if (bucket.endsWith('-s3alias') || bucket.endsWith('--ol-s3')) return "it must not end with '-s3alias' or '--ol-s3'";
  return undefined;
}

/** `+` is a space and `%XX` a byte, as Go's and WHATWG's query parsers read it. */
function decodeFormComponent(raw: string): string | undefined {
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
function findControlOrSpace(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return i;
  }
  return -1;
}

/** Whether `text` holds a control character (tab excepted when `allowTab`). */
function hasControlChar(text: string, allowTab: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && !(allowTab && code === 0x09)) || code === 0x7f) return true;
  }
  return false;
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function detail(message: string): ErrorDetail {
  return { message, pointer: destinationConfPointer };
}

function fail(message: string): Result<never, ErrorDetail[]> {
  return err([detail(message)]);
}
