/** Where `POST …/ownership` wrote the challenge file, relative to the destination's root. */
export interface OwnershipChallenge {
  readonly filename: string;
  readonly valid: boolean;
  readonly message: string;
}
