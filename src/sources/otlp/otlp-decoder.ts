/**
 * The OTLP source's decoder, run by ingest on its worker threads (event-decoder.ts): an OTLP/HTTP logs
 * request → its log records, each mapped to an event (map-log-record.ts), routed to its zone (the zone of
 * the path, or the zone of its host) and checked by HTTP ingest's checks, then handed to ingest; a record
 * that cannot be is rejected with the reason. Protobuf is read in one pass (read-otlp-protobuf.ts), and with
 * the schema's generated decoder when the request is not in the canonical encoding; JSON is parsed once and
 * walked along the OTLP JSON mapping. Never throws on a request: every record-level problem is a rejection.
 */
import { isUtf8 } from 'node:buffer';
import { err, ok, type Result } from '../../core/result.ts';
import type { EventStrings, IngestEvent, IngestLineParser } from '../../domain/datasets/ingest-event.ts';
import type { EventDecoder, EventSink } from '../../ingest/event-decoder.ts';
import { zoneNameForHost } from '../route-by-host.ts';
import { decodeOtlpJson } from './decode-otlp-json.ts';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf.ts';
import { hostOfNativeLine, mapLogRecord, mappedRecordOf } from './map-log-record.ts';
import type { OtlpEncoding } from './otlp-answer.ts';
import type { MappedLogRecord, OtlpLogRecord } from './otlp-logs.ts';
import { namedRejections, type OtlpRejectCode, type OtlpRejection, type OtlpRejections } from './otlp-rejections.ts';
import { readOtlpProtobuf } from './read-otlp-protobuf.ts';

/** The name ingest runs the decoder by. */
export const otlpDecoderName = 'otlp';

/** Where a request's records go: all to one zone, or each to the zone of its host among `zones` (`[name, id]`). */
export type OtlpRoute = { readonly kind: 'zone'; readonly zoneId: string } | { readonly kind: 'byHost'; readonly zones: readonly (readonly [string, string])[] };

/** What the decoder needs beside the body. */
export interface OtlpDecoderOptions {
  readonly encoding: OtlpEncoding;
  readonly route: OtlpRoute;
  /** Read protobuf with the generated decoder only (the reference the one-pass reader is tested against). */
  readonly generatedOnly?: boolean;
}

/** A record routed by host, named in an answer when its zone turns out not to take it. */
export interface RoutedRecord {
  readonly record: number;
  readonly host: string;
}

/** What the decoder tells of a request beside its events. */
export interface OtlpAccount {
  /** How the request was read: protobuf in one pass, protobuf by the generated decoder (not canonical), or JSON. */
  readonly readBy: 'onePass' | 'generated' | 'json';
  /** Log records in the request. */
  readonly total: number;
  /** Records rejected here: by the mapping, by host routing, by the checks. */
  readonly rejections: OtlpRejections;
  /** Records whose host no zone serves (or that name no host), among the rejections. */
  readonly unknownHosts: number;
  /** Routed by host: the first few records handed on for each zone, with their hosts. */
  readonly routed: Readonly<Record<string, readonly RoutedRecord[]>>;
}

/** The host of a checked native event: its `ClientRequestHost`, else its first `Host` raw header. */
function hostOfChecked(event: IngestEvent): string | undefined {
  const host = event.record.ClientRequestHost;
  if (typeof host === 'string' && host !== '') return host;
  for (const [name, value] of event.rawRequestHeaders) if (name.toLowerCase() === 'host') return value;
  return undefined;
}

/** Maps, routes, checks and hands on the records of one request, keeping the account. */
class RecordTaker {
  private readonly sink: EventSink;
  private readonly parse: IngestLineParser;
  private readonly route: OtlpRoute;
  private readonly zoneIds: ReadonlyMap<string, string> | undefined;
  total = 0;
  rejected = 0;
  unknownHosts = 0;
  first: OtlpRejection[] = [];
  byCode: Partial<Record<OtlpRejectCode, number>> = {};
  routed: Record<string, RoutedRecord[]> = {};

  constructor(sink: EventSink, parse: IngestLineParser, route: OtlpRoute) {
    this.sink = sink;
    this.parse = parse;
    this.route = route;
    this.zoneIds = route.kind === 'byHost' ? new Map(route.zones) : undefined;
  }

  /** Starts over (the request is read again another way). */
  reset(): void {
    this.sink.discard();
    this.total = 0;
    this.rejected = 0;
    this.unknownHosts = 0;
    this.first = [];
    this.byCode = {};
    this.routed = {};
  }

  /** Takes one record; `strings` says how its strings were decoded (the one-pass reader: Node's UTF-8 decoder, which cannot make a lone surrogate). */
  take(record: MappedLogRecord, position: number, strings: EventStrings = 'any'): void {
    this.total += 1;
    const mapped = mapLogRecord(record);
    if (mapped.kind === 'rejected') return this.reject(position, mapped.code, mapped.reason);
    // A body that is an event's JSON text is read by the ingest line parser, which checks it too; its host
    // comes from what it read, or (a line the checks refused) from its JSON, to be routed like any record.
    let checked: Result<IngestEvent, string> | undefined;
    let host: string | undefined;
    if (mapped.kind === 'text') {
      checked = this.parse(mapped.line);
      host = checked.ok ? hostOfChecked(checked.value) : hostOfNativeLine(mapped.line);
    } else {
      host = mapped.host;
    }
    let zoneId: string;
    if (this.route.kind === 'zone') {
      zoneId = this.route.zoneId;
    }
    else {
      const zoneIds = this.zoneIds as ReadonlyMap<string, string>;
      const name = host === undefined ? undefined : zoneNameForHost(host, (candidate) => zoneIds.has(candidate));
      const found = name === undefined ? undefined : zoneIds.get(name);
      if (found === undefined || host === undefined) {
        this.unknownHosts += 1;
        return host === undefined
          ? this.reject(position, 'no_host', 'it names no host to route it by (server.address, url.full or a Host header)')
          : this.reject(position, 'unknown_host', `no zone serves the host ${JSON.stringify(host)}`);
      }
      zoneId = found;
      const routed = (this.routed[zoneId] ??= []);
      if (routed.length < namedRejections) routed.push({ record: position, host });
    }
    if (mapped.kind === 'event') checked = this.parse.check(mapped.event, strings);
    if (checked === undefined) return;
    if (!checked.ok) return this.reject(position, 'invalid_event', checked.error);
    this.sink.add(zoneId, checked.value);
  }

  private reject(position: number, code: OtlpRejectCode, reason: string): void {
    this.rejected += 1;
    this.byCode[code] = (this.byCode[code] ?? 0) + 1;
    if (this.first.length < namedRejections) this.first.push({ record: position, code, reason });
  }

  account(readBy: OtlpAccount['readBy']): OtlpAccount {
    return { readBy, total: this.total, rejections: { count: this.rejected, byCode: this.byCode, first: this.first }, unknownHosts: this.unknownHosts, routed: this.routed };
  }
}

/** Decodes a request with the generated decoder (protobuf) or the JSON mapping, and takes every record; the error is why it does not decode. */
function takeDecoded(encoding: OtlpEncoding, bytes: Buffer, taker: RecordTaker): Result<void, string> {
  let decoded: Result<readonly OtlpLogRecord[], string>;
  if (encoding === 'protobuf') decoded = decodeOtlpProtobuf(bytes);
  else {
    if (!isUtf8(bytes)) return err('The body is not valid UTF-8');
    decoded = decodeOtlpJson(bytes.toString('utf8'));
  }
  if (!decoded.ok) return decoded;
  decoded.value.forEach((record, position) => taker.take(mappedRecordOf(record), position));
  return ok(undefined);
}

export function otlpDecoder(): EventDecoder {
  return {
    name: otlpDecoderName,
    decode(bytes, options, sink, parse) {
      // Built by ingest-otlp-logs.ts.
      const { encoding, route, generatedOnly } = options as OtlpDecoderOptions;
      const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const taker = new RecordTaker(sink, parse, route);
      if (encoding === 'protobuf' && generatedOnly !== true) {
        const read = readOtlpProtobuf(buffer, (record, position) => taker.take(record, position, 'utf8'));
        if (read.kind === 'read') return ok(taker.account('onePass'));
        taker.reset();
      }
      const taken = takeDecoded(encoding, buffer, taker);
      if (!taken.ok) return err({ kind: 'otlpUndecodable', message: taken.error });
      return ok(taker.account(encoding === 'json' ? 'json' : 'generated'));
    },
  };
}
