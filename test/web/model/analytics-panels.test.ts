/** The Analytics tab's panels: the SQL each runs for a range, and its rows read back as charts and lists. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyticsPanels, panelSeries, timestampLiteral, topEntries, topListLength, type TimeChartPanel, type TopListPanel } from '../../../web/src/model/analytics-panels.ts';
import { presetWindow } from '../../../web/src/model/analytics-range.ts';

const now = Date.UTC(2026, 10, 26, 16, 30, 20);
const hour = presetWindow('hour', now);
const t = (minute: number) => new Date(hour.from * 1000 + minute * 60_000).toISOString().replace('.000', '');

describe('the Analytics panels', () => {
  const panels = analyticsPanels(hour);
  const chart = (id: string) => panels.find((p) => p.id === id) as TimeChartPanel;
  const list = (id: string) => panels.find((p) => p.id === id) as TopListPanel;

  it('are the traffic charts, the error rate and six top lists', () => {
    assert.deepEqual(
      panels.map((p) => p.id),
      ['requests', 'bytes', 'error-rate', 'hosts', 'paths', 'countries', 'statuses', 'user-agents', 'cache-statuses'],
    );
  });

  it('write instants with their offset', () => {
    assert.equal(timestampLiteral(hour.from), "TIMESTAMPTZ '2026-11-26 15:31:00+00'");
  });

  for (const panel of analyticsPanels(hour)) {
    it(`limit the ${panel.id} query to the range, over http_requests, with lower-case aliases`, () => {
      assert.match(panel.sql, /FROM http_requests\nWHERE EdgeStartTimestamp >= TIMESTAMPTZ '2026-11-26 15:31:00\+00'\n {2}AND EdgeStartTimestamp < TIMESTAMPTZ '2026-11-26 16:31:00\+00'/);
      for (const [, alias] of panel.sql.matchAll(/ AS (\w+)/g)) assert.equal(alias, alias?.toLowerCase());
    });
  }

  const buckets: readonly [string, number, string][] = [
    ['hour', 60, "time_bucket(INTERVAL '60 seconds', EdgeStartTimestamp) AS bucket"],
    ['day', 900, "time_bucket(INTERVAL '900 seconds', EdgeStartTimestamp) AS bucket"],
    ['week', 3600, "time_bucket(INTERVAL '3600 seconds', EdgeStartTimestamp) AS bucket"],
  ];
  for (const [choice, step, expected] of buckets) {
    it(`bucket the ${choice} by ${step} seconds`, () => {
      const sql = analyticsPanels(presetWindow(choice as 'hour', now))[0]?.sql ?? '';
      assert.ok(sql.includes(expected), sql);
    });
  }

  it('count requests per status class on the full axis, a minute without requests counting 0', () => {
    const rows = [
      { bucket: t(0), status_class: '2xx', requests: 5 },
      { bucket: t(0), status_class: '5xx', requests: 1 },
      { BUCKET: t(2), STATUS_CLASS: '2xx', REQUESTS: 2 },
    ];
    const series = panelSeries(chart('requests'), rows, hour);
    assert.equal(series.times.length, 60);
    assert.equal(series.times[0], hour.from);
    assert.deepEqual(
      series.series.map((s) => [s.label, s.values.slice(0, 3)]),
      [
        ['2xx', [5, 0, 2]],
        ['5xx', [1, 0, 0]],
      ],
    );
  });

  it('count bytes from the bytes column', () => {
    const series = panelSeries(chart('bytes'), [{ bucket: t(1), status_class: '3xx', bytes: 1024 }], hour);
    assert.deepEqual(series.series[0]?.values.slice(0, 2), [0, 1024]);
  });

  it('draw error rates as lines with no value where there were no requests', () => {
    const series = panelSeries(chart('error-rate'), [{ bucket: t(1), client_errors_pct: 12.5, server_errors_pct: 0 }], hour);
    assert.deepEqual(
      series.series.map((s) => [s.label, s.values.slice(0, 3)]),
      [
        ['client_errors_pct', [null, 12.5, null]],
        ['server_errors_pct', [null, 0, null]],
      ],
    );
  });

  it(`list at most ${topListLength} values, most requests first, an empty value named`, () => {
    assert.match(list('hosts').sql, /^SELECT ClientRequestHost AS host,\n {2}count\(\*\) AS requests\n/);
    assert.match(list('hosts').sql, /GROUP BY host\nORDER BY requests DESC, host\nLIMIT 10$/);
    assert.deepEqual(topEntries(list('statuses'), [{ status: 503, requests: 7 }, { STATUS: null, REQUESTS: 2 }, { status: '', requests: 1 }]), [
      { value: '503', requests: 7 },
      { value: '(empty)', requests: 2 },
      { value: '(empty)', requests: 1 },
    ]);
  });
});
