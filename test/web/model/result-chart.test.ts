/** Whether a Log Explorer result is drawn over time, and as which lines. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxChartSeries, resultChart } from '../../../web/src/model/result-chart.ts';
import { resultColumns } from '../../../web/src/model/sql-result.ts';

const chartOf = (rows: Record<string, unknown>[]) => resultChart(resultColumns(rows), rows);

describe('a result’s chart', () => {
  const none: readonly [string, Record<string, unknown>[], RegExp][] = [
    ['no rows', [], /no date-time column/],
    ['no time column', [{ host: 'a', requests: 1 }], /no date-time column/],
    ['a time column only', [{ minute: '2026-11-26T16:00:00Z', host: 'a' }], /no numeric column/],
    ['two text columns', [{ minute: '2026-11-26T16:00:00Z', host: 'a', path: '/', requests: 1 }], /more than one column besides.*host, path/],
    ['too many lines', Array.from({ length: maxChartSeries + 1 }, (_, i) => ({ minute: '2026-11-26T16:00:00Z', host: `h${i}`, requests: 1 })), /13 lines/],
  ];
  for (const [what, rows, reason] of none) {
    it(`draws nothing for ${what}, and says why`, () => {
      const chart = chartOf(rows);
      assert.equal(chart.kind, 'none');
      if (chart.kind === 'none') assert.match(chart.reason, reason);
    });
  }

  it('draws each numeric column as a line over the time column', () => {
    const chart = chartOf([
      { minute: '2026-11-26T16:01:00Z', requests: 2, bytes: 20, note: null },
      { minute: '2026-11-26T16:00:00Z', requests: 1, bytes: 10, note: null },
    ]);
    assert.equal(chart.kind, 'chart');
    if (chart.kind !== 'chart') return;
    assert.equal(chart.timeColumn, 'minute');
    assert.deepEqual(chart.valueColumns, ['requests', 'bytes']);
    assert.equal(chart.categoryColumn, undefined);
    assert.deepEqual(chart.data.series.map((s) => [s.label, s.values]), [
      ['requests', [1, 2]],
      ['bytes', [10, 20]],
    ]);
  });

  it('draws the first numeric column once per value of the one text column', () => {
    const chart = chartOf([
      { minute: '2026-11-26T16:00:00Z', status_class: '2xx', requests: 4, bytes: 1 },
      { minute: '2026-11-26T16:00:00Z', status_class: '5xx', requests: 1, bytes: 1 },
    ]);
    assert.equal(chart.kind, 'chart');
    if (chart.kind !== 'chart') return;
    assert.equal(chart.categoryColumn, 'status_class');
    assert.deepEqual(chart.valueColumns, ['requests']);
    assert.deepEqual(chart.data.series.map((s) => s.label), ['2xx', '5xx']);
  });

  it('takes the first date-time column as the time axis when there are two', () => {
    const chart = chartOf([{ started_at: '2026-11-26T16:00:00Z', ended_at: '2026-11-26T16:00:01Z', bytes: 5 }]);
    assert.equal(chart.kind, 'chart');
    if (chart.kind === 'chart') assert.deepEqual([chart.timeColumn, chart.categoryColumn, chart.valueColumns], ['started_at', undefined, ['bytes']]);
  });
});
