/** Small `http_requests` events for the retention tests: distinct RayIDs, a status and a method to filter on. */
export function retentionEvent(i: number, tag = 'a'): Record<string, unknown> {
  return {
    RayID: `${tag}${i.toString(16).padStart(7, '0')}`,
    EdgeStartTimestamp: (1_790_000_000_000_000_000n + BigInt(i) * 1_000_000n).toString(),
    EdgeEndTimestamp: (1_790_000_000_012_000_000n + BigInt(i) * 1_000_000n).toString(),
    ClientIP: `192.0.2.${i % 250}`,
    ClientRequestHost: 'www.example.com',
    ClientRequestMethod: i % 3 === 0 ? 'POST' : 'GET',
    ClientRequestURI: `/items/${i}?q=\${jndi}`,
    EdgeResponseBytes: 100 + i,
    EdgeResponseStatus: i % 5 === 0 ? 500 : 200,
    BotDetectionIDs: [i, i + 1],
    RawRequestHeaders: [['Host', 'www.example.com'], ['User-Agent', `agent-${i}`]],
  };
}

/** NDJSON of events [from, to). */
export function retentionBody(from: number, to: number, tag = 'a'): string {
  const lines: string[] = [];
  for (let i = from; i < to; i++) lines.push(JSON.stringify(retentionEvent(i, tag)));
  return lines.join('\n') + '\n';
}
