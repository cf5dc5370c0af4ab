/** The entry of an ingest worker thread (worker-setup.ts starts it): the sources' decoders, then ingest's task loop. */
import { EventDecoders } from './ingest/event-decoders.ts';
import { serveIngestTasks } from './ingest/workers/ingest-worker.ts';
import { registerSourceDecoders } from './sources/source-decoders.ts';

serveIngestTasks(registerSourceDecoders(new EventDecoders()));
