/**
 * How the queue's names map onto NATS names: one subject per zone and dataset under a prefix, one durable
 * consumer per job and stream, one message id per appended chunk. Every name is derived, never stored, so
 * every node computes the same ones.
 */
import { createHash } from 'node:crypto';
import type { StreamKey } from '../queue.ts';

/** A subject token or consumer name part: no dots, wildcards, spaces or path separators. */
const safeToken = /^[A-Za-z0-9_-]+$/;

/** Throws unless `prefix` is one or more safe tokens joined by dots (e.g. `logexport.events`). */
export function assertSubjectPrefix(prefix: string): void {
  if (!prefix.split('.').every((token) => safeToken.test(token))) {
    throw new Error(`'${prefix}' is not a usable NATS subject prefix: use letters, digits, '-' and '_' in dot-separated tokens`);
  }
}

/** The subject a stream's chunks are published on: `<prefix>.<dataset>.<zone id>`. */
export function subjectOf(prefix: string, key: StreamKey): string {
  return `${prefix}.${token(key.dataset, 'dataset')}.${token(key.zoneId, 'zone id')}`;
}

/**
 * The durable consumer of `consumer` on a stream. Every zone and dataset shares one JetStream stream, so
 * the name carries the stream key as well: the same job name on two zones is two consumers.
 */
export function durableNameOf(key: StreamKey, consumer: string): string {
  return `${token(consumer, 'consumer name')}_${token(key.dataset, 'dataset')}_${token(key.zoneId, 'zone id')}`;
}

/**
 * The message id of part `part` of chunk `index` of an append with `dedupeKey`: the server drops a second
 * message with the same id inside its duplicate window. The stream key is hashed in, so one key on two
 * streams stays two appends.
 */
export function messageIdOf(key: StreamKey, dedupeKey: string, index: number, part: number): string {
  const digest = createHash('sha256').update(key.zoneId).update('\0').update(key.dataset).update('\0').update(dedupeKey).digest('hex');
  return `${digest.slice(0, 40)}-${index}${part === 0 ? '' : `.${part}`}`;
}

function token(value: string, what: string): string {
  if (!safeToken.test(value)) throw new Error(`the ${what} '${value}' cannot be part of a NATS name: use letters, digits, '-' and '_'`);
  return value;
}
