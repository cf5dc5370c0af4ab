/**
 * The decoders the sources hand ingest (event-decoder.ts): a tailed file's batches and OTLP/HTTP logs
 * requests. Registered in every thread that runs ingest's tasks: the node's main thread and each worker.
 */
import type { EventDecoders } from '../ingest/event-decoders.ts';
import { otlpDecoder } from './otlp/otlp-decoder.ts';
import { tailDecoder } from './tail/tail-task.ts';

export function registerSourceDecoders(decoders: EventDecoders): EventDecoders {
  return decoders.register(tailDecoder()).register(otlpDecoder());
}
