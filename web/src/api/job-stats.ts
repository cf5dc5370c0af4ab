/** What a job's runners have counted (`GET …/jobs/{id}/stats`). */
export interface JobCounters {
  /** Records read from the queue, those of batches not delivered yet included. */
  readonly received: number;
  readonly filtered_out: number;
  readonly sampled_out: number;
  readonly delivered_records: number;
  /** Compressed bytes: the sizes of the delivered `.log.gz` objects. */
  readonly delivered_bytes: number;
  readonly batches: number;
  readonly retries: number;
  readonly failures: number;
  readonly dropped: Readonly<Record<string, number>>;
  /** Records read into a batch that is not delivered yet (open, or retried); absent from an older server. */
  readonly pending?: number;
}

/** Records delivered in one minute (`at` is the minute, RFC 3339). */
export interface DeliveryBucket {
  readonly at: string;
  readonly delivered_records: number;
}

/** Who disabled a job, and when (from the audit log; null when it no longer says). */
export interface JobDisabledBy {
  readonly at: string | null;
  readonly by: 'user' | 'token' | 'logexport' | null;
  readonly email: string | null;
  readonly reason: string | null;
}

/** What a job's health is read from besides the job itself. */
export interface JobStatus {
  /** Since when an enabled job has not delivered (its first failed attempt since the last delivery). */
  readonly failing_since: string | null;
  /** When logexport disables it unless a delivery succeeds first. */
  readonly disables_at: string | null;
  /** Who disabled a disabled job, and when; null while it is enabled. */
  readonly disabled: JobDisabledBy | null;
}

/** A job's counters, its per-minute delivery series over the last hour (oldest first), and its status. */
export interface JobStats {
  readonly job_id: number;
  readonly counters: JobCounters;
  readonly series: readonly DeliveryBucket[];
  /** Absent from an older server. */
  readonly status?: JobStatus;
}
