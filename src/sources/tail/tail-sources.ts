/**
 * The tailed files of a node (`LOGEXPORT_TAIL`): one FileTail each, resumed from the checkpoints the queue
 * keeps, started after the queue and ingest and stopped before them.
 */
import type { Logger } from '../../core/logger.ts';
import type { EventQueue } from '../../queue/queue.ts';
import type { ZoneDirectory } from '../zone-directory.ts';
import { FileTail, type FileTailOptions } from './file-tail.ts';
import type { TailSink } from './tail-task.ts';
import { tailSourceName, type TailSpec } from './tail-spec.ts';
import { decodeTailState, emptyTailState, type TailStatus } from './tail-status.ts';

/** What the tails of a node need. */
export interface TailSourcesDeps {
  readonly specs: readonly TailSpec[];
  readonly queue: EventQueue;
  readonly sink: TailSink;
  readonly zones: ZoneDirectory;
  readonly maxPendingBytes: number;
  readonly log: Logger;
  readonly options?: Partial<FileTailOptions>;
}

export class TailSources {
  readonly #tails: readonly FileTail[];

  private constructor(tails: readonly FileTail[]) {
    this.#tails = tails;
  }

  /** Reads the checkpoints and starts one tail per file. */
  static async start(deps: TailSourcesDeps): Promise<TailSources> {
    if (deps.specs.length === 0) return new TailSources([]);
    const checkpoints = new Map((await deps.queue.sourceCheckpoints()).map((c) => [c.source, c]));
    const tails = deps.specs.map((spec) => {
      const saved = checkpoints.get(tailSourceName(spec));
      return new FileTail({
        spec,
        sink: deps.sink,
        zones: deps.zones,
        pendingBytes: () => deps.queue.pendingBytes(),
        maxPendingBytes: deps.maxPendingBytes,
        log: deps.log,
        state: saved === undefined ? emptyTailState : decodeTailState(saved.state),
        ...(saved?.unfinished === undefined ? {} : { unfinished: saved.unfinished }),
        ...(deps.options === undefined ? {} : { options: deps.options }),
      });
    });
    for (const tail of tails) tail.start();
    return new TailSources(tails);
  }

  statuses(): TailStatus[] {
    return this.#tails.map((tail) => tail.status());
  }

  async stop(): Promise<void> {
    await Promise.all(this.#tails.map((tail) => tail.stop()));
  }
}
