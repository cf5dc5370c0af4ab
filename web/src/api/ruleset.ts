/** The custom-field lists of a `log_custom_field` rule, each `[{name}]`. */
export interface CustomFieldParameters {
  readonly request_fields?: readonly { readonly name: string }[];
  readonly response_fields?: readonly { readonly name: string }[];
  readonly cookie_fields?: readonly { readonly name: string }[];
}

/** A rule of the zone's `http_log_custom_fields` ruleset, as the API shows it. */
export interface Rule {
  readonly id?: string;
  readonly ref?: string;
  readonly version?: string;
  readonly action: string;
  readonly expression: string;
  readonly description?: string;
  readonly enabled?: boolean;
  readonly action_parameters: CustomFieldParameters;
}

/** The zone's entry-point ruleset of phase `http_log_custom_fields`. */
export interface Ruleset {
  readonly id: string;
  readonly version: string;
  readonly rules: readonly Rule[];
}
