/** How a job's replay over a past window stands (`GET …/jobs/{id}/replay`; docs/retention.md). */
export interface ReplayProgress {
  readonly job_id: number;
  readonly start: string;
  readonly end: string;
  readonly status: 'running' | 'done' | 'error';
  readonly events_read: number;
  readonly exported: number;
  readonly objects_written: number;
  readonly error: string | null;
  readonly started_at: string;
  readonly finished_at: string | null;
}
