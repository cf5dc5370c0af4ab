/**
 * The baseline of the end-to-end benchmark: a minimal hand-written single-threaded Node chain over the
 * same records — JSON.parse → predicate → pick fields → JSON.stringify → gzip (level 6, 64 KiB writes) —
 * with none of logexport's checks, capture, durability or delivery.
 */
import zlib from 'node:zlib';

export interface BaselineResult {
  readonly records: number;
  readonly kept: number;
  readonly seconds: number;
  readonly recordsPerSecond: number;
  readonly inputMBps: number;
  readonly gzipBytes: number;
}

/** A predicate equivalent to the benchmark job's filter, written by hand. */
export function baselinePredicate(r: Record<string, unknown>): boolean {
  return (r.EdgeResponseStatus as number) < 500 && (r.ClientRequestMethod === 'GET' || r.ClientRequestMethod === 'POST') && r.ClientCountry !== 'zz';
}

/** Runs the chain over `lines` (repeated `rounds` times) and measures it. */
export function runBaseline(lines: readonly string[], fields: readonly string[], rounds: number): BaselineResult {
  let kept = 0;
  let gzipBytes = 0;
  let inputBytes = 0;
  const start = performance.now();
  for (let round = 0; round < rounds; round++) {
    let pending: string[] = [];
    let pendingLength = 0;
    const parts: Buffer[] = [];
    for (const line of lines) {
      inputBytes += line.length + 1;
      const record = JSON.parse(line) as Record<string, unknown>;
      if (!baselinePredicate(record)) continue;
      const picked: Record<string, unknown> = {};
      for (const field of fields) picked[field] = record[field] ?? null;
      const text = JSON.stringify(picked) + '\n';
      pending.push(text);
      pendingLength += text.length;
      kept++;
      if (pendingLength >= 64 * 1024) {
        parts.push(zlib.deflateRawSync(pending.join(''), { level: 6 }));
        pending = [];
        pendingLength = 0;
      }
    }
    if (pending.length > 0) parts.push(zlib.deflateRawSync(pending.join(''), { level: 6 }));
    for (const p of parts) gzipBytes += p.length;
  }
  const seconds = (performance.now() - start) / 1000;
  const records = lines.length * rounds;
  return { records, kept, seconds, recordsPerSecond: records / seconds, inputMBps: inputBytes / 1e6 / seconds, gzipBytes };
}
