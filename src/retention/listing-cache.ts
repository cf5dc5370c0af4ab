/**
 * Listings of a segment directory kept for a while, by prefix. A Log Explorer query reads the zone's whole
 * retention, so it lists every hour partition it holds (a directory read each, ~170 for a week), and the
 * zone's next query would list them all again. The store that keeps this drops what a put or delete of its
 * own changes at once (`changed`); a change made past it (by hand) is seen within `maxAgeMs`. A listing
 * under way while something changed is answered but not kept, so it cannot hide the change.
 */

/** Listings kept at most; the oldest go first. */
const maxListings = 4096;

export class ListingCache<T> {
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private readonly listings = new Map<string, { readonly value: T; readonly atMs: number }>();
  /** Counts changes, so a listing can tell whether one happened while it ran. */
  private changes = 0;

  constructor(maxAgeMs: number, now: () => number = Date.now) {
    this.maxAgeMs = maxAgeMs;
    this.now = now;
  }

  /** The listing of `prefix`: the one kept, while it is young enough, or a new one from `list`. */
  async get(prefix: string, list: () => Promise<T>): Promise<T> {
    const kept = this.listings.get(prefix);
    const now = this.now();
    if (kept !== undefined && now - kept.atMs < this.maxAgeMs) return kept.value;
    const changes = this.changes;
    const value = await list();
    if (changes === this.changes) {
      this.listings.delete(prefix);
      this.listings.set(prefix, { value, atMs: now });
      if (this.listings.size > maxListings) this.listings.delete(this.listings.keys().next().value as string);
    }
    return value;
  }

  /** Forgets every listing that the key or prefix `path` is under or holds. */
  changed(path: string): void {
    this.changes += 1;
    for (const prefix of [...this.listings.keys()]) if (path.startsWith(prefix) || prefix.startsWith(path)) this.listings.delete(prefix);
  }
}
