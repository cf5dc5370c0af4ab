/**
 * `file:///path`: a directory under the server's own export root. It names no host and takes no options,
 * and its segments are held to what every file system accepts, because they become real directory names.
 */
import type { ErrorDetail } from '../../../core/app-error.ts';
import { err, ok, type Result } from '../../../core/result.ts';
import type { DestinationSpec } from '../destination-spec.ts';
import { detail, parsePath, splitRaw } from '../../../core/url-parts.ts';

const maxFileSegmentBytes = 255;

/** Parses a `file:` destination_conf into a spec, or lists every problem found. */
export function parseFileConf(conf: string): Result<DestinationSpec, ErrorDetail[]> {
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
