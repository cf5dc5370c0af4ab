import type { DeliveryBucket } from '../api/job-stats.ts';

const minutes = 60;
const width = 360;
const height = 90;
const number = new Intl.NumberFormat();

function minuteOf(at: string): number {
  return Math.floor(Date.parse(at) / 60_000);
}

/**
 * Records delivered per minute over the last hour, as bars. Minutes are placed by their time, so a
 * minute the series leaves out shows as a gap, and the right edge is the current minute. The summary in the label is what a screen reader hears.
 */
export function DeliveryChart(props: { readonly series: readonly DeliveryBucket[] | undefined; readonly jobTitle: string }) {
  const series = (props.series ?? []).filter((b) => !Number.isNaN(Date.parse(b.at)));
  const last = series.length === 0 ? undefined : series[series.length - 1];
  if (props.series === undefined || last === undefined) {
    return (
      <figure class="chart">
        <figcaption>Records delivered per minute</figcaption>
        <p class="muted">{props.series === undefined ? '— (no delivery data reported yet)' : 'Nothing delivered in the last hour.'}</p>
      </figure>
    );
  }
  // The hour ends now (or at the newest minute, should this browser's clock run behind the server's).
  const end = Math.max(minuteOf(last.at), Math.floor(Date.now() / 60_000));
  const peak = Math.max(0, ...series.map((b) => b.delivered_records));
  const scale = Math.max(1, peak);
  const total = series.reduce((sum, b) => sum + b.delivered_records, 0);
  const slot = width / minutes;
  const summary = `Records delivered per minute by ${props.jobTitle} over the last hour: ${number.format(total)} in total, at most ${number.format(peak)} in one minute.`;
  return (
    <figure class="chart">
      <figcaption>Records delivered per minute</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <line x1="0" y1={height} x2={width} y2={height} class="axis" />
        {series.map((bucket) => {
          const index = minutes - 1 - (end - minuteOf(bucket.at));
          if (index < 0 || index >= minutes) return null;
          const h = (bucket.delivered_records / scale) * (height - 4);
          return (
            <rect key={bucket.at} x={index * slot + 0.5} y={height - h} width={slot - 1} height={h} class="bar">
              <title>{`${new Date(bucket.at).toLocaleTimeString()}: ${number.format(bucket.delivered_records)} records`}</title>
            </rect>
          );
        })}
      </svg>
      <div class="chart-axis" aria-hidden="true">
        <span>60 minutes ago</span>
        <span>{new Date(end * 60_000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}</span>
      </div>
      <p class="muted small">
        {number.format(total)} records in the last hour; peak {number.format(peak)} per minute.
      </p>
    </figure>
  );
}
