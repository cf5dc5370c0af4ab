/** A zone (domain) as `GET /zones` lists it. */
export interface Zone {
  readonly id: string;
  readonly name: string;
  readonly status: string;
}
