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

export async function targetRetention(bench: BenchContext): Promise<void> {
  console.log("10. Retention: ingest (1 job, custom fields) with the zone's retention flag on vs off");
  const durationS = Math.max(8, bench.seconds / 3);
  const measure = async (retain: boolean): Promise<number> => {
    // Compaction as soon as a hot segment is written (not after the default five minutes), under the default budget:
    // it competes with ingest as early as it can, and the drain below measures the budget, not the waiting.
    const node = await bench.setUp([{ name: 'one', filter: bench.filter }], { LOGEXPORT_RETENTION_FLUSH: '10s', LOGEXPORT_RETENTION_COMPACT_AFTER: '0s' });
    try {
      if (retain) {
        const answer = await node.api('POST', `/zones/${node.zoneId}/logs/control/retention/flag`, { flag: true });
        if (answer.status !== 200) throw new Error(`the retention flag could not be set: ${JSON.stringify(answer.body)}`);
      }
      const result = await bench.load(node, durationS);
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
      return result.accepted / result.seconds;
    } finally {
      node.dispose();
    }
  };
  const offBefore = await measure(false);
  const on = await measure(true);
  const offAfter = await measure(false);
  const off = (offBefore + offAfter) / 2;
  bench.line('ingest, retention off (before, after)', `${Math.round(offBefore)}, ${Math.round(offAfter)} events/s; mean ${Math.round(off)}`);
  bench.line('ingest, retention on', `${Math.round(on)} events/s`);
  const ratio = on / off;
  bench.verdict('10', ratio >= 0.85, `${ratio.toFixed(2)}× the rate with retention off (target ≥ 0.85×)`);
}
