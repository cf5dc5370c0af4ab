/**
 * What a parsed `destination_conf` is: one kind-tagged spec per scheme. The shape stands apart from the
 * parser so that the delivery code, which only reads specs, and the per-scheme parsers, which only build
 * them, depend on the shape and not on each other.
 */

import type { AccessKeyPair } from '../../core/url-parts.ts';
import type { S3Location } from '../../core/s3-url.ts';

export { destinationConfPointer, maskedValue, type AccessKeyPair } from '../../core/url-parts.ts';

/**
 * A directory under the export root. `path` is relative, `/`-separated, percent-decoded, without leading
 * or trailing `/`, and may hold `{DATE}`; `""` is the export root itself.
 */
export interface FileDestinationSpec {
  readonly kind: 'file';
  readonly path: string;
}

/** An AWS S3 bucket, or a bucket of an S3-compatible service when `endpoint` is set (core/s3-url.ts). */
export interface S3DestinationSpec extends S3Location {
  readonly kind: 's3';
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
