/**
 * Runs the OTLP decoder on a request as ingest would, with a sink that keeps every event it is handed: the
 * events (record and raw headers) with their zones, the decoder's account, or why it refused the body.
 */
import { httpRequests } from '../../../../src/domain/datasets/http-requests.ts';
import { compileIngestParser, type IngestEvent } from '../../../../src/domain/datasets/ingest-event.ts';
import type { EventSink } from '../../../../src/ingest/event-decoder.ts';
import { otlpDecoder, type OtlpAccount, type OtlpDecoderOptions } from '../../../../src/sources/otlp/otlp-decoder.ts';

const decoder = otlpDecoder();
const parse = compileIngestParser(httpRequests);

/** An event as handed to the sink: its zone, record and raw headers. */
export interface DecodedEvent {
  readonly zoneId: string;
  readonly record: Record<string, unknown>;
  readonly rawRequestHeaders: IngestEvent['rawRequestHeaders'];
  readonly rawResponseHeaders: IngestEvent['rawResponseHeaders'];
}

export type DecodedRequest = { readonly ok: true; readonly events: readonly DecodedEvent[]; readonly account: OtlpAccount } | { readonly ok: false; readonly kind: string; readonly message: string };

export function decodeRequest(bytes: Uint8Array, options: OtlpDecoderOptions): DecodedRequest {
  let events: DecodedEvent[] = [];
  const sink: EventSink = {
    add: (zoneId, event) => {
      events.push({ zoneId, record: event.record, rawRequestHeaders: event.rawRequestHeaders, rawResponseHeaders: event.rawResponseHeaders });
      return true;
    },
    discard: () => {
      events = [];
    },
  };
  const result = decoder.decode(bytes, options, sink, parse);
  if (!result.ok) return { ok: false, kind: result.error.kind, message: result.error.message };
  return { ok: true, events, account: result.value as OtlpAccount };
}
