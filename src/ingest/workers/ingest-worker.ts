/** A worker thread that runs ingest tasks (see ingest-task.ts) for the main thread. */
import { parentPort } from 'node:worker_threads';
import { PlanCache, runIngestTask, type IngestTask } from '../ingest-task.ts';

const cache = new PlanCache();

parentPort?.on('message', (message: { id: number; task: IngestTask }) => {
  let reply: unknown;
  const transfer: ArrayBuffer[] = [];
  try {
    const result = runIngestTask(message.task, cache);
    if (result.ok) {
      for (const chunk of result.chunks) {
        const buffer = chunk.payload.buffer as ArrayBuffer;
        if (chunk.payload.byteOffset === 0 && chunk.payload.byteLength === buffer.byteLength) transfer.push(buffer);
      }
    }
    reply = { id: message.id, result };
  } catch (error) {
    reply = { id: message.id, failure: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply, transfer);
});
