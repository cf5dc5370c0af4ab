/**
 * The CPU work of one batch of a tailed file, free of I/O so it runs on an ingest worker thread as well as
 * inline: split the bytes into lines, decode each in the file's format, route it to a zone by its host, and
 * prepare each zone's events with the zone's plan (custom fields, every job's filter, sampler and format)
 * into queue chunks — what HTTP ingest does with a request, line by line instead of all or nothing.
 */
import type { ChunkInput } from '../../queue/queue.ts';
import { httpRequests } from '../../domain/datasets/http-requests.ts';
import { compileIngestParser } from '../../domain/datasets/ingest-event.ts';
import { EventPreparation } from '../../ingest/ingest-processor.ts';
import type { LiveTapOutput } from '../../ingest/live-tap.ts';
import type { PlanCache, PlanSource } from '../../ingest/ingest-task.ts';
import { lineDecoderFor } from '../formats/line-decoder.ts';
import type { LineDecoder, SourceFormat } from '../formats/source-format.ts';
import { zoneNameForHost } from '../route-by-host.ts';
import { forEachLine } from './split-lines.ts';

/** One batch to process. */
export interface TailTask {
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
  /** The plans of the zones the batch may hold, by zone id; a zone met without one is asked for. */
  readonly plans: Readonly<Record<string, { readonly planKey: string; readonly plan: PlanSource }>>;
}

/** A line refused, for the log and the status. */
export interface RejectedLine {
  readonly offset: number;
  readonly reason: string;
}

/** What a batch became; or the zones whose plans the batch needs and the task did not carry. */
export type TailTaskResult =
  | {
      readonly kind: 'done';
      /** Bytes taken by complete lines from `start`. */
      readonly consumed: number;
      readonly appends: readonly { readonly zoneId: string; readonly chunks: readonly ChunkInput[] }[];
      /** What the live sessions watching each zone kept (Instant Logs), handed to them once the batch is durable. */
      readonly live: readonly { readonly zoneId: string; readonly outputs: readonly LiveTapOutput[] }[];
      /** Lines routed to each zone (whether or not a job of it kept them). */
      readonly routed: Readonly<Record<string, number>>;
      readonly rejected: number;
      readonly unknownHost: number;
      /** The first few rejected lines (all are counted). */
      readonly problems: readonly RejectedLine[];
      readonly lastProblem: RejectedLine | undefined;
    }
  | { readonly kind: 'needPlans'; readonly zoneIds: readonly string[] };

const reportedProblems = 10;

/** The decoders of the formats, compiled once per thread. */
export class TailDecoders {
  private readonly decoders = new Map<SourceFormat, LineDecoder>();
  private readonly parse = compileIngestParser(httpRequests);

  of(format: SourceFormat): LineDecoder {
    let decoder = this.decoders.get(format);
    if (decoder === undefined) {
      decoder = lineDecoderFor(format, this.parse);
      this.decoders.set(format, decoder);
    }
    return decoder;
  }
}

/**
 * Runs one batch. Each event is prepared with its zone's plan as soon as it is decoded, so a batch never
 * holds more than one line's parsed event: holding thousands of them at once made the worker's garbage
 * collector copy them over and over (a third of its time).
 */
export function runTailTask(task: TailTask, plans: PlanCache, decoders: TailDecoders): TailTaskResult {
  const zoneIds = new Map(task.zones);
  const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
  const decode = decoders.of(task.format);
  const byZone = new Map<string, EventPreparation>();
  const routed: Record<string, number> = {};
  const missing = new Set<string>();
  const problems: RejectedLine[] = [];
  let lastProblem: RejectedLine | undefined;
  let rejected = 0;
  let unknownHost = 0;
  const consumed = forEachLine(bytes, task.start, task.maxLineBytes, task.final, (line) => {
    let reason: string;
    if (line.oversize) reason = `the line is longer than ${task.maxLineBytes} bytes`;
    else if (line.notUtf8) reason = 'the line is not valid UTF-8';
    else if (line.text.trim() === '') return;
    else {
      const result = decode(line.text, { fileId: task.fileId, offset: line.offset });
      if (result.ok) {
        const host = result.value.record.ClientRequestHost;
        const name = typeof host === 'string' ? zoneNameForHost(host, (candidate) => zoneIds.has(candidate)) : undefined;
        const zoneId = name === undefined ? undefined : zoneIds.get(name);
        if (zoneId === undefined) {
          unknownHost += 1;
          return;
        }
        let preparation = byZone.get(zoneId);
        if (preparation === undefined) {
          const source = task.plans[zoneId];
          // A zone the task has no plan for: the batch is asked again with it, so only note it.
          if (source === undefined) {
            missing.add(zoneId);
            return;
          }
          preparation = new EventPreparation(plans.plan(source.planKey, source.plan, httpRequests.id));
          byZone.set(zoneId, preparation);
        }
        routed[zoneId] = (routed[zoneId] ?? 0) + 1;
        if (!preparation.idle) preparation.add(result.value);
        return;
      }
      reason = result.error;
    }
    rejected += 1;
    lastProblem = { offset: line.offset, reason };
    if (problems.length < reportedProblems) problems.push(lastProblem);
  });
  if (missing.size > 0) return { kind: 'needPlans', zoneIds: [...missing] };
  const appends: { zoneId: string; chunks: readonly ChunkInput[] }[] = [];
  const live: { zoneId: string; outputs: readonly LiveTapOutput[] }[] = [];
  for (const [zoneId, preparation] of byZone) {
    const prepared = preparation.finish();
    if (prepared.chunks.length > 0) appends.push({ zoneId, chunks: prepared.chunks });
    if (prepared.live.length > 0) live.push({ zoneId, outputs: prepared.live });
  }
  return { kind: 'done', consumed, appends, live, routed, rejected, unknownHost, problems, lastProblem };
}
