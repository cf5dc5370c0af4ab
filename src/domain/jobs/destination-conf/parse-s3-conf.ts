/** An `s3://` destination_conf: the S3 URL grammar (core/s3-url.ts), as a destination spec. */
import type { ErrorDetail } from '../../../core/app-error.ts';
import { ok, type Result } from '../../../core/result.ts';
import { parseS3Url } from '../../../core/s3-url.ts';
import type { DestinationSpec } from '../destination-spec.ts';

/** Parses an `s3:` destination_conf into a spec, or lists every problem found. */
export function parseS3Conf(conf: string): Result<DestinationSpec, ErrorDetail[]> {
  const parsed = parseS3Url(conf);
  return parsed.ok ? ok({ kind: 's3', ...parsed.value }) : parsed;
}
