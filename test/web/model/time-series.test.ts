/** Series over time from SQL rows: per column, per category, on a filled axis, stacked. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fillTimes, seriesByCategory, seriesByColumn, seriesTotals, stackSeries } from '../../../web/src/model/time-series.ts';

const t0 = Date.UTC(2026, 10, 26, 16) / 1000;
const at = (minute: number) => new Date((t0 + minute * 60) * 1000).toISOString().replace('.000', '');

describe('series over time', () => {
  it('makes one series per column, times ascending and rows of one time added up', () => {
    const rows = [
      { minute: at(2), requests: 5, bytes: 50 },
      { MINUTE: at(0), REQUESTS: 1, BYTES: '10' },
      { minute: at(2), requests: 1, bytes: null },
      { minute: 'not a time', requests: 9, bytes: 9 },
    ];
    assert.deepEqual(seriesByColumn(rows, 'minute', ['requests', 'bytes']), {
      times: [t0, t0 + 120],
      series: [
        { label: 'requests', values: [1, 6] },
        { label: 'bytes', values: [10, 50] },
      ],
    });
  });

  it('makes one series per category in natural order, null where a category has no row', () => {
    const rows = [
      { bucket: at(0), status_class: '5xx', requests: 2 },
      { bucket: at(0), status_class: '2xx', requests: 7 },
      { bucket: at(1), status_class: '2xx', requests: 3 },
      { bucket: at(1), status_class: null, requests: 1 },
    ];
    assert.deepEqual(seriesByCategory(rows, 'bucket', 'status_class', 'requests'), {
      times: [t0, t0 + 60],
      series: [
        { label: '(none)', values: [null, 1] },
        { label: '2xx', values: [7, 3] },
        { label: '5xx', values: [2, null] },
      ],
    });
  });

  it('fills every step of the window, counting a missing time as 0 or null as asked', () => {
    const data = { times: [t0 + 60, t0 + 150, t0 + 600], series: [{ label: 'a', values: [4, 1, 9] }] };
    assert.deepEqual(fillTimes(data, t0, t0 + 240, 60), { times: [t0, t0 + 60, t0 + 120, t0 + 180], series: [{ label: 'a', values: [0, 4, 1, 0] }] });
    assert.deepEqual(fillTimes(data, t0, t0 + 240, 60, null).series[0]?.values, [null, 4, 1, null]);
  });

  it('stacks each series on the ones before it, so the last is the total', () => {
    const data = { times: [1, 2], series: [{ label: '2xx', values: [1, null] }, { label: '4xx', values: [2, 3] }, { label: '5xx', values: [null, 1] }] };
    assert.deepEqual(stackSeries(data).series, [
      { label: '2xx', values: [1, 0] },
      { label: '4xx', values: [3, 3] },
      { label: '5xx', values: [3, 4] },
    ]);
  });

  it('totals each series for the legend', () => {
    assert.deepEqual(seriesTotals({ times: [1, 2], series: [{ label: 'a', values: [1, null] }] }), [{ label: 'a', total: 1 }]);
  });
});

describe('a rate series’ peak', () => {
  it('is its largest value, or null when it has none', async () => {
    const { seriesPeaks } = await import('../../../web/src/model/time-series.ts');
    assert.deepEqual(seriesPeaks({ times: [1, 2, 3], series: [{ label: 'a', values: [null, 2.5, 1] }, { label: 'b', values: [null, null, null] }] }), [
      { label: 'a', peak: 2.5 },
      { label: 'b', peak: null },
    ]);
  });
});
