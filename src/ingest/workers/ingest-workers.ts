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
import { runTailTask, TailDecoders, type TailTask, type TailTaskResult } from '../../sources/tail/tail-task.ts';
import { PlanCache, runIngestTask, type IngestTask, type TaskResult } from '../ingest-task.ts';

interface Pending {
  readonly resolve: (result: TaskResult | TailTaskResult) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  readonly pending: Map<number, Pending>;
}

/**
 * The worker's module. Built (dist/, one bundle beside this code), it is plain JavaScript; run from the
 * TypeScript sources, a small boot module registers tsx in the new thread first.
 */
const fromSources = import.meta.url.endsWith('.ts');
const workerUrl = fromSources ? new URL('./worker-boot.mjs', import.meta.url) : new URL('./ingest-worker.mjs', import.meta.url);
const workerOptions = {
  workerData: fromSources ? { entry: new URL('./ingest-worker.ts', import.meta.url).href } : {},
  // A task's garbage is short-lived: a young generation of 24 MB (V8's default reaches 48 MB) collects it
  // as fast, measured, and keeps each worker ~20 MB smaller under overload.
  resourceLimits: { maxYoungGenerationSizeMb: 24 },
};
/** Tasks sent to a worker and not yet answered at which the main thread takes the next task itself. */
const saturatedPending = 2;

export class IngestWorkers {
  private readonly slots: Slot[] = [];
  private readonly inline = new PlanCache();
  private readonly inlineDecoders = new TailDecoders();
  private nextId = 1;
  private closed = false;

  constructor(size: number) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(workerUrl, workerOptions), pending: new Map() };
    this.attach(slot);
    return slot;
  }

  private attach(slot: Slot): void {
    slot.worker.unref();
    slot.worker.on('message', (message: { id: number; result?: TaskResult; tail?: TailTaskResult; failure?: string }) => {
      const pending = slot.pending.get(message.id);
      if (pending === undefined) return;
      slot.pending.delete(message.id);
      if (message.result !== undefined) pending.resolve(message.result);
      else if (message.tail !== undefined) pending.resolve(message.tail);
      else pending.reject(new Error(message.failure ?? 'the ingest worker failed'));
    });
    const fail = (error: Error) => {
      for (const pending of slot.pending.values()) pending.reject(error);
      slot.pending.clear();
      if (!this.closed) {
        // A worker that died is replaced, so one bad request cannot take ingest down.
        slot.worker = new Worker(workerUrl, workerOptions);
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
    const id = this.nextId++;
    // The body is moved, not copied, when it owns its memory (large request bodies do; small ones may share
    // a pooled buffer, and are copied). An empty body is never moved: it may be a shared empty buffer.
    const body = task.body;
    const transfer = body.byteLength > 0 && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? [body.buffer as ArrayBuffer] : [];
    return new Promise((resolve, reject) => {
      // A body that cannot be sent throws here and fails this task alone; the task is counted as pending
      // only once sent (its answer arrives in a later turn of the event loop).
      slot.worker.postMessage({ id, task }, transfer);
      slot.pending.set(id, { resolve: resolve as (result: TaskResult | TailTaskResult) => void, reject });
    });
  }

  /** Runs a batch of a tailed file on the least busy worker, or inline like `run`. */
  async runTail(task: TailTask): Promise<TailTaskResult> {
    const slot = this.leastBusy();
    if (slot === undefined || slot.pending.size >= saturatedPending) return runTailTask(task, this.inline, this.inlineDecoders);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.worker.postMessage({ id, tail: task });
      slot.pending.set(id, { resolve: resolve as (result: TaskResult | TailTaskResult) => void, reject });
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
