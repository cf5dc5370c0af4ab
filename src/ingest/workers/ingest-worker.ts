/** A worker thread that runs ingest tasks (see ingest-task.ts) and tailed files' batches (tail-task.ts) for the main thread. */
import { parentPort } from 'node:worker_threads';
import { runTailTask, TailDecoders, type TailTask } from '../../sources/tail/tail-task.ts';
import type { ChunkInput } from '../../queue/queue.ts';
import { PlanCache, runIngestTask, type IngestTask } from '../ingest-task.ts';

const cache = new PlanCache();
const decoders = new TailDecoders();

/** Moves the chunks' memory to the main thread instead of copying it, where a chunk owns its buffer. */
function movable(chunks: readonly ChunkInput[], transfer: ArrayBuffer[]): void {
  for (const chunk of chunks) {
    const buffer = chunk.payload.buffer as ArrayBuffer;
    if (chunk.payload.byteOffset === 0 && chunk.payload.byteLength === buffer.byteLength) transfer.push(buffer);
  }
}

parentPort?.on('message', (message: { id: number; task?: IngestTask; tail?: TailTask }) => {
  let reply: unknown;
  const transfer: ArrayBuffer[] = [];
  try {
    if (message.tail !== undefined) {
      const result = runTailTask(message.tail, cache, decoders);
      if (result.kind === 'done') for (const append of result.appends) movable(append.chunks, transfer);
      reply = { id: message.id, tail: result };
    } else if (message.task !== undefined) {
      const result = runIngestTask(message.task, cache);
      if (result.ok) movable(result.chunks, transfer);
      reply = { id: message.id, result };
    } else {
      throw new Error('the message holds no task');
    }
  } catch (error) {
    reply = { id: message.id, failure: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply, transfer);
});
