/**
 * `http(s)://…`: an endpoint that receives batches as POSTs. Unlike the object stores it is read with WHATWG
 * `URL`, because the URL goes to an HTTP client as it is; only the `header_*` parameters are taken out of it
 * to become request headers, and those are checked so that a user can neither break a request nor smuggle
 * a second one.
 */
import type { ErrorDetail } from '../../../core/app-error.ts';
import { err, ok, type Result } from '../../../core/result.ts';
import { findNonTokenChar, tokenPunctuation } from '../../rulesets/token-char.ts';
import { maskedValue, type DestinationSpec, type HttpHeader } from '../destination-spec.ts';
import { decodeFormComponent, detail, fail, hasControlChar } from '../../../core/url-parts.ts';

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

/** Parses an `http:` or `https:` destination_conf into a spec, or lists every problem found. */
export function parseHttpConf(conf: string): Result<DestinationSpec, ErrorDetail[]> {
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
