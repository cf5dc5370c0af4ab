/**
 * The example queries Log Explorer offers to load, each over the last hour or day so it answers quickly
 * on a busy zone, and each naming its columns in lower case as every query the dashboard writes does.
 */

/** An example: what it answers, and its SQL. */
export interface ExplorerExample {
  readonly title: string;
  readonly sql: string;
}

export const explorerExamples: readonly ExplorerExample[] = [
  {
    title: 'The latest 100 requests',
    sql: `SELECT EdgeStartTimestamp AS started_at,
  ClientRequestMethod AS method,
  ClientRequestHost AS host,
  ClientRequestPath AS path,
  EdgeResponseStatus AS status,
  EdgeResponseBytes AS bytes
FROM http_requests
ORDER BY EdgeStartTimestamp DESC
LIMIT 100`,
  },
  {
    title: 'Requests per minute by status class, last hour',
    sql: `SELECT date_trunc('minute', EdgeStartTimestamp) AS minute,
  CAST(EdgeResponseStatus // 100 AS VARCHAR) || 'xx' AS status_class,
  count(*) AS requests
FROM http_requests
WHERE EdgeStartTimestamp >= now() - INTERVAL '1' HOUR
GROUP BY minute, status_class
ORDER BY minute, status_class`,
  },
  {
    title: 'Paths answering 5xx most often, last 24 hours',
    sql: `SELECT ClientRequestPath AS path,
  count(*) AS errors
FROM http_requests
WHERE EdgeResponseStatus >= 500
  AND EdgeStartTimestamp >= now() - INTERVAL '24' HOUR
GROUP BY path
ORDER BY errors DESC
LIMIT 20`,
  },
  {
    title: 'Bytes sent per hour, last 24 hours',
    sql: `SELECT date_trunc('hour', EdgeStartTimestamp) AS hour,
  count(*) AS requests,
  sum(EdgeResponseBytes) AS bytes
FROM http_requests
WHERE EdgeStartTimestamp >= now() - INTERVAL '24' HOUR
GROUP BY hour
ORDER BY hour`,
  },
  {
    title: 'Busiest client IPs, last hour',
    sql: `SELECT ClientIP AS client_ip,
  ClientCountry AS country,
  count(*) AS requests
FROM http_requests
WHERE EdgeStartTimestamp >= now() - INTERVAL '1' HOUR
GROUP BY client_ip, country
ORDER BY requests DESC
LIMIT 20`,
  },
];
