/**
 * How a job's replay over a past window stands, as `GET …/jobs/{id}/replay` answers it (docs/retention.md):
 * the shape the API writes, the store keeps (so any node answers, and a restart resumes it) and the
 * dashboard reads.
 */

/** `queued`: waiting for a free replay slot of its node; `cancelled`: stopped by `DELETE …/replay`. */
export type ReplayStatus = 'queued' | 'running' | 'done' | 'error' | 'cancelled';

export interface ReplayProgress {
  readonly job_id: number;
  /** The window, RFC 3339: start inclusive, end exclusive. */
  readonly start: string;
  readonly end: string;
  readonly status: ReplayStatus;
  /** Retained events of the window read so far. */
  readonly events_read: number;
  /** Events the job's filter and sampling kept, written into objects. */
  readonly exported: number;
  readonly objects_written: number;
  readonly error: string | null;
  /** What a finished replay wants its reader to know (e.g. that nothing was retained in the window, and since when the zone keeps events). */
  readonly message: string | null;
  readonly started_at: string;
  readonly finished_at: string | null;
}

/** Whether a replay still holds its job's one replay slot. */
export function isReplayActive(status: ReplayStatus): boolean {
  return status === 'queued' || status === 'running';
}
