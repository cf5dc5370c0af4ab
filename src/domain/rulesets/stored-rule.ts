/** A rule as stored in a ruleset version: what the API answers and what ingest compiles into a capture plan. */
export interface StoredRule {
  readonly id: string;
  readonly version: number;
  readonly ref: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly action: string;
  readonly expression: string;
  readonly action_parameters: Readonly<Record<string, unknown>>;
  readonly last_updated: string;
}
