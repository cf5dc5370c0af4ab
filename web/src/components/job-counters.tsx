import type { JobCounters as Counters } from '../api/job-stats.ts';

const rows: readonly { readonly key: Exclude<keyof Counters, 'dropped'>; readonly label: string }[] = [
  { key: 'received', label: 'Received' },
  { key: 'filtered_out', label: 'Filtered out' },
  { key: 'sampled_out', label: 'Sampled out' },
  { key: 'delivered_records', label: 'Delivered records' },
  { key: 'delivered_bytes', label: 'Delivered bytes' },
  { key: 'batches', label: 'Batches' },
  { key: 'retries', label: 'Retries' },
  { key: 'failures', label: 'Failures' },
];

const number = new Intl.NumberFormat();

/** A job's counters; "—" for each while the server reports none (the data plane is not running it). */
export function JobCounters(props: { readonly counters: Counters | undefined }) {
  const { counters } = props;
  const dropped = counters === undefined ? [] : Object.entries(counters.dropped).filter(([, n]) => n > 0);
  const droppedTotal = dropped.reduce((sum, [, n]) => sum + n, 0);
  return (
    <dl class="counters">
      {rows.map((row) => (
        <div key={row.key}>
          <dt>{row.label}</dt>
          <dd>{counters === undefined ? '—' : number.format(counters[row.key])}</dd>
        </div>
      ))}
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
