/**
 * One pull request on a durable JetStream consumer, written against the pull protocol itself
 * (`$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>`, answered on an inbox of its own) rather than the
 * client's `fetch`: a fetch there waits until its batch is full or it expires, and one abandoned early
 * strands the messages the server still sends for it until their acknowledgement deadline. Here the
 * caller can stop waiting at any time while the inbox stays open until the server ends the request, so
 * every message the server hands to this node reaches `receive`.
 */
import { createInbox, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { parseDelivery, type Delivery } from './message-delivery.ts';

/** What to ask the server for. */
export interface PullRequest {
  /** At most this many messages. */
  readonly batch: number;
  /** At most this many bytes (as the server counts them: payload, headers and subjects); none when absent. */
  readonly maxBytes?: number;
  /** How long the server may wait for the first message; 0 answers at once with what there is. */
  readonly waitMs: number;
}

/**
 * How a pull request ended for the caller: `complete` (the batch is full), `empty` (nothing to hand out
 * right now), `timeout` (the wait ran out), `too-big` (the next message is larger than `maxBytes`),
 * `refused` (the server turned the request down, e.g. the consumer is gone), `closed` (the connection
 * closed), `abandoned` (the caller's signal aborted; the request itself goes on until the server ends it).
 */
export type PullEnd = 'complete' | 'empty' | 'timeout' | 'too-big' | 'refused' | 'closed' | 'abandoned';

/** The end of a pull request and how many messages it brought before that. */
export interface PullOutcome {
  readonly end: PullEnd;
  readonly received: number;
  /** The server's words when it refused. */
  readonly description?: string;
}

/** How long past its own wait a request may stay unanswered before the inbox is given up. */
const answerGraceMs = 5_000;

/**
 * Sends one pull request and passes every message it brings to `receive`, including messages that arrive
 * after the caller stopped waiting. Resolves when the request ends or `signal` aborts, whichever is first.
 */
export function pull(nc: NatsConnection, apiSubject: string, request: PullRequest, receive: (delivery: Delivery) => void, signal?: AbortSignal): Promise<PullOutcome> {
  const batch = Math.max(1, Math.floor(request.batch));
  const body: Record<string, number | boolean> = { batch };
  if (request.maxBytes !== undefined) body.max_bytes = Math.max(1, Math.floor(request.maxBytes));
  // The server counts a request's wait in nanoseconds; `no_wait` asks for what there is right now.
  if (request.waitMs > 0) body.expires = Math.max(1, Math.round(request.waitMs)) * 1_000_000;
  else body.no_wait = true;

  return new Promise((resolve) => {
    const inbox = createInbox();
    let received = 0;
    let answered = false;
    let ended = false;
    const settle = (outcome: PullOutcome): void => {
      if (answered) return;
      answered = true;
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = (): void => settle({ end: 'abandoned', received });
    const end = (outcome: PullEnd, description?: string): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      try {
        sub.unsubscribe();
      } catch {
        // Already gone with its connection.
      }
      settle(description === undefined ? { end: outcome, received } : { end: outcome, received, description });
    };
    let sub: Subscription;
    try {
      sub = nc.subscribe(inbox, {
        callback: (error, msg) => {
          if (error !== null) return end('closed', error.message);
          const status = msg.headers?.code ?? 0;
          if (status > 0 && (msg.reply === undefined || msg.reply === '')) {
            const description = msg.headers?.description ?? '';
            switch (status) {
              case 100:
                return; // an idle heartbeat or flow control: the request goes on
              case 404:
                return end('empty');
              case 408:
                return end('timeout');
              case 409:
                return description.toLowerCase().includes('exceeds maxbytes') ? end('too-big', description) : end('refused', description);
              default:
                return end('refused', `${status} ${description}`.trim());
            }
          }
          const delivery = parseDelivery(msg);
          if (delivery === undefined) return;
          received += 1;
          receive(delivery);
          if (received >= batch) end('complete');
        },
      });
    } catch (error) {
      // The connection is closed or draining: no request can be made.
      return settle({ end: 'closed', received, description: error instanceof Error ? error.message : String(error) });
    }
    const timer = setTimeout(() => end('timeout'), Math.max(0, request.waitMs) + answerGraceMs);
    timer.unref();
    void sub.closed.then(() => end('closed'));
    if (signal !== undefined) {
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
    try {
      nc.publish(apiSubject, JSON.stringify(body), { reply: inbox });
    } catch (error) {
      end('closed', error instanceof Error ? error.message : String(error));
    }
  });
}
