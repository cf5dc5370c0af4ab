import type { QueueConfig } from '../config/config.ts';
import type { Clock } from '../core/clock.ts';
import { openEmbeddedQueue } from './embedded.ts';
import type { EventQueue } from './queue.ts';

/** What opening a queue needs besides its configuration. */
export interface QueueOptions {
  readonly replayWindowMs: number;
  readonly clock: Clock;
  readonly onError: (error: unknown) => void;
}

/** Opens the configured queue: the only switch on the queue kind. */
export async function openQueue(config: QueueConfig, options: QueueOptions): Promise<EventQueue> {
  switch (config.kind) {
    case 'embedded':
      return openEmbeddedQueue({ path: config.path, replayWindowMs: options.replayWindowMs, clock: options.clock, onSweepError: options.onError });
    case 'nats':
      throw new Error('LOGEXPORT_QUEUE_URL=nats://… is not available yet in this build; use the embedded queue');
  }
}
