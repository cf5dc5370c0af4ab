/**
 * How a node's ingest workers start: their entry (worker.ts, which registers the sources' decoders in the
 * thread) and the same decoders for the main thread, which runs a task itself when the workers are busy.
 * Run from the TypeScript sources the entry is worker.ts; built, every module is bundled into dist/main.mjs
 * and the entry is the worker's own bundle beside it.
 */
import { EventDecoders } from './ingest/event-decoders.ts';
import type { IngestWorkerSetup } from './ingest/workers/ingest-workers.ts';
import { registerSourceDecoders } from './sources/source-decoders.ts';

export function ingestWorkerSetup(): IngestWorkerSetup {
  const entry = import.meta.url.endsWith('.ts') ? new URL('./worker.ts', import.meta.url) : new URL('./ingest-worker.mjs', import.meta.url);
  return { entry, decoders: registerSourceDecoders(new EventDecoders()) };
}
