/**
 * The bodies of OTLP/HTTP answers, in the encoding the request used: an `ExportLogsServiceResponse`
 * (with `partial_success` when some records were rejected) for a 200, and a `google.rpc.Status` for an
 * error. The HTTP status of an error is chosen by api/error-handler.ts; this module only writes bodies.
 */
import { encodeLogsResponseMessage, encodeStatusMessage } from './otlp-schema.ts';

/** The two encodings of OTLP/HTTP. */
export type OtlpEncoding = 'protobuf' | 'json';

/** A body to send and its Content-Type. */
export interface OtlpAnswerBody {
  readonly contentType: string;
  readonly body: Buffer | string;
}

/** The encoding a request's Content-Type names; undefined for another media type. */
export function otlpEncodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

/** HTTP servers send a Buffer as bytes (a plain Uint8Array could be taken for an object to serialize). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const contentTypes: Record<OtlpEncoding, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

/** The 200 answer: rejected records counted, with the reason, or an empty response when all were accepted. */
export function exportResponseBody(encoding: OtlpEncoding, rejected: number, errorMessage: string): OtlpAnswerBody {
  const partialSuccess = rejected > 0 || errorMessage !== '' ? { rejectedLogRecords: rejected, errorMessage } : undefined;
  switch (encoding) {
    case 'protobuf':
      return { contentType: contentTypes.protobuf, body: asBuffer(encodeLogsResponseMessage(partialSuccess === undefined ? {} : { partialSuccess })) };
    case 'json':
      // The JSON mapping writes 64-bit integers as strings.
      return {
        contentType: contentTypes.json,
        body: JSON.stringify(partialSuccess === undefined ? {} : { partialSuccess: { rejectedLogRecords: String(rejected), errorMessage } }),
      };
  }
}

/** An error answer's `Status` (`code` is a google.rpc.Code: 3 invalid argument, 16 unauthenticated, …). */
export function statusBody(encoding: OtlpEncoding, code: number, message: string): OtlpAnswerBody {
  switch (encoding) {
    case 'protobuf':
      return { contentType: contentTypes.protobuf, body: asBuffer(encodeStatusMessage(code, message)) };
    case 'json':
      return { contentType: contentTypes.json, body: JSON.stringify({ code, message }) };
  }
}
