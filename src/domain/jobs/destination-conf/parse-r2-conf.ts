/**
 * `r2://bucket/prefix?account-id=…`: a Cloudflare R2 bucket. Its S3-compatible endpoint is derived from the
 * account id rather than given, so it cannot point anywhere else, and R2 has no ambient identity to fall
 * back on, so the key pair is required.
 */
import type { ErrorDetail } from '../../../core/app-error.ts';
import { err, ok, type Result } from '../../../core/result.ts';
import type { DestinationSpec } from '../destination-spec.ts';
import { detail, parseKeyPair, parsePath, parseQuery, splitRaw } from '../../../core/url-parts.ts';

const r2QueryKeys = ['account-id', 'access-key-id', 'secret-access-key'] as const;

/** Parses an `r2:` destination_conf into a spec, or lists every problem found. */
export function parseR2Conf(conf: string): Result<DestinationSpec, ErrorDetail[]> {
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
