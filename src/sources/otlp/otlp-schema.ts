/**
 * The official OTLP schema, taken from a package rather than written here: the protobufjs code that
 * `@opentelemetry/otlp-transformer` 0.52 generated from the opentelemetry-proto files
 * (docs/decisions.md says why this package and version). This module narrows its untyped export to the
 * few messages logexport uses, and holds the protobufjs writer for the one message the package lacks
 * (`google.rpc.Status`).
 */
import { createRequire } from 'node:module';
import protobuf from 'protobufjs/minimal.js';

/** A 64-bit integer as protobufjs decodes it (a `Long`), or a number when it fits. */
export interface DecodedLong {
  readonly low: number;
  readonly high: number;
  readonly unsigned: boolean;
}

/** `opentelemetry.proto.common.v1.AnyValue` as decoded; `value` names the field of the oneof that is set. */
export interface DecodedAnyValue {
  readonly value?: 'stringValue' | 'boolValue' | 'intValue' | 'doubleValue' | 'arrayValue' | 'kvlistValue' | 'bytesValue';
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  readonly intValue?: DecodedLong | number | null;
  readonly doubleValue?: number;
  readonly arrayValue?: { readonly values?: readonly DecodedAnyValue[] | null } | null;
  readonly kvlistValue?: { readonly values?: readonly DecodedKeyValue[] | null } | null;
  readonly bytesValue?: Uint8Array | null;
}

/** `opentelemetry.proto.common.v1.KeyValue` as decoded. */
export interface DecodedKeyValue {
  readonly key?: string;
  readonly value?: DecodedAnyValue | null;
}

/** `opentelemetry.proto.logs.v1.LogRecord` as decoded (the fields logexport reads). */
export interface DecodedLogRecord {
  readonly timeUnixNano?: DecodedLong | number | null;
  readonly observedTimeUnixNano?: DecodedLong | number | null;
  readonly body?: DecodedAnyValue | null;
  readonly attributes?: readonly DecodedKeyValue[] | null;
  readonly traceId?: Uint8Array | null;
  readonly spanId?: Uint8Array | null;
}

/** `opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest` as decoded. */
export interface DecodedLogsRequest {
  readonly resourceLogs?: readonly {
    readonly resource?: { readonly attributes?: readonly DecodedKeyValue[] | null } | null;
    readonly scopeLogs?: readonly { readonly logRecords?: readonly DecodedLogRecord[] | null }[] | null;
  }[] | null;
}

interface MessageType<T> {
  decode(bytes: Uint8Array): T;
  encode(message: T): { finish(): Uint8Array };
}

/** The response, as logexport fills it in. */
export interface LogsResponse {
  readonly partialSuccess?: { readonly rejectedLogRecords: number; readonly errorMessage: string };
}

interface GeneratedRoot {
  readonly opentelemetry: {
    readonly proto: {
      readonly collector: {
        readonly logs: {
          readonly v1: {
            readonly ExportLogsServiceRequest: MessageType<DecodedLogsRequest>;
            readonly ExportLogsServiceResponse: MessageType<LogsResponse>;
          };
        };
      };
    };
  };
}

const requireFromHere = createRequire(import.meta.url);
let loaded: GeneratedRoot['opentelemetry']['proto']['collector']['logs']['v1'] | undefined;

/**
 * The generated messages, loaded at the first OTLP request: the schema costs every thread that loads it
 * ~14 MB resident, which a node that never receives OTLP (and its ingest workers) should not pay. Taken once,
 * right after loading: the generated code registers itself in protobufjs's shared default root, where
 * another copy of the schema loaded later would replace it.
 */
function logsV1(): GeneratedRoot['opentelemetry']['proto']['collector']['logs']['v1'] {
  loaded ??= (requireFromHere('@opentelemetry/otlp-transformer/build/src/generated/root.js') as GeneratedRoot).opentelemetry.proto.collector.logs.v1;
  return loaded;
}

/** Decodes protobuf bytes; throws on bytes that are not the message. */
export const decodeLogsRequestMessage = (bytes: Uint8Array): DecodedLogsRequest => logsV1().ExportLogsServiceRequest.decode(bytes);

/** Encodes the response message. */
export const encodeLogsResponseMessage = (response: LogsResponse): Uint8Array => logsV1().ExportLogsServiceResponse.encode(response).finish();

/**
 * Encodes a `google.rpc.Status` (`code` = field 1, int32; `message` = field 2, string), the body of an
 * OTLP/HTTP error answer, with protobufjs's writer.
 */
export function encodeStatusMessage(code: number, message: string): Uint8Array {
  const writer = protobuf.Writer.create();
  if (code !== 0) writer.uint32((1 << 3) | 0).int32(code);
  if (message !== '') writer.uint32((2 << 3) | 2).string(message);
  return writer.finish();
}
