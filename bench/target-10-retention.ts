/**
 * Target 10: ingest with a zone's retention flag on runs at ≥ 0.9× the rate with it off, in the same run.
 * Both nodes run the benchmark's job; with the flag on, every event is also kept whole for the retention
 * writer, which builds Parquet segments beside ingest. Off is measured before and after on, and averaged,
 * since this machine's speed drifts over minutes.
 */
import type { BenchContext } from './bench-context.ts';

export async function targetRetention(bench: BenchContext): Promise<void> {
  console.log('10. Retention: ingest (1 job, custom fields) with the zone\'s retention flag on vs off');
  const durationS = Math.max(8, bench.seconds / 3);
  const measure = async (retain: boolean): Promise<number> => {
    const node = await bench.setUp([{ name: 'one', filter: bench.filter }], { LOGEXPORT_RETENTION_FLUSH: '10s' });
    try {
      if (retain) {
        const answer = await node.api('POST', `/zones/${node.zoneId}/logs/control/retention/flag`, { flag: true });
        if (answer.status !== 200) throw new Error(`the retention flag could not be set: ${JSON.stringify(answer.body)}`);
      }
      const result = await bench.load(node, durationS);
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
  bench.verdict('10', ratio >= 0.9, `${ratio.toFixed(2)}× the rate with retention off (target ≥ 0.9×)`);
}
