/**
 * Runs ingest tasks on worker threads, so parsing, checking, capture and formatting use the machine's cores
 * while the main thread serves HTTP and writes the queue. A request goes to the least busy worker, whatever
 * its size: measured, that answers small requests as fast as processing them on the main thread under light
 * load and faster under heavy load. Only when every worker already has a task waiting behind the one it
 * runs does the main thread process the request itself: under saturation that adds the main thread's spare
 * time (about a fifth more throughput with one worker, no more memory), and under light load it never
 * happens (docs/performance.md has the figures). With no workers, every task runs on the main thread.
 */
import { Worker } from 'node:worker_threads';
import type { EventDecoders } from '../event-decoders.ts';
import { PlanCache, runIngestTask, type IngestTask, type TaskResult } from '../ingest-task.ts';
import { runSourceTask, type SourceTask, type SourceTaskResult } from '../source-task.ts';

interface Pending {
  readonly resolve: (result: TaskResult | SourceTaskResult) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  readonly pending: Map<number, Pending>;
}

/**
 * How a node's worker threads start, and what the main thread runs when it takes a task itself: the entry
 * module of a worker (the node's, which registers the sources' decoders and serves ingest-worker.ts's loop),
 * and the same decoders for this thread.
 */
export interface IngestWorkerSetup {
  readonly entry: URL;
  readonly decoders: EventDecoders;
}

/** Boots a worker on `entry`: plain JavaScript when built (dist/); from the TypeScript sources, a small boot module registers tsx in the new thread first. */
function workerStart(entry: URL): { readonly url: URL; readonly options: ConstructorParameters<typeof Worker>[1] } {
  const fromSources = entry.pathname.endsWith('.ts');
  return {
    url: fromSources ? new URL('./worker-boot.mjs', import.meta.url) : entry,
    options: {
      workerData: fromSources ? { entry: entry.href } : {},
      // A task's garbage is short-lived: a young generation of 24 MB (V8's default reaches 48 MB) collects it
      // as fast, measured, and keeps each worker ~20 MB smaller under overload.
      resourceLimits: { maxYoungGenerationSizeMb: 24 },
    },
  };
}
/**
 * The memory of bytes that can be moved to a worker instead of copied: bytes that own it (large request
 * bodies do; small ones may share a pooled buffer, and are copied). Empty bytes are never moved: they may be
 * a shared empty buffer.
 */
function movable(bytes: Uint8Array): ArrayBuffer[] {
  return bytes.byteLength > 0 && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : [];
}

/** Tasks sent to a worker and not yet answered at which the main thread takes the next task itself. */
const saturatedPending = 2;

export class IngestWorkers {
  private readonly slots: Slot[] = [];
  private readonly inline = new PlanCache();
  private readonly decoders: EventDecoders;
  private readonly start: ReturnType<typeof workerStart>;
  private nextId = 1;
  private closed = false;

  constructor(size: number, setup: IngestWorkerSetup) {
    this.decoders = setup.decoders;
    this.start = workerStart(setup.entry);
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(this.start.url, this.start.options), pending: new Map() };
    this.attach(slot);
    return slot;
  }

  private attach(slot: Slot): void {
    slot.worker.unref();
    slot.worker.on('message', (message: { id: number; result?: TaskResult; source?: SourceTaskResult; failure?: string }) => {
      const pending = slot.pending.get(message.id);
      if (pending === undefined) return;
      slot.pending.delete(message.id);
      if (message.result !== undefined) pending.resolve(message.result);
      else if (message.source !== undefined) pending.resolve(message.source);
      else pending.reject(new Error(message.failure ?? 'the ingest worker failed'));
    });
    const fail = (error: Error) => {
      for (const pending of slot.pending.values()) pending.reject(error);
      slot.pending.clear();
      if (!this.closed) {
        // A worker that died is replaced, so one bad request cannot take ingest down.
        slot.worker = new Worker(this.start.url, this.start.options);
        this.attach(slot);
      }
    };
    slot.worker.on('error', fail);
    slot.worker.on('exit', (code) => {
      if (!this.closed && code !== 0) fail(new Error(`the ingest worker exited with code ${code}`));
    });
  }

  /** Runs a task on the least busy worker, or inline when there are none or all of them are saturated. */
  async run(task: IngestTask): Promise<TaskResult> {
    const slot = this.leastBusy();
    if (slot === undefined || slot.pending.size >= saturatedPending) return runIngestTask(task, this.inline);
    return this.post(slot, { id: this.nextId++, task }, movable(task.body));
  }

  /**
   * Runs a source's task on the least busy worker, or inline like `run`. Bytes that own their memory are
   * moved to the worker like a request's body; a task that needs plans it lacks hands them back with its
   * answer (`bytes`), so it can be run again.
   */
  async runSource(task: SourceTask): Promise<SourceTaskResult> {
    const slot = this.leastBusy();
    if (slot === undefined || slot.pending.size >= saturatedPending) return runSourceTask(task, this.inline, this.decoders);
    return this.post(slot, { id: this.nextId++, source: task }, movable(task.bytes));
  }

  private post<T extends TaskResult | SourceTaskResult>(slot: Slot, message: { readonly id: number; readonly task?: IngestTask; readonly source?: SourceTask }, transfer: ArrayBuffer[]): Promise<T> {
    return new Promise((resolve, reject) => {
      // A body that cannot be sent throws here and fails this task alone; the task is counted as pending
      // only once sent (its answer arrives in a later turn of the event loop).
      slot.worker.postMessage(message, transfer);
      slot.pending.set(message.id, { resolve: resolve as (result: TaskResult | SourceTaskResult) => void, reject });
    });
  }

  private leastBusy(): Slot | undefined {
    let least: Slot | undefined;
    for (const slot of this.slots) if (least === undefined || slot.pending.size < least.pending.size) least = slot;
    return least;
  }

  /** Tasks sent to the workers and not answered yet. */
  pendingOnWorkers(): number {
    let pending = 0;
    for (const slot of this.slots) pending += slot.pending.size;
    return pending;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }
}
