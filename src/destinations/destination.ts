/**
 * The destination contract. A destination delivers gzip batches and classifies every failure exactly once,
 * here at the edge: `retry` (transient: network, timeouts, 408, 429, 5xx, a full disk), optionally after a
 * delay the destination asked for, or `permanent` (configuration: credentials, permissions, a missing
 * bucket, a refused address), with a reason written for the job's `error_message`. The delivery loop only
 * reads the outcome. test/destinations/destination-contract.test.ts is the contract every kind passes.
 */

/** What happened to one send (or validation): delivered, worth retrying, or not worth retrying as configured. */
export type SendOutcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly reason: string; readonly afterMs?: number }
  | { readonly kind: 'permanent'; readonly reason: string };

/** The failing half of `SendOutcome`. */
export type FailedOutcome = Exclude<SendOutcome, { readonly kind: 'delivered' }>;

/** One gzip batch, ready to deliver. */
export interface OutgoingBatch {
  readonly jobId: number;
  /** Where object stores put it, relative to the export root or bucket (see `objectKey`). */
  readonly objectKey: string;
  /** The gzip bytes; object stores store them as a `.log.gz` object, HTTP posts them with `Content-Encoding: gzip`. */
  readonly body: Uint8Array;
  readonly contentType: 'application/x-ndjson' | 'text/csv';
  readonly records: number;
}

/** A built destination: the hot path calls `send`; the API calls `validate` and `writeChallenge`. */
export interface Destination {
  /**
   * Delivers one batch; never throws. Object stores overwrite an object of the same key. When `signal`
   * aborts (the job changed or the node stops), a send still under way gives up at once with a `retry`
   * outcome; the batch may or may not have arrived, which is why a re-send uses the same name.
   */
  send(batch: OutgoingBatch, signal?: AbortSignal): Promise<SendOutcome>;
  /**
   * Writes the ownership challenge file into the destination's fixed directory; the returned `filename`
   * is relative to the export root or the bucket. Object stores only; throws `DestinationError` on failure.
   */
  writeChallenge(fileName: string, content: string): Promise<{ readonly filename: string }>;
  /** Proves the destination accepts writes: object stores write and remove a probe, HTTP posts a test body. */
  validate(): Promise<SendOutcome>;
  /** Releases connections and handles. */
  close(): Promise<void>;
}

/** A classified failure thrown where the contract returns a value rather than an outcome (`writeChallenge`). */
export class DestinationError extends Error {
  readonly outcome: FailedOutcome;

  constructor(outcome: FailedOutcome) {
    super(outcome.reason);
    this.name = 'DestinationError';
    this.outcome = outcome;
  }
}

/** A delivered outcome (one shared value; outcomes are immutable). */
export const delivered: SendOutcome = Object.freeze({ kind: 'delivered' });

/** A retry outcome, with `afterMs` only when the destination asked for a delay. */
export function retry(reason: string, afterMs?: number): FailedOutcome {
  return afterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, afterMs };
}

/** A permanent outcome. */
export function permanent(reason: string): FailedOutcome {
  return { kind: 'permanent', reason };
}

/** The gzip test body validation posts to HTTP destinations: `{"content":"tests"}`. */
export const validationContent = '{"content":"tests"}';
