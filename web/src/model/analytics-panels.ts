/**
 * The Analytics tab's panels and the SQL each one runs over the zone's `http_requests`, for a window
 * (analytics-range.ts). Each query names its columns with lower-case aliases, since the public product
 * answers lower-case keys; the same text is what "Open in Log Explorer" loads. Pure, so it is tested
 * without a browser.
 */
import type { TimeWindow } from './analytics-range.ts';
import { cellText } from './live-view.ts';
import { numberValue, rowValue, type SqlRow } from './sql-result.ts';
import { fillTimes, seriesByCategory, seriesByColumn, type TimeSeries } from './time-series.ts';

/** What a chart's values are, for its axis and legend. */
export type PanelUnit = 'requests' | 'bytes' | 'percent';

/** A panel drawn as a chart over time. */
export interface TimeChartPanel {
  readonly kind: 'timeChart';
  readonly id: string;
  readonly title: string;
  readonly sql: string;
  readonly unit: PanelUnit;
  /** Bands stacked by `status_class`, or one line per value column. */
  readonly stacked: boolean;
}

/** A panel listing the most frequent values of one field. */
export interface TopListPanel {
  readonly kind: 'topList';
  readonly id: string;
  readonly title: string;
  readonly sql: string;
  /** The heading of the value column (`Host`, `Path`…) and its alias in the SQL. */
  readonly heading: string;
  readonly alias: string;
}

export type AnalyticsPanel = TimeChartPanel | TopListPanel;

/** How many values a top list shows. */
export const topListLength = 10;

/**
 * A SQL timestamp literal for Unix seconds, its offset written out (`TIMESTAMPTZ '2026-11-26 16:00:00+00'`)
 * so it means the same instant whatever the session's time zone.
 */
export function timestampLiteral(seconds: number): string {
  return `TIMESTAMPTZ '${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')}+00'`;
}

function whereWindow(window: TimeWindow): string {
  return `WHERE EdgeStartTimestamp >= ${timestampLiteral(window.from)}\n  AND EdgeStartTimestamp < ${timestampLiteral(window.to)}`;
}

function bucket(window: TimeWindow): string {
  return `time_bucket(INTERVAL '${window.step} seconds', EdgeStartTimestamp) AS bucket`;
}

const statusClass = `CASE
    WHEN EdgeResponseStatus BETWEEN 200 AND 299 THEN '2xx'
    WHEN EdgeResponseStatus BETWEEN 300 AND 399 THEN '3xx'
    WHEN EdgeResponseStatus BETWEEN 400 AND 499 THEN '4xx'
    WHEN EdgeResponseStatus BETWEEN 500 AND 599 THEN '5xx'
    ELSE 'other'
  END AS status_class`;

function byStatusClass(window: TimeWindow, measure: string): string {
  return `SELECT ${bucket(window)},
  ${statusClass},
  ${measure}
FROM http_requests
${whereWindow(window)}
GROUP BY bucket, status_class
ORDER BY bucket, status_class`;
}

function topList(window: TimeWindow, id: string, title: string, field: string, alias: string, heading: string): TopListPanel {
  const sql = `SELECT ${field} AS ${alias},
  count(*) AS requests
FROM http_requests
${whereWindow(window)}
GROUP BY ${alias}
ORDER BY requests DESC, ${alias}
LIMIT ${topListLength}`;
  return { kind: 'topList', id, title, sql, heading, alias };
}

/** Every panel of the tab, in the order shown. */
export function analyticsPanels(window: TimeWindow): readonly AnalyticsPanel[] {
  return [
    { kind: 'timeChart', id: 'requests', title: 'Requests by status class', unit: 'requests', stacked: true, sql: byStatusClass(window, 'count(*) AS requests') },
    { kind: 'timeChart', id: 'bytes', title: 'Bytes sent by status class', unit: 'bytes', stacked: true, sql: byStatusClass(window, 'coalesce(sum(EdgeResponseBytes), 0) AS bytes') },
    {
      kind: 'timeChart',
      id: 'error-rate',
      title: 'Error rate',
      unit: 'percent',
      stacked: false,
      sql: `SELECT ${bucket(window)},
  round(100.0 * count(*) FILTER (WHERE EdgeResponseStatus BETWEEN 400 AND 499) / count(*), 2) AS client_errors_pct,
  round(100.0 * count(*) FILTER (WHERE EdgeResponseStatus BETWEEN 500 AND 599) / count(*), 2) AS server_errors_pct
FROM http_requests
${whereWindow(window)}
GROUP BY bucket
ORDER BY bucket`,
    },
    topList(window, 'hosts', 'Top hosts', 'ClientRequestHost', 'host', 'Host'),
    topList(window, 'paths', 'Top paths', 'ClientRequestPath', 'path', 'Path'),
    topList(window, 'countries', 'Top countries', 'ClientCountry', 'country', 'Country'),
    topList(window, 'statuses', 'Top status codes', 'EdgeResponseStatus', 'status', 'Status'),
    topList(window, 'user-agents', 'Top user agents', 'ClientRequestUserAgent', 'user_agent', 'User agent'),
    topList(window, 'cache-statuses', 'Top cache statuses', 'CacheCacheStatus', 'cache_status', 'Cache status'),
  ];
}

/**
 * A chart panel's rows as series on the window's full axis: counts per status class (a bucket without
 * requests is 0; the chart stacks them), or the error rates (a bucket without requests has none).
 */
export function panelSeries(panel: TimeChartPanel, rows: readonly SqlRow[], window: TimeWindow): TimeSeries {
  if (panel.stacked) {
    const valueColumn = panel.unit === 'bytes' ? 'bytes' : 'requests';
    return fillTimes(seriesByCategory(rows, 'bucket', 'status_class', valueColumn), window.from, window.to, window.step, 0);
  }
  return fillTimes(seriesByColumn(rows, 'bucket', ['client_errors_pct', 'server_errors_pct']), window.from, window.to, window.step, null);
}

/** One entry of a top list. */
export interface TopEntry {
  readonly value: string;
  readonly requests: number;
}

/** A top-list panel's rows as entries; an empty value shows as `(empty)`. */
export function topEntries(panel: TopListPanel, rows: readonly SqlRow[]): TopEntry[] {
  return rows.map((row) => {
    const text = cellText(rowValue(row, panel.alias));
    return { value: text === '' ? '(empty)' : text, requests: numberValue(rowValue(row, 'requests')) ?? 0 };
  });
}
