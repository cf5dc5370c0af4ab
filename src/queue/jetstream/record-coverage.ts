/**
 * Which records of one chunk a consumer object has committed. A JetStream message can only be acknowledged
 * whole, so a chunk is acknowledged once its records are all covered; until then the covered ranges are
 * kept here, in memory (they are not shared with other nodes).
 */

/** Disjoint, sorted, non-adjacent ranges [from, to) of committed records of one chunk. */
export class RecordCoverage {
  #ranges: (readonly [number, number])[] = [];

  /** Whether any record in [from, to) is already covered. */
  overlaps(from: number, to: number): boolean {
    return this.#ranges.some(([a, b]) => a < to && from < b);
  }

  /** Covers records [from, to); overlapping or adjacent ranges merge. */
  add(from: number, to: number): void {
    if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && 0 <= from && from < to)) throw new Error(`[${from}, ${to}) is not a range of records`);
    let start = from;
    let end = to;
    const kept: (readonly [number, number])[] = [];
    for (const [a, b] of this.#ranges) {
      if (b < start || end < a) {
        kept.push([a, b]);
      } else {
        start = Math.min(start, a);
        end = Math.max(end, b);
      }
    }
    kept.push([start, end]);
    kept.sort((x, y) => x[0] - y[0]);
    this.#ranges = kept;
  }

  /** How many records from the start are covered without a gap: where handing the chunk out again starts. */
  prefix(): number {
    const first = this.#ranges[0];
    return first !== undefined && first[0] === 0 ? first[1] : 0;
  }

  /** Whether every record of a chunk of `count` records is covered. */
  isComplete(count: number): boolean {
    return this.prefix() >= count;
  }
}
