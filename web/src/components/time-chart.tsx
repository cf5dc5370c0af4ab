import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { PanelUnit } from '../model/analytics-panels.ts';
import { seriesColour, tickText, figureText } from '../model/chart-format.ts';
import { seriesPeaks, seriesTotals, stackSeries, type TimeSeries } from '../model/time-series.ts';

const chartHeight = 220;
// A bucket's bar starts at its time and fills most of its width; bars suit buckets of counts, sparse or not.
const bars = uPlot.paths.bars?.({ size: [0.9, 64], align: 1 });

/** What the legend sums up per series: counts add up over the range, rates do not (their peak is shown). */
function figuresOf(data: TimeSeries, unit: PanelUnit | 'number'): { readonly label: string; readonly text: string }[] {
  return unit === 'percent'
    ? seriesPeaks(data).map((p) => ({ label: p.label, text: `peak ${figureText(p.peak, unit)}` }))
    : seriesTotals(data).map((t) => ({ label: t.label, text: figureText(t.total, unit) }));
}

/**
 * A chart over time drawn by uPlot on a canvas: lines, or bars stacked in order (the first at the bottom)
 * with the legend showing each part's own value at the cursor. Times are UTC, as everywhere in
 * Analytics and Log Explorer. It takes the width of its box and follows it.
 */
export function TimeChart(props: { readonly title: string; readonly data: TimeSeries; readonly unit: PanelUnit | 'number'; readonly stacked: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  const { data, unit, stacked } = props;

  useEffect(() => {
    const element = box.current;
    if (element === null) return;
    const drawn = stacked ? stackSeries(data) : data;
    // uPlot paints series in order: stacked bars go top-down so each lower part paints over the one above.
    const order = data.series.map((_, i) => i);
    if (stacked) order.reverse();
    const options: uPlot.Options = {
      width: Math.max(200, element.clientWidth),
      height: chartHeight,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { y: { range: (_u, min, max) => [Math.min(0, min), Math.max(1, max) * 1.05] } },
      axes: [{}, { size: 60, values: (_u, ticks) => ticks.map((n) => tickText(n, unit)) }],
      legend: { live: true },
      series: [
        { label: 'Time (UTC)' },
        ...order.map((i) => {
          const series = data.series[i];
          const colour = seriesColour(series?.label ?? '', i);
          return {
            label: series?.label ?? '',
            stroke: colour,
            width: stacked ? 0 : 2,
            fill: stacked ? colour : undefined,
            paths: stacked ? bars : undefined,
            spanGaps: false,
            // Lines show their points where there are few (uPlot's default); stacked bars have none.
            points: stacked ? { show: false } : undefined,
            value: (_u: uPlot, _v: number | null, _s: number, idx: number | null) => (idx === null ? '—' : figureText(series?.values[idx] ?? null, unit)),
          };
        }),
      ],
    };
    const aligned: uPlot.AlignedData = [data.times as number[], ...order.map((i) => (drawn.series[i]?.values ?? []) as (number | null)[])];
    const chart = new uPlot(options, aligned, element);
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(200, element.clientWidth), height: chartHeight }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [data, unit, stacked]);

  const figures = figuresOf(data, unit);
  const summary = `${props.title}${stacked ? ', stacked' : ''}, ${data.times.length} points, over the range: ${figures.map((f) => `${f.label} ${f.text}`).join(', ')}.`;
  return (
    <figure class="time-chart">
      <div ref={box} class="time-chart-canvas" role="img" aria-label={summary} />
      <ul class="chart-totals" aria-label={`${props.title}: over the range`}>
        {figures.map((f, i) => (
          <li key={f.label} data-series={f.label}>
            <span class="swatch" style={{ background: seriesColour(f.label, i) }} aria-hidden="true" />
            {f.label}: <strong>{f.text}</strong>
          </li>
        ))}
      </ul>
    </figure>
  );
}
