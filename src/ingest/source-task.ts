/**
 * A source's bytes as one task, the way ingest-task.ts runs an HTTP ingest request: decompressed, decoded by
 * the decoder the source registered (event-decoder.ts), each checked event prepared with its zone's plan as
 * soon as it is decoded (capture, jobs, live taps, retained copy), so a task never holds more than one
 * event's object. Plain data in and out, so it runs inline or on a worker thread. A task carries the plans of
 * the zones its events may belong to; an event of a zone it has no plan for makes the task answer which
 * plans it needs, and it is run again with them.
 */
import { createHash } from 'node:crypto';
import type { ErrorDetail, ErrorKind } from '../core/app-error.ts';
import type { ChunkInput } from '../queue/queue.ts';
import type { IngestEvent } from '../domain/datasets/ingest-event.ts';
import type { EventDecoders } from './event-decoders.ts';
import type { EventSink } from './event-decoder.ts';
import { inflateBody } from './inflate-body.ts';
import { EventPreparation } from './ingest-processor.ts';
import type { PlanCache, PlanSource } from './ingest-task.ts';
import type { LiveTapOutput } from './live-tap.ts';

/** One batch of a source to decode and prepare. */
export interface SourceTask {
  /** The registered decoder's name. */
  readonly decoder: string;
  /** The decoder's options (plain data). */
  readonly options: unknown;
  readonly dataset: string;
  readonly bytes: Uint8Array;
  readonly encoding: 'identity' | 'gzip';
  /** Largest body after decompression. */
  readonly limitBytes: number;
  /** Whether the task names its content by a digest, so a request sent again is stored once where the queue can tell. */
  readonly dedupe: boolean;
  /** The plans of the zones the events may belong to, by zone id. */
  readonly plans: Readonly<Record<string, { readonly planKey: string; readonly plan: PlanSource }>>;
  /** When the batch was received (Unix ms, the node's clock): the receive time of the events' retained copy. */
  readonly receivedAtMs?: number;
}

/** What the events of one zone became: how many there were, the chunks to queue, what live sessions kept. */
export interface PreparedZone {
  readonly zoneId: string;
  readonly events: number;
  readonly chunks: readonly ChunkInput[];
  readonly live: readonly LiveTapOutput[];
}

/** What a source task answered. */
export type SourceTaskResult =
  | {
      readonly kind: 'done';
      /** Every zone that got at least one event, in the order they were met. */
      readonly zones: readonly PreparedZone[];
      /** The decoder's account of the batch, for the source. */
      readonly account: unknown;
      /** The digest of the decompressed body, when the task asked for one. */
      readonly dedupeKey?: string;
    }
  /** `bytes`: the task's bytes, when a worker they were moved to hands them back for the task to be run again. */
  | { readonly kind: 'needPlans'; readonly zoneIds: readonly string[]; readonly bytes?: Uint8Array }
  | { readonly kind: 'refused'; readonly error: ErrorKind; readonly details: readonly ErrorDetail[] };

/** Hands each event to its zone's preparation; notes the zones the task has no plan for. */
class ZoneSink implements EventSink {
  readonly byZone = new Map<string, { preparation: EventPreparation; events: number }>();
  readonly missing = new Set<string>();
  private readonly task: SourceTask;
  private readonly cache: PlanCache;

  constructor(task: SourceTask, cache: PlanCache) {
    this.task = task;
    this.cache = cache;
  }

  add(zoneId: string, event: IngestEvent): boolean {
    let zone = this.byZone.get(zoneId);
    if (zone === undefined) {
      const source = this.task.plans[zoneId];
      if (source === undefined) {
        this.missing.add(zoneId);
        return false;
      }
      zone = { preparation: new EventPreparation(this.cache.plan(source.planKey, source.plan, this.task.dataset), undefined, this.task.receivedAtMs), events: 0 };
      this.byZone.set(zoneId, zone);
    }
    zone.events += 1;
    if (!zone.preparation.idle) zone.preparation.add(event);
    return true;
  }

  discard(): void {
    this.byZone.clear();
    this.missing.clear();
  }
}

/** Runs one source task with this thread's plans and decoders. */
export function runSourceTask(task: SourceTask, cache: PlanCache, decoders: EventDecoders): SourceTaskResult {
  const decoder = decoders.find(task.decoder);
  if (decoder === undefined) throw new Error(`no decoder named ${task.decoder} is registered in this thread`);
  const parse = cache.parser(task.dataset);
  if (parse === undefined) return { kind: 'refused', error: 'routeNotFound', details: [{ message: `logexport does not ingest dataset ${task.dataset}` }] };
  const raw = inflateBody(task.bytes, task.encoding, task.limitBytes);
  if (!raw.ok) return { kind: 'refused', error: raw.error.kind, details: raw.error.details };
  const sink = new ZoneSink(task, cache);
  const account = decoder.decode(raw.value, task.options, sink, parse);
  if (!account.ok) return { kind: 'refused', error: account.error.kind, details: [{ message: account.error.message }] };
  if (sink.missing.size > 0) return { kind: 'needPlans', zoneIds: [...sink.missing] };
  const zones: PreparedZone[] = [];
  for (const [zoneId, zone] of sink.byZone) {
    const prepared = zone.preparation.finish();
    zones.push({ zoneId, events: zone.events, chunks: prepared.chunks, live: prepared.live });
  }
  const result = { kind: 'done' as const, zones, account: account.value };
  return task.dedupe ? { ...result, dedupeKey: createHash('sha256').update(raw.value).digest('hex') } : result;
}
