/**
 * The thread that projects a large Logpull's hot segments (hot-projection.ts starts it), so the main thread
 * only writes the answer: it reads the segments open at the descriptors it is given, projects and samples each
 * line as the main thread would (hot-ndjson.ts), and posts the kept lines' bytes (moved, not copied) and the
 * refused lines in order, at most a few messages ahead of what the main thread has taken.
 */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { Dataset, DatasetField } from '../domain/datasets/http-requests.ts';
import { readHotNdjson } from './hot-ndjson.ts';
import type { SegmentFile } from './hot-segment-lines.ts';
import type { HotProjectionJob, HotProjectionMessage } from './hot-projection.ts';
import { LineProjection } from './line-projection.ts';
import { NdjsonAnswer } from './ndjson-answer.ts';

/** Messages posted and not yet taken at which the thread waits. */
const aheadMessages = 4;

const port = parentPort;
const job = (workerData as { job: HotProjectionJob }).job;
let ahead = 0;
let wake: (() => void) | undefined;
port?.on('message', () => {
  ahead -= 1;
  wake?.();
});

async function post(message: HotProjectionMessage, bytes?: Uint8Array): Promise<void> {
  port?.postMessage(message, bytes === undefined ? [] : [bytes.buffer as ArrayBuffer]);
  ahead += 1;
  while (ahead >= aheadMessages) await new Promise<void>((resolve) => (wake = resolve));
}

/** A copy that owns its memory, to be moved to the main thread. */
function owned(bytes: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes);
}

function fileOf(fd: number): SegmentFile {
  return {
    read: (buffer, offset, length, position) =>
      new Promise((resolve, reject) => fs.read(fd, buffer, offset, length, position, (error, bytesRead) => (error === null ? resolve({ bytesRead }) : reject(error)))),
  };
}

async function run(): Promise<void> {
  const fields: DatasetField[] = job.fields.map((f) => ({ ...f, description: '' }));
  const all: DatasetField[] = job.datasetFields.map((f) => ({ ...f, description: '' }));
  const byName = new Map(all.map((f) => [f.name, f] as const));
  const dataset: Dataset = { id: job.datasetId, fields: all, field: (name) => byName.get(name) };
  const projection = new LineProjection(fields, dataset, job.window, job.only, job.sample < 1);
  // Samples only: the main thread counts, since lines DuckDB reads come between these.
  const answer = new NdjsonAnswer({ fields, count: undefined, sample: job.sample, timestamps: 'unixnano', redact: job.redact });
  const readRefused = async function* (lines: readonly Buffer[]): AsyncGenerator<Buffer> {
    // What was kept before these lines goes first.
    yield* answer.take(0);
    const joined = owned(Buffer.concat(lines));
    await post({ kind: 'refused', bytes: joined }, joined);
  };
  // The buffers lines are projected into: each is handed out once and never written again, so it is moved as it is.
  const movable = new WeakSet<ArrayBufferLike>();
  const allocate = (bytes: number): Buffer => {
    const buffer = Buffer.allocUnsafeSlow(bytes);
    movable.add(buffer.buffer);
    return buffer;
  };
  const postLines = async (piece: Buffer): Promise<void> => {
    const bytes = movable.delete(piece.buffer) ? piece : owned(piece);
    await post({ kind: 'lines', bytes }, bytes);
  };
  for (const fd of job.fds) {
    for await (const piece of readHotNdjson(fileOf(fd), projection, answer, readRefused, job.redact, allocate)) await postLines(piece);
    for (const rest of answer.take(0)) await postLines(rest);
  }
  port?.postMessage({ kind: 'end' } satisfies HotProjectionMessage);
}

run().catch((error: unknown) => port?.postMessage({ kind: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies HotProjectionMessage));
