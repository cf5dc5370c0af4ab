import type { JobCounters as Counters } from '../api/job-stats.ts';

type Figure = Exclude<keyof Counters, 'dropped'>;

const rows: readonly { readonly key: Figure; readonly label: string }[] = [
  { key: 'received', label: 'Received' },
  { key: 'pending', label: 'Pending' },
  { key: 'filtered_out', label: 'Filtered out' },
  { key: 'sampled_out', label: 'Sampled out' },
  { key: 'delivered_records', label: 'Delivered records' },
  { key: 'delivered_bytes', label: 'Delivered bytes (gzip)' },
  { key: 'batches', label: 'Batches' },
  { key: 'retries', label: 'Retries' },
  { key: 'failures', label: 'Failures' },
];

const number = new Intl.NumberFormat();

/**
 * A job's counters; "—" for each while the server reports none (the data plane is not running it). A
 * figure an older server does not report (Pending) is left out.
 */
export function JobCounters(props: { readonly counters: Counters | undefined }) {
  const { counters } = props;
  const dropped = counters === undefined ? [] : Object.entries(counters.dropped).filter(([, n]) => n > 0);
  const droppedTotal = dropped.reduce((sum, [, n]) => sum + n, 0);
  return (
    <dl class="counters">
      {rows.map((row) => {
        const value = counters?.[row.key];
        if (counters !== undefined && value === undefined) return null;
        return (
          <div key={row.key}>
            <dt>{row.label}</dt>
            <dd>{value === undefined ? '—' : number.format(value)}</dd>
          </div>
        );
      })}
      <div>
        <dt>Dropped</dt>
        <dd>
          {counters === undefined ? '—' : number.format(droppedTotal)}
          {dropped.length > 0 && <span class="muted"> ({dropped.map(([reason, n]) => `${reason}: ${number.format(n)}`).join(', ')})</span>}
        </dd>
      </div>
    </dl>
  );
}
