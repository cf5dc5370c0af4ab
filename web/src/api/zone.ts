/** A zone (domain) as `GET /zones` lists it. */
export interface Zone {
  readonly id: string;
  readonly name: string;
  /** `pending` until its DNS record is checked (when the operator requires it), then `active`. */
  readonly status: string;
  /** For a pending zone: the TXT record that proves it. */
  readonly verification?: { readonly type: string; readonly name: string; readonly value: string };
}
