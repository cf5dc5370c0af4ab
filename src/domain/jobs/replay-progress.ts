/**
 * How a job's replay over a past window stands, as `GET …/jobs/{id}/replay` answers it (docs/retention.md):
 * the shape the API writes and the dashboard reads.
 */
export interface ReplayProgress {
  readonly job_id: number;
  /** The window, RFC 3339: start inclusive, end exclusive. */
  readonly start: string;
  readonly end: string;
  readonly status: 'running' | 'done' | 'error';
  /** Retained events of the window read so far. */
  readonly events_read: number;
  /** Events the job's filter and sampling kept, written into objects. */
  readonly exported: number;
  readonly objects_written: number;
  readonly error: string | null;
  readonly started_at: string;
  readonly finished_at: string | null;
}
