/**
 * Back-pressure of the ingest endpoints by the bytes that arrive: the bodies being received and processed
 * at once are held under a budget (`LOGEXPORT_INGEST_MAX_BUFFERED`). A body that declares its length
 * (Content-Length) is admitted, or refused, before it is read, for all of that length; a body sent without
 * one (chunked, as the OpenTelemetry exporters send theirs) is admitted holding nothing and counted as it
 * streams in, so a burst of small chunked requests is never refused for bytes it does not send. A request
 * whose bytes take the total over the budget while others hold some is refused then (429), its body no
 * further read; one request alone is always let through, however large, so a body near the body limit can
 * never be refused for ever.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { AppError } from '../core/app-error.ts';

/** The answer to a request refused for the bytes held: 429, retry after a second. */
function busy(): AppError {
  return new AppError('overloaded', 'Ingest is busy: retry after the Retry-After delay', 1);
}

export class IngestAdmission<R extends object> {
  private readonly budget: number;
  private readonly limit: number;
  /** Bytes held now by every admitted request (declared, or received so far). */
  private held = 0;
  private readonly holding = new WeakMap<R, number>();

  /** `budgetBytes`: what all requests may hold at once; `limitBytes`: the body limit (no request holds more). */
  constructor(budgetBytes: number, limitBytes: number) {
    this.budget = budgetBytes;
    this.limit = limitBytes;
  }

  /** Bytes held by the admitted requests now. */
  heldBytes(): number {
    return this.held;
  }

  /**
   * Admits a request before its body is read, holding its declared length (`contentLength`, the header as
   * sent) or nothing when it declares none; throws the 429 to answer with when that does not fit.
   */
  admit(request: R, contentLength: string | undefined): void {
    const declared = contentLength === undefined ? Number.NaN : Number(contentLength);
    const size = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, this.limit) : 0;
    if (this.held > 0 && this.held + size > this.budget) throw busy();
    this.held += size;
    this.holding.set(request, size);
  }

  /**
   * Counts bytes of a body that declared no length as they arrive; the 429 to refuse it with when they take
   * the total over the budget while other requests hold bytes too.
   */
  received(request: R, bytes: number): AppError | undefined {
    const own = (this.holding.get(request) ?? 0) + bytes;
    this.holding.set(request, own);
    this.held += bytes;
    return this.held > this.budget && this.held > own ? busy() : undefined;
  }

  /** A stream that counts a request's body as it passes (for a body that declared no length). */
  counter(request: R): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) => {
        const refused = this.received(request, chunk.length);
        if (refused === undefined) done(null, chunk);
        else done(refused);
      },
    });
  }

  /** Gives back what a request held (its answer was sent, or its client gave up). */
  release(request: R): void {
    this.held -= this.holding.get(request) ?? 0;
    this.holding.delete(request);
  }
}
