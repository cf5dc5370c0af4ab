/**
 * The decoder of a tailed file's batches (registered with ingest, run on its worker threads): split the bytes
 * into lines, decode each in the file's format, route it to a zone by its host, and hand it to ingest, which
 * prepares each zone's events with the zone's plan (custom fields, every job's filter, sampler and format)
 * into queue chunks — what HTTP ingest does with a request, line by line instead of all or nothing.
 */
import type { IngestLineParser } from '../../domain/datasets/ingest-event.ts';
import { ok } from '../../core/result.ts';
import type { EventDecoder } from '../../ingest/event-decoder.ts';
import type { Ingestor, PreparedSource } from '../../ingest/ingest.ts';
import type { PreparedZone } from '../../ingest/source-task.ts';
import type { SourceCheckpoint } from '../../queue/queue.ts';
import { lineDecoderFor } from '../formats/line-decoder.ts';
import type { LineDecoder, SourceFormat } from '../formats/source-format.ts';
import { zoneNameForHost } from '../route-by-host.ts';
import { forEachLine } from './split-lines.ts';

/** One batch to process. */
export interface TailBatch {
  readonly format: SourceFormat;
  /** Whole lines (the last may lack its newline when `final`). */
  readonly bytes: Uint8Array;
  /** File offset of `bytes[0]`. */
  readonly start: number;
  readonly fileId: string;
  /** The file was rotated away and will not grow: a last line without a newline is complete. */
  readonly final: boolean;
  readonly maxLineBytes: number;
  /** Every zone: `[name, id]`. */
  readonly zones: readonly (readonly [string, string])[];
}

/** A line refused, for the log and the status. */
export interface RejectedLine {
  readonly offset: number;
  readonly reason: string;
}

/** What the decoder tells of a batch beside its events. */
export interface TailAccount {
  readonly rejected: number;
  readonly unknownHost: number;
  /** The first few rejected lines (all are counted). */
  readonly problems: readonly RejectedLine[];
  readonly lastProblem: RejectedLine | undefined;
}

/** A batch of a tailed file, prepared: each zone's events, and the decoder's account. */
export interface PreparedTail {
  readonly zones: readonly PreparedZone[];
  readonly account: TailAccount;
}

const reportedProblems = 10;

/** The name ingest runs the decoder by. */
export const tailDecoderName = 'tail';

/**
 * The decoder of tailed files' batches, with the decoders of the formats compiled once per thread. Each event
 * is handed on as soon as it is decoded, so a batch never holds more than one line's parsed event: holding
 * thousands of them at once made the worker's garbage collector copy them over and over (a third of its time).
 */
export function tailDecoder(): EventDecoder {
  const decoders = new Map<SourceFormat, LineDecoder>();
  const decoderOf = (format: SourceFormat, parse: IngestLineParser): LineDecoder => {
    let decoder = decoders.get(format);
    if (decoder === undefined) {
      decoder = lineDecoderFor(format, parse);
      decoders.set(format, decoder);
    }
    return decoder;
  };
  return {
    name: tailDecoderName,
    decode(bytes, options, sink, parse) {
      // Built by prepareTail below, from a TailBatch.
      const batch = options as Omit<TailBatch, 'bytes'>;
      const zoneIds = new Map(batch.zones);
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const decode = decoderOf(batch.format, parse);
      const problems: RejectedLine[] = [];
      let lastProblem: RejectedLine | undefined;
      let rejected = 0;
      let unknownHost = 0;
      forEachLine(buffer, batch.start, batch.maxLineBytes, batch.final, (line) => {
        let reason: string;
        if (line.oversize) reason = `the line is longer than ${batch.maxLineBytes} bytes`;
        else if (line.notUtf8) reason = 'the line is not valid UTF-8';
        else if (line.text.trim() === '') return;
        else {
          const result = decode(line.text, { fileId: batch.fileId, offset: line.offset });
          if (result.ok) {
            const host = result.value.record.ClientRequestHost;
            const name = typeof host === 'string' ? zoneNameForHost(host, (candidate) => zoneIds.has(candidate)) : undefined;
            const zoneId = name === undefined ? undefined : zoneIds.get(name);
            if (zoneId === undefined) unknownHost += 1;
            else sink.add(zoneId, result.value);
            return;
          }
          reason = result.error;
        }
        rejected += 1;
        lastProblem = { offset: line.offset, reason };
        if (problems.length < reportedProblems) problems.push(lastProblem);
      });
      const account: TailAccount = { rejected, unknownHost, problems, lastProblem };
      return ok(account);
    },
  };
}

/** Where a tail hands its batches: ingest (which runs the CPU work on its worker threads). */
export interface TailSink {
  prepareTail(batch: TailBatch): Promise<PreparedTail>;
  appendFromTail(prepared: PreparedTail, checkpoint: SourceCheckpoint, batchId: string): Promise<void>;
  countUnrouted(reason: string, count: number): void;
}

/** The tails' sink of a node: its ingest, running the tail decoder with the plans of every zone the node's sources met. */
export function tailSinkOf(ingestor: Ingestor): TailSink {
  return {
    async prepareTail(batch) {
      const { bytes, ...options } = batch;
      const prepared: PreparedSource = await ingestor.prepareFromSource({ decoder: tailDecoderName, options, bytes, encoding: 'identity', limitBytes: bytes.byteLength, dedupe: false }, { kind: 'routed' }, 'tail');
      return { zones: prepared.zones, account: prepared.account as TailAccount };
    },
    appendFromTail: (prepared, checkpoint, batchId) => ingestor.appendFromSource(prepared, checkpoint, batchId, 'tail'),
    countUnrouted: (reason, count) => ingestor.countDropped('', reason, count, 'tail'),
  };
}
