/**
 * One delivery of a stored JetStream message to this node, and the acknowledgement protocol on it. A
 * delivery's reply subject (`$JS.ACK.…`) names the stream sequence and the time the server stored the
 * message; acknowledging is publishing to that subject, from any connection.
 */
import type { Msg, MsgHdrs, NatsConnection } from '@nats-io/transport-node';

/** The header that carries how many records a chunk holds, set on every append. */
export const recordsHeader = 'Logexport-Records';

/** A message handed to this node by a pull request. */
export interface Delivery {
  /** The stream sequence: the chunk's `seq`. */
  readonly seq: number;
  /** When the server stored the message (ms since the epoch); the same on every delivery and every node. */
  readonly appendedAtMs: number;
  /** 1 on the first delivery, more when the server hands the message out again. */
  readonly deliveryCount: number;
  /** Where acknowledgements for this delivery go. */
  readonly reply: string;
  /** How many records the payload holds. */
  readonly count: number;
  readonly payload: Uint8Array;
}

const encoder = new TextEncoder();
const ack = encoder.encode('+ACK');
const nak = encoder.encode('-NAK');
const working = encoder.encode('+WPI');

/**
 * Reads a delivery from a pulled message, or undefined when it is not one (a status message or a reply
 * subject in an unknown form). Both forms of the reply subject are understood:
 * `$JS.ACK.<stream>.<consumer>.<count>.<seq>.<cseq>.<ns>.<pending>` and the longer one that adds
 * `<domain>.<account hash>` after `ACK` (and a random token at the end).
 */
export function parseDelivery(msg: Pick<Msg, 'reply' | 'data' | 'headers'>): Delivery | undefined {
  const reply = msg.reply;
  if (reply === undefined || !reply.startsWith('$JS.ACK.')) return undefined;
  const tokens = reply.split('.');
  const offset = tokens.length === 9 ? 0 : tokens.length >= 11 ? 2 : -1;
  if (offset < 0) return undefined;
  const deliveryCount = Number(tokens[4 + offset]);
  const seq = Number(tokens[5 + offset]);
  const nanos = tokens[7 + offset] ?? '';
  if (!Number.isSafeInteger(seq) || seq < 1 || !Number.isSafeInteger(deliveryCount) || !/^\d+$/.test(nanos)) return undefined;
  return { seq, appendedAtMs: Number(BigInt(nanos) / 1_000_000n), deliveryCount, reply, count: recordCountOf(msg.headers, msg.data), payload: msg.data };
}

/** The records of a stored chunk: from its header, or (for a message published without it) its lines. */
export function recordCountOf(headers: MsgHdrs | undefined, payload: Uint8Array): number {
  const stated = Number(headers?.get(recordsHeader) ?? '');
  if (Number.isSafeInteger(stated) && stated > 0) return stated;
  let lines = 0;
  for (const byte of payload) if (byte === 0x0a) lines += 1;
  return lines;
}

/** Acknowledges a delivery and waits for the server to confirm it (a lost acknowledgement means a duplicate). */
export async function acknowledge(nc: NatsConnection, reply: string, timeoutMs: number): Promise<void> {
  await nc.request(reply, ack, { timeout: timeoutMs });
}

/** Acknowledges a delivery without waiting for the server (when there is no time left to wait). */
export function sendAcknowledgement(nc: NatsConnection, reply: string): void {
  send(nc, reply, ack);
}

/** Restarts the delivery's acknowledgement deadline: this node is still working on it. */
export function keepWorking(nc: NatsConnection, reply: string): void {
  send(nc, reply, working);
}

/** Gives a delivery back: the server hands it out again at once, to whichever node asks first. */
export function giveBack(nc: NatsConnection, reply: string): void {
  send(nc, reply, nak);
}

/**
 * Fire and forget: these run from timers and on close, where there is nobody to tell. On a closed
 * connection nothing is sent, and the server's deadline decides what happens to the delivery.
 */
function send(nc: NatsConnection, reply: string, payload: Uint8Array): void {
  if (nc.isClosed()) return;
  try {
    nc.publish(reply, payload);
  } catch {
    // Closed or draining meanwhile: the same as above.
  }
}

/**
 * Milliseconds since the epoch of an RFC 3339 time with up to nanoseconds, cut (not rounded) to the
 * millisecond, so a chunk read back from the stream has the same append time as when it was delivered.
 */
export function storedAtMs(timestamp: string): number {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(timestamp);
  if (match === null) throw new Error(`'${timestamp}' is not a time the server writes`);
  const [, base, fraction = '', zone] = match;
  return Date.parse(`${base}.${fraction.padEnd(3, '0').slice(0, 3)}${zone}`);
}
