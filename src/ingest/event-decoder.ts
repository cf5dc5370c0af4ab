/**
 * The seam between the sources and ingest: a source (a tailed file's format, OTLP) hands ingest a decoder
 * that turns the source's bytes into checked events, each with the zone it belongs to, and ingest runs it on
 * its worker threads beside the per-event work (capture, jobs' plans, live taps, retained copy). Ingest knows
 * no source format: it only runs the decoders the sources registered (event-decoders.ts) by name.
 */
import type { ErrorKind } from '../core/app-error.ts';
import type { Result } from '../core/result.ts';
import type { IngestEvent, IngestLineParser } from '../domain/datasets/ingest-event.ts';

/** Where a decoder hands its checked events: to the per-event work of each event's zone. */
export interface EventSink {
  /**
   * Prepares a checked event of a zone with the zone's plan. False when the task carries no plan for the zone:
   * the event is not kept, and the task is run again with the plan (the decoder need not do anything).
   */
  add(zoneId: string, event: IngestEvent): boolean;
  /** Forgets every event handed over so far: for a decoder that reads its bytes again another way. */
  discard(): void;
}

/** Why a decoder refused a body whole: the error to answer with, and one sentence. */
export interface DecoderRefusal {
  readonly kind: ErrorKind;
  readonly message: string;
}

/**
 * Bytes of a source → checked events handed to a sink, plus the decoder's own account of what it did (plain
 * data for the source: records rejected and why, bytes consumed, …), or why the body is refused whole.
 * `options` is plain data from the source that registered the decoder (what it needs beside the bytes: the
 * encoding, the zones to route by host, …); only that source builds it, so the decoder may take its shape
 * as known. A decoder must not throw on any bytes: every problem of a record is its rejection.
 */
export interface EventDecoder {
  /** The name a task gives to be run by this decoder. */
  readonly name: string;
  decode(bytes: Uint8Array, options: unknown, sink: EventSink, parse: IngestLineParser): Result<unknown, DecoderRefusal>;
}
