/**
 * What a tailed file has done, kept in its checkpoint (so it survives restarts and `logexport sources` can
 * read it from the data directory of a running or stopped node) and shown on /metrics.
 */

/** The read position and counts of one tailed file. */
export interface TailState {
  /** The identity (`device:inode`) of the file being read. */
  readonly fileId: string;
  /** Bytes of that file read and committed: the next line starts here. */
  readonly offset: number;
  /** Complete lines read (each counted once: accepted, rejected or unknown host). */
  readonly linesRead: number;
  /** Lines checked and routed to a zone, then handed to ingest. */
  readonly linesAccepted: number;
  /** Lines refused: not in the format, failing the checks, or over the size limit. */
  readonly linesRejected: number;
  /** Lines whose host is no zone's. */
  readonly linesUnknownHost: number;
  /** The last problem (a refused line, a file that cannot be read, a queue that failed), with its time. */
  readonly lastError: string | null;
  readonly lastErrorAt: string | null;
}

/** A tail that has read nothing yet. */
export const emptyTailState: TailState = Object.freeze({
  fileId: '',
  offset: 0,
  linesRead: 0,
  linesAccepted: 0,
  linesRejected: 0,
  linesUnknownHost: 0,
  lastError: null,
  lastErrorAt: null,
});

/** The state as kept in a checkpoint. */
export function encodeTailState(state: TailState): string {
  return JSON.stringify(state);
}

/** A checkpoint's state; fields it lacks (or holds in the wrong type) take the empty state's values. */
export function decodeTailState(text: string): TailState {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return emptyTailState;
  }
  if (typeof parsed !== 'object' || parsed === null) return emptyTailState;
  const value = parsed as Record<string, unknown>;
  const count = (key: keyof TailState): number => {
    const n = value[key];
    return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : 0;
  };
  const textOrNull = (key: keyof TailState): string | null => (typeof value[key] === 'string' ? (value[key] as string) : null);
  return {
    fileId: typeof value.fileId === 'string' ? value.fileId : '',
    offset: count('offset'),
    linesRead: count('linesRead'),
    linesAccepted: count('linesAccepted'),
    linesRejected: count('linesRejected'),
    linesUnknownHost: count('linesUnknownHost'),
    lastError: textOrNull('lastError'),
    lastErrorAt: textOrNull('lastErrorAt'),
  };
}

/** A tail's status: its state, the file it follows, and what is known now (size, paused). */
export interface TailStatus extends TailState {
  readonly source: string;
  readonly format: string;
  readonly path: string;
  /** The file's size minus the offset, when the file being read can be measured. */
  readonly bytesBehind: number | null;
  /** Whether the tail waits because the queue is over its limit. */
  readonly paused: boolean;
}
