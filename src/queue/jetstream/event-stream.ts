/**
 * The one JetStream stream that holds every zone's and dataset's events, created or brought up to date
 * when a node opens the queue. Several nodes may do this at once: creating a stream that exists with the
 * same settings succeeds, and the settings that may change (age limit, duplicate window, replicas) are
 * updated in place.
 */
import { JetStreamApiError, RetentionPolicy, StorageType, DiscardPolicy, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';

/** The settings of the event stream. */
export interface EventStreamSettings {
  readonly name: string;
  /** Every subject of the stream starts with this prefix (`<prefix>.>`). */
  readonly subjectPrefix: string;
  /** Messages older than this are removed whether or not every consumer acknowledged them. */
  readonly maxAgeMs: number;
  /** How long a message id is remembered for dropping a second publish with the same id. */
  readonly duplicateWindowMs: number;
  /** Copies kept in a NATS cluster (1 on a single server). */
  readonly replicas: number;
}

/** The server's error code for "a stream with this name exists with different settings". */
const streamNameInUse = 10058;

/** Creates the event stream, or updates the settings that may change; throws when it cannot be used as is. */
export async function ensureEventStream(jsm: JetStreamManager, settings: EventStreamSettings): Promise<void> {
  const wanted: Partial<StreamConfig> & { name: string } = {
    name: settings.name,
    subjects: [`${settings.subjectPrefix}.>`],
    // Interest: a message stays while some consumer whose filter matches it has not acknowledged it.
    retention: RetentionPolicy.Interest,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(settings.maxAgeMs),
    duplicate_window: nanos(Math.min(settings.duplicateWindowMs, settings.maxAgeMs)),
    num_replicas: settings.replicas,
  };
  try {
    await jsm.streams.add(wanted);
    return;
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === streamNameInUse)) throw describeFailure(settings.name, error);
  }
  const found = (await jsm.streams.info(settings.name)).config;
  if (found.retention !== RetentionPolicy.Interest) {
    throw new Error(`the JetStream stream '${settings.name}' exists with ${found.retention} retention, and logexport needs interest retention; delete that stream or choose another stream name`);
  }
  if (!found.subjects.includes(`${settings.subjectPrefix}.>`)) {
    throw new Error(`the JetStream stream '${settings.name}' exists for the subjects ${found.subjects.join(', ')}, not '${settings.subjectPrefix}.>'; every node must use the same stream name and subject prefix`);
  }
  try {
    await jsm.streams.update(settings.name, {
      ...found,
      max_age: wanted.max_age,
      duplicate_window: wanted.duplicate_window,
      num_replicas: wanted.num_replicas,
    });
  } catch (error) {
    throw describeFailure(settings.name, error);
  }
}

function describeFailure(name: string, error: unknown): Error {
  const why = error instanceof Error ? error.message : String(error);
  return new Error(`could not create or update the JetStream stream '${name}': ${why}`, { cause: error });
}

function nanos(ms: number): number {
  return Math.round(ms) * 1_000_000;
}
