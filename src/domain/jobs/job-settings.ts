/**
 * The fields a client sets on a log export job, as stored: `filter`, `outputOptions` and `logpullOptions`
 * are kept exactly as sent (JSON text), and defaults apply only when the job runs.
 */
export interface JobSettings {
  readonly dataset: string;
  readonly kind: string;
  readonly enabled: boolean;
  readonly name: string | null;
  readonly destinationConf: string;
  readonly filter: string | null;
  /** The `output_options` object as JSON text, exactly as the client sent it. */
  readonly outputOptions: string | null;
  readonly logpullOptions: string | null;
  readonly frequency: string | null;
  readonly maxUploadBytes: number | null;
  readonly maxUploadRecords: number | null;
  readonly maxUploadIntervalSeconds: number | null;
}
