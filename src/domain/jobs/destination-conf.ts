/**
 * `destination_conf`: the one string that says where a job delivers. It is parsed once, here, into a
 * kind-tagged `DestinationSpec`; everything after this module works with the spec and never re-reads the
 * string. The rules of each scheme live in `destination-conf/`; this module checks what holds for any
 * scheme, picks the parser, and owns what must treat every scheme alike: which destinations need proof of
 * ownership, when two of them are the same place, and which parts of the string are secrets to mask.
 */
import type { ErrorDetail } from '../../core/app-error.ts';
import type { Result } from '../../core/result.ts';
import { decodeFormComponent, fail, findControlOrSpace } from '../../core/url-parts.ts';
import { parseFileConf } from './destination-conf/parse-file-conf.ts';
import { parseHttpConf } from './destination-conf/parse-http-conf.ts';
import { parseR2Conf } from './destination-conf/parse-r2-conf.ts';
import { parseS3Conf } from './destination-conf/parse-s3-conf.ts';
import { maskedValue, type DestinationSpec } from './destination-spec.ts';

/** The longest destination_conf accepted, in characters (the public product's limit). */
export const maxDestinationConfLength = 4096;

/** The schemes a destination_conf may use, as listed in messages. */
export const supportedSchemes = ['file', 's3', 'r2', 'https', 'http'] as const;

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
      return parseFileConf(value);
    case 's3':
      return parseS3Conf(value);
    case 'r2':
      return parseR2Conf(value);
    case 'http':
    case 'https':
      return parseHttpConf(value);
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
  return mapSecretValues(conf, () => maskedValue);
}

/**
 * The destination_conf with each secret value (as written in the string, percent-encoding included)
 * replaced by `replace(value)`: the parts `maskDestinationConf` hides, and the store encrypts. Everything
 * else is kept byte for byte.
 */
export function mapSecretValues(conf: string, replace: (value: string) => string): string {
  const withoutUserinfo = conf.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#@]*)@/, (_all, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return colon === -1 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:${replace(userinfo.slice(colon + 1))}@`;
  });
  const question = withoutUserinfo.indexOf('?');
  if (question === -1) return withoutUserinfo;
  const hash = withoutUserinfo.indexOf('#', question);
  const end = hash === -1 ? withoutUserinfo.length : hash;
  const query = withoutUserinfo.slice(question + 1, end);
  const mapped = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const key = decodeFormComponent(pair.slice(0, eq)) ?? pair.slice(0, eq);
      return isSecretParameter(key) ? `${pair.slice(0, eq)}=${replace(pair.slice(eq + 1))}` : pair;
    })
    .join('&');
  return `${withoutUserinfo.slice(0, question + 1)}${mapped}${withoutUserinfo.slice(end)}`;
}

/** Whether a query parameter of a destination_conf carries a secret, and so is masked in responses. */
export function isSecretParameter(key: string): boolean {
  const lower = key.toLowerCase();
  if (lower === 'access-key-id' || lower === 'account-id') return false;
  if (lower.startsWith('header_')) return true;
  if (lower === 'sig' || lower === 'code') return true;
  return /key|token|secret|passw|signature|auth|credential/.test(lower);
}
