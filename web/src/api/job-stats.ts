/** What a job's runner has counted since it started (`GET …/jobs/{id}/stats`). */
export interface JobCounters {
  readonly received: number;
  readonly filtered_out: number;
  readonly sampled_out: number;
  readonly delivered_records: number;
  readonly delivered_bytes: number;
  readonly batches: number;
  readonly retries: number;
  readonly failures: number;
  readonly dropped: Readonly<Record<string, number>>;
}

/** Records delivered in one minute (`at` is the minute, RFC 3339). */
export interface DeliveryBucket {
  readonly at: string;
  readonly delivered_records: number;
}

/** A job's counters and its per-minute delivery series over the last hour, oldest first. */
export interface JobStats {
  readonly job_id: number;
  readonly counters: JobCounters;
  readonly series: readonly DeliveryBucket[];
}
