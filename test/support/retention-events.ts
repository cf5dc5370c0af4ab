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

/** NDJSON of events [from, to); `bareTimestamps` writes the timestamps as JSON numbers, as edges send them. */
export function retentionBody(from: number, to: number, tag = 'a', bareTimestamps = false): string {
  const lines: string[] = [];
  for (let i = from; i < to; i++) {
    const line = JSON.stringify(retentionEvent(i, tag));
    lines.push(bareTimestamps ? line.replace(/"(EdgeStartTimestamp|EdgeEndTimestamp)":"(\d+)"/g, '"$1":$2') : line);
  }
  return lines.join('\n') + '\n';
}
