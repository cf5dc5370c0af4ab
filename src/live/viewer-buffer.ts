/**
 * One viewer's bounded buffer: the formatted records waiting to be written to its WebSocket. It holds at
 * most `capacity` records; what does not fit is dropped and counted, never waited for, so a viewer that
 * reads slowly (or not at all) never slows ingest or delivery. The viewer is told how many records it lost,
 * in order: a `dropped` control message comes right where the records went missing. Records are written to
 * the socket only while its own send buffer is under `highWaterBytes`.
 */

/** What the buffer writes to: a WebSocket, seen through the two things the buffer needs. */
export interface ViewerSink {
  /**
   * Sends one text message; `done` runs once it was handed to the operating system, with an error if it
   * failed. A WebSocket passes on its socket's write callback, which says success with `null`.
   */
  send(text: string, done: (error?: Error | null) => void): void;
  /** Bytes accepted by `send` and not yet handed to the operating system. */
  bufferedAmount(): number;
  /** Runs `sends` so that what it sends reaches the operating system in one write (a socket's cork). */
  batch?(sends: () => void): void;
}

/** What a viewer has been told and what it lost, for its stats message. */
export interface ViewerTotals {
  sent: number;
  dropped: number;
}

interface Entry {
  readonly line: string;
  /** Records dropped right before this one (a control message goes first). */
  readonly droppedBefore: number;
  /** Records dropped since the viewer connected, up to this one (what that control message says). */
  readonly droppedTotal: number;
}

/** The control message that says how many records were lost since the last one. */
export function droppedMessage(dropped: number, total: number): string {
  return `{"control":"dropped","dropped":${dropped},"dropped_total":${total}}`;
}

export class ViewerBuffer {
  private readonly sink: ViewerSink;
  private readonly capacity: number;
  private readonly highWaterBytes: number;
  private entries: Entry[] = [];
  private head = 0;
  /** Dropped since the last record queued (reported before the next one, or when the queue empties). */
  private pendingDropped = 0;
  private scheduled = false;
  private closed = false;
  readonly totals: ViewerTotals = { sent: 0, dropped: 0 };

  constructor(sink: ViewerSink, capacity: number, highWaterBytes = 256 * 1024) {
    this.sink = sink;
    this.capacity = capacity;
    this.highWaterBytes = highWaterBytes;
  }

  /** Records waiting to be written. */
  get length(): number {
    return this.entries.length - this.head;
  }

  /** Queues what one request kept for this viewer; `droppedUpstream` were lost before reaching the buffer. */
  push(lines: readonly string[], droppedUpstream = 0): void {
    if (this.closed) return;
    this.drop(droppedUpstream);
    for (const line of lines) {
      if (this.length >= this.capacity) {
        this.drop(1);
        continue;
      }
      this.entries.push({ line, droppedBefore: this.pendingDropped, droppedTotal: this.totals.dropped });
      this.pendingDropped = 0;
    }
    this.schedule();
  }

  private drop(count: number): void {
    if (count <= 0) return;
    this.pendingDropped += count;
    this.totals.dropped += count;
  }

  /** Sends a control message now if the socket has room; returns whether it did. */
  sendControl(text: string): boolean {
    if (this.closed || this.sink.bufferedAmount() >= this.highWaterBytes) return false;
    this.sink.send(text, this.afterSend);
    return true;
  }

  /** Once the socket took a message, the pump goes on: nothing else wakes it when no more records come. */
  private readonly afterSend = (error?: Error | null): void => {
    if (error === undefined || error === null) this.schedule();
  };

  /** Writes on the next turn of the event loop, so a request's records never wait for a viewer's socket. */
  schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /** Writes waiting records while the socket has room, in one write to the operating system where it can. */
  pump(): void {
    if (this.sink.batch === undefined) this.pumpNow();
    else this.sink.batch(() => this.pumpNow());
  }

  private pumpNow(): void {
    while (!this.closed && this.head < this.entries.length && this.sink.bufferedAmount() < this.highWaterBytes) {
      const entry = this.entries[this.head] as Entry;
      this.head += 1;
      if (entry.droppedBefore > 0) this.sink.send(droppedMessage(entry.droppedBefore, entry.droppedTotal), this.afterSend);
      this.sink.send(entry.line, this.afterSend);
      this.totals.sent += 1;
    }
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
      if (this.pendingDropped > 0 && this.sendControl(droppedMessage(this.pendingDropped, this.totals.dropped))) this.pendingDropped = 0;
    } else if (this.head > 4096) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  /** Forgets everything; later pushes are ignored. */
  close(): void {
    this.closed = true;
    this.entries = [];
    this.head = 0;
  }
}
