/**
 * A large Logpull's hot segments projected on a thread of their own (hot-projection-thread.ts), so the main
 * thread only writes the answer (counting its lines against `count`) and has DuckDB read the lines the
 * projection refused: projecting is most of the work, and with it off the main thread the node uses a second
 * core (the compacted tier has DuckDB's thread for the same). The thread samples; `count` is applied here,
 * in order, across its lines and DuckDB's. Started per call, for calls with enough hot bytes to pay for a
 * thread (~50 ms to start).
 */
import { Worker } from 'node:worker_threads';
import type { Dataset, DatasetField, FieldType } from '../domain/datasets/http-requests.ts';
import type { RefusedReader } from './hot-ndjson.ts';
import type { MsWindow } from './retained-files.ts';
import type { NdjsonAnswer } from './ndjson-answer.ts';

/** Hot bytes (compressed) of a call from which its segments are projected on a thread. */
export const projectionThreadFromBytes = 16 * 1024 * 1024;

/** Projection threads a node runs at once; a call beyond them projects on the main thread. */
const maxProjectionThreads = 2;
let projectionThreads = 0;

/** Whether a call may have its hot segments projected on a thread now. */
export function projectionThreadFree(): boolean {
  return projectionThreads < maxProjectionThreads;
}

/** What the thread projects: the descriptors of the segments (open, in order) and the output's settings. */
export interface HotProjectionJob {
  readonly fds: readonly number[];
  readonly fields: readonly { readonly name: string; readonly type: FieldType }[];
  readonly datasetId: string;
  readonly datasetFields: readonly { readonly name: string; readonly type: FieldType }[];
  readonly window: MsWindow;
  readonly only: string | undefined;
  readonly sample: number;
  readonly redact: boolean;
}

/** What the thread posts, in order: kept lines, a run of refused lines (each with its newline), the end or a failure. */
export type HotProjectionMessage =
  | { readonly kind: 'lines'; readonly bytes: Uint8Array }
  | { readonly kind: 'refused'; readonly bytes: Uint8Array }
  | { readonly kind: 'end' }
  | { readonly kind: 'failed'; readonly message: string };

/** Run from the TypeScript sources, the thread's entry is loaded through tsx; built, it is its own bundle beside dist/main.mjs. */
function threadStart(): { readonly url: URL; readonly entry: string | undefined } {
  if (import.meta.url.endsWith('.ts')) return { url: new URL('../ingest/workers/worker-boot.mjs', import.meta.url), entry: new URL('./hot-projection-thread.ts', import.meta.url).href };
  return { url: new URL('./hot-projection-thread.mjs', import.meta.url), entry: undefined };
}

const newline = 0x0a;

/** The whole lines of `bytes` (each ending in a newline), as views. */
function linesOf(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(newline, start);
    const stop = end < 0 ? bytes.length : end + 1;
    lines.push(bytes.subarray(start, stop));
    start = stop;
  }
  return lines;
}

/** The first `lines` lines of `bytes`. */
function firstLines(bytes: Buffer, lines: number): Buffer {
  let end = 0;
  for (let n = 0; n < lines; n++) end = bytes.indexOf(newline, end) + 1;
  return bytes.subarray(0, end);
}

/** The answer's pieces from the hot segments open at `fds` (in order), projected on a thread. */
export async function* readHotNdjsonOnThread(
  fds: readonly number[],
  fields: readonly DatasetField[],
  dataset: Dataset,
  window: MsWindow,
  only: string | undefined,
  sample: number,
  redact: boolean,
  answer: NdjsonAnswer,
  readRefused: RefusedReader,
): AsyncGenerator<Buffer> {
  const job: HotProjectionJob = {
    fds,
    fields: fields.map((f) => ({ name: f.name, type: f.type })),
    datasetId: dataset.id,
    datasetFields: dataset.fields.map((f) => ({ name: f.name, type: f.type })),
    window,
    only,
    sample,
    redact,
  };
  const start = threadStart();
  projectionThreads += 1;
  const worker = new Worker(start.url, { workerData: { entry: start.entry, job } });
  const queue: HotProjectionMessage[] = [];
  let wake: (() => void) | undefined;
  const push = (message: HotProjectionMessage): void => {
    queue.push(message);
    wake?.();
  };
  worker.on('message', push);
  worker.on('error', (error) => push({ kind: 'failed', message: error.message }));
  worker.on('exit', (code) => push(code === 0 ? { kind: 'end' } : { kind: 'failed', message: `the projection thread stopped (exit code ${code})` }));
  try {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const message = queue.shift() as HotProjectionMessage;
      if (message.kind === 'end') break;
      if (message.kind === 'failed') throw new Error(message.message);
      const bytes = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength);
      if (message.kind === 'lines') {
        // Lines are counted only against a `count` (a search of every line, ~0.3 µs each).
        if (answer.counts) {
          let lines = 0;
          for (let i = bytes.indexOf(newline); i >= 0; i = bytes.indexOf(newline, i + 1)) lines++;
          const kept = answer.keepsLines(lines);
          answer.add(kept === lines ? bytes : firstLines(bytes, kept));
        } else answer.add(bytes);
        yield* answer.take();
      } else yield* readRefused(linesOf(bytes));
      if (answer.done) break;
      worker.postMessage('taken');
    }
  } finally {
    worker.removeAllListeners();
    await worker.terminate();
    projectionThreads -= 1;
  }
}
