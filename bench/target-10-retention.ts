/**
 * Target 10: ingest with a zone's retention flag on runs at ≥ 0.85× the rate with it off, in the same run.
 * Both nodes run the benchmark's job; with the flag on, ingest also keeps every event's retained copy (one
 * zstd frame per chunk), the retention writer appends the frames to hot segments, and the compaction turns
 * them into Parquet under its default budget (a quarter of a core, waiting while ingest is saturated), as
 * soon as each hot segment is written.
 * Off is measured before and after on, and averaged, since this machine's speed drifts over minutes. At the
 * end of the run with the flag on, the compaction's backlog (from /metrics) and how long it took to drain.
 */
import type { BenchContext } from './bench-context.ts';
import { nodeMetric } from './node-under-test.ts';

/**
 * The CPU µs per event of each thread of the node over the load: the main thread (HTTP, the queue, the
 * writer), the two busiest others (the ingest workers), and the rest together (V8's GC helpers, libuv's pool:
 * file system calls and the compaction's DuckDB work).
 */
function threadShares(pid: number, before: Map<number, number>, after: Map<number, number>, events: number): string {
  const used = [...after].map(([tid, cpu]) => ({ tid, us: ((cpu - (before.get(tid) ?? 0)) / events) * 1e6 }));
  const main = used.find((t) => t.tid === pid)?.us ?? 0;
  const others = used.filter((t) => t.tid !== pid).sort((a, b) => b.us - a.us);
  const workers = others.slice(0, 2);
  const rest = others.slice(2).reduce((sum, t) => sum + t.us, 0);
  return `main ${main.toFixed(1)}, busiest two ${workers.map((t) => t.us.toFixed(1)).join(' + ')}, rest ${rest.toFixed(1)} µs`;
}

export async function targetRetention(bench: BenchContext): Promise<void> {
  console.log("10. Retention: ingest (1 job, custom fields) with the zone's retention flag on vs off");
  const durationS = Math.max(8, bench.seconds / 3);
  const measure = async (retain: boolean): Promise<{ readonly rate: number; readonly cpuUs: number; readonly threads: string; readonly requests: string }> => {
    // Compaction as soon as a hot segment is written (not after the default five minutes), under the default budget:
    // it competes with ingest as early as it can, and the drain below measures the budget, not the waiting.
    const node = await bench.setUp([{ name: 'one', filter: bench.filter }], { LOGEXPORT_RETENTION_FLUSH: '10s', LOGEXPORT_RETENTION_COMPACT_AFTER: '0s' });
    try {
      if (retain) {
        const answer = await node.api('POST', `/zones/${node.zoneId}/logs/control/retention/flag`, { flag: true });
        if (answer.status !== 200) throw new Error(`the retention flag could not be set: ${JSON.stringify(answer.body)}`);
      }
      const cpuBefore = node.cpuSeconds();
      const threadsBefore = node.threadCpuSeconds();
      const result = await bench.load(node, durationS);
      // The node's CPU (every thread: HTTP, ingest workers, the writer, the compaction, GC) per event accepted during the load.
      const cpuUs = ((node.cpuSeconds() - cpuBefore) / result.accepted) * 1e6;
      const threads = threadShares(node.child.pid ?? 0, threadsBefore, node.threadCpuSeconds(), result.accepted);
      if (retain) {
        // At the end of the load: what the compaction has not done yet (the writer closes its last hot segment
        // within the flush interval, so that one is counted once it is written); then the time until none is left.
        const loadEnd = performance.now();
        const atEnd = { bytes: await nodeMetric(node, 'logexport_retention_hot_bytes'), segments: await nodeMetric(node, 'logexport_retention_hot_segments') };
        let peak = atEnd;
        const giveUp = Date.now() + 600_000;
        for (;;) {
          const written = await nodeMetric(node, 'logexport_retention_written_events_total');
          const now = { bytes: await nodeMetric(node, 'logexport_retention_hot_bytes'), segments: await nodeMetric(node, 'logexport_retention_hot_segments') };
          if (now.bytes > peak.bytes) peak = now;
          if ((written >= result.accepted && now.segments === 0) || Date.now() > giveUp) break;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        const drainS = (performance.now() - loadEnd) / 1000;
        bench.line('compaction backlog at the end of the load', `${atEnd.segments} hot segments, ${(atEnd.bytes / 1e6).toFixed(1)} MB compressed; at most ${peak.segments} (${(peak.bytes / 1e6).toFixed(1)} MB) once the last was written`);
        bench.line('backlog drained', `${drainS.toFixed(1)} s after the load (${result.accepted} events; default budget, writer flush 10 s)`);
      }
      await node.stop();
      const sorted = [...result.latencies].sort((a, b) => a - b);
      const at = (q: number): string => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(0);
      const requests = `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, ${result.refused} refused, node ${((cpuUs * result.accepted) / 1e4 / result.seconds).toFixed(0)}% of a core`;
      return { rate: result.accepted / result.seconds, cpuUs, threads, requests };
    } finally {
      node.dispose();
    }
  };
  const offBefore = await measure(false);
  const on = await measure(true);
  const offAfter = await measure(false);
  const off = (offBefore.rate + offAfter.rate) / 2;
  bench.line('ingest, retention off (before, after)', `${Math.round(offBefore.rate)}, ${Math.round(offAfter.rate)} events/s; mean ${Math.round(off)}`);
  bench.line('ingest, retention on', `${Math.round(on.rate)} events/s`);
  bench.line('node CPU per event during the load', `off ${offBefore.cpuUs.toFixed(1)}, ${offAfter.cpuUs.toFixed(1)} µs; on ${on.cpuUs.toFixed(1)} µs`);
  bench.line('  by thread, off (before)', offBefore.threads);
  bench.line('  by thread, on', on.threads);
  bench.line('requests: off (before), on', `${offBefore.requests}; ${on.requests}`);
  const ratio = on.rate / off;
  bench.verdict('10', ratio >= 0.85, `${ratio.toFixed(2)}× the rate with retention off (target ≥ 0.85×)`);
}
