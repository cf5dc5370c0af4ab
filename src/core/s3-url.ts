/**
 * `s3://bucket/prefix?region=…`: AWS S3, or any S3-compatible service when `endpoint` is given — the form
 * of an `s3://` destination_conf and of LOGEXPORT_RETENTION_URL alike. The key pair is optional because
 * without one the server's own AWS identity is used (which is why such a job must then prove it owns the
 * bucket). Pure.
 */
import type { ErrorDetail } from './app-error.ts';
import { err, ok, type Result } from './result.ts';
import { detail, parseKeyPair, parsePath, parseQuery, splitRaw, type AccessKeyPair } from './url-parts.ts';

/** An AWS S3 bucket and key prefix, or those of an S3-compatible service when `endpoint` is set. */
export interface S3Location {
  readonly bucket: string;
  /** Key prefix inside the bucket: relative, `/`-separated, percent-decoded, without leading or trailing `/`; may hold `{DATE}`. */
  readonly path: string;
  readonly region: string;
  /** `http(s)://host[:port]` of an S3-compatible service; absent for AWS itself. */
  readonly endpoint: string | undefined;
  /** Absent: the AWS SDK's default credential chain is used. */
  readonly credentials: AccessKeyPair | undefined;
  readonly sse: 'AES256' | undefined;
}

const s3QueryKeys = ['region', 'endpoint', 'access-key-id', 'secret-access-key', 'sse'] as const;

/** Parses an `s3://` URL into a location, or lists every problem found. */
export function parseS3Url(conf: string): Result<S3Location, ErrorDetail[]> {
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
    bucket: authority,
    path: parsedPath,
    region: region ?? '',
    endpoint,
    credentials,
    sse: sse === 'AES256' ? 'AES256' : undefined,
  });
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
