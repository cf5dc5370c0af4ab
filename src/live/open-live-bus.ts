import type { QueueConfig } from '../config/config.ts';
import { EmbeddedLiveBus } from './embedded-live-bus.ts';
import type { LiveBus } from './live-bus.ts';
import { liveSubjectPrefix, NatsLiveBus } from './nats-live-bus.ts';

/** The live bus that goes with the queue: in the process when embedded, NATS core subjects when scaled out. */
export function openLiveBus(queue: QueueConfig, nodeId: string, onError: (error: unknown) => void): LiveBus {
  switch (queue.kind) {
    case 'embedded':
      return new EmbeddedLiveBus();
    case 'nats':
      return new NatsLiveBus({ servers: queue.servers, prefix: liveSubjectPrefix(queue.stream), name: nodeId, onError });
  }
}
