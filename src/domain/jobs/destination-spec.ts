/**
 * What a parsed `destination_conf` is: one kind-tagged spec per scheme. The shape stands apart from the
 * parser so that the delivery code, which only reads specs, and the per-scheme parsers, which only build
 * them, depend on the shape and not on each other.
 */

/** The JSON pointer every destination_conf problem is reported at. */
export const destinationConfPointer = '/destination_conf';

/** What a masked secret reads as in API responses (and is refused as a value when sent back). */
export const maskedValue = 'REDACTED';

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
