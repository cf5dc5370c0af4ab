import type { QueueConfig } from '../config/config.ts';
import type { Clock } from '../core/clock.ts';
import { openEmbeddedQueue } from './embedded/embedded-queue.ts';
import { openJetStreamQueue } from './jetstream/jetstream-queue.ts';
import type { EventQueue } from './queue.ts';

/** What opening a queue needs besides its configuration. */
export interface QueueOptions {
  readonly replayWindowMs: number;
  /** How long a job may fail before it is disabled: JetStream keeps undelivered events at least that long. */
  readonly disableFailingJobsAfterMs: number;
  /** Names this node to the other nodes sharing a JetStream consumer. */
  readonly nodeId: string;
  readonly clock: Clock;
  readonly onError: (error: unknown) => void;
}

/** Opens the configured queue: the only switch on the queue kind. */
export async function openQueue(config: QueueConfig, options: QueueOptions): Promise<EventQueue> {
  switch (config.kind) {
    case 'embedded':
      return openEmbeddedQueue({ path: config.path, replayWindowMs: options.replayWindowMs, clock: options.clock, onSweepError: options.onError, synchronous: config.sync });
    case 'nats':
      return openJetStreamQueue({
        servers: config.servers,
        streamName: config.stream,
        // Streams' subjects must not overlap: the default stream keeps `logexport.events`, others get their own.
        subjectPrefix: config.stream === 'LOGEXPORT' ? 'logexport.events' : `logexport.stream.${config.stream.toLowerCase()}`,
        nodeId: options.nodeId,
        replayWindowMs: options.replayWindowMs,
        maxAgeMs: Math.max(options.replayWindowMs, options.disableFailingJobsAfterMs),
        onError: options.onError,
        sourceCheckpointsPath: config.sourceCheckpointsPath,
      });
  }
}
