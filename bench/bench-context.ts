/** What run.ts hands a target that lives in its own file: the shared records, settings and how to report. */
import type { NodeUnderTest } from './node-under-test.ts';

export interface BenchContext {
  /** Seconds of load per measurement (BENCH_SECONDS). */
  readonly seconds: number;
  /** The benchmark's event lines (about 1.3 KB each). */
  readonly lines: readonly string[];
  /** Prints one labelled figure. */
  line(label: string, value: string): void;
  /** Records and prints whether the target holds. */
  verdict(target: string, holds: boolean, detail: string): void;
  /** Starts a node with the benchmark's custom fields and one job per entry (filter as given). */
  setUp(jobs: { name: string; filter: string }[], extraEnv?: Record<string, string>): Promise<NodeUnderTest>;
  /** Ingests as fast as the node accepts for `durationS` seconds; answers the events accepted and the time taken. */
  load(node: NodeUnderTest, durationS: number): Promise<{ readonly accepted: number; readonly refused: number; readonly seconds: number; readonly latencies: readonly number[] }>;
  /** The 3-condition filter of the benchmark's job. */
  readonly filter: string;
}
