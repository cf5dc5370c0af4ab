/** A log export job as the API shows it (secrets in `destination_conf` masked). */
export interface Job {
  readonly id: number;
  readonly dataset: string;
  readonly enabled: boolean;
  readonly name: string | null;
  readonly destination_conf: string;
  readonly filter: string | null;
  readonly output_options: Readonly<Record<string, unknown>> | null;
  readonly logpull_options: string | null;
  readonly last_complete: string | null;
  readonly last_error: string | null;
  readonly error_message: string | null;
}
