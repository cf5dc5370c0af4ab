/**
 * The task loop of an ingest worker thread: runs HTTP ingest tasks (ingest-task.ts) and sources' tasks
 * (source-task.ts, with the decoders the thread's entry registered) for the main thread.
 */
import { parentPort } from 'node:worker_threads';
import type { ChunkInput } from '../../queue/queue.ts';
import type { EventDecoders } from '../event-decoders.ts';
import { PlanCache, runIngestTask, type IngestTask } from '../ingest-task.ts';
import { runSourceTask, type SourceTask } from '../source-task.ts';

/** Moves the chunks' memory to the main thread instead of copying it, where a chunk owns its buffer. */
function movable(chunks: readonly ChunkInput[], transfer: ArrayBuffer[]): void {
  for (const chunk of chunks) {
    const buffer = chunk.payload.buffer as ArrayBuffer;
    if (chunk.payload.byteOffset === 0 && chunk.payload.byteLength === buffer.byteLength) transfer.push(buffer);
  }
}

/** Answers the main thread's tasks until the thread ends. */
export function serveIngestTasks(decoders: EventDecoders): void {
  const cache = new PlanCache();
  parentPort?.on('message', (message: { id: number; task?: IngestTask; source?: SourceTask }) => {
    let reply: unknown;
    const transfer: ArrayBuffer[] = [];
    try {
      if (message.source !== undefined) {
        const result = runSourceTask(message.source, cache, decoders);
        if (result.kind === 'done') for (const zone of result.zones) movable(zone.chunks, transfer);
        if (result.kind === 'needPlans') {
          // The bytes come back for the task to be run again with the plans (moved back, when they were moved here).
          const bytes = message.source.bytes;
          if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.byteLength > 0) transfer.push(bytes.buffer as ArrayBuffer);
          reply = { id: message.id, source: { ...result, bytes } };
        } else {
          reply = { id: message.id, source: result };
        }
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
}
