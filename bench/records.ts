/**
 * Deterministic `http_requests` events of about 1 KB with ~30 fields and raw headers, the same on every
 * run, for benchmarks and load tests.
 */

/** A small seeded generator (mulberry32), so every run sends the same events. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const countries = ['us', 'de', 'fr', 'gb', 'jp', 'br', 'in', 'ca', 'au', 'nl'];
const methods = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE', 'HEAD'];
const statuses = [200, 200, 200, 200, 201, 204, 301, 304, 404, 500, 503];
const cacheStatuses = ['hit', 'miss', 'dynamic', 'expired', 'bypass'];
const agents = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'curl/8.5.0',
];

/** One event as an ingest client sends it (an object ready for JSON.stringify). */
export function makeEvent(i: number, random: () => number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const start = 1_790_000_000_000_000_000n + BigInt(i) * 1_000_000n;
  const path = `/api/v1/items/${Math.floor(random() * 100000)}`;
  return {
    RayID: `${(0x7a000000 + i).toString(16)}${Math.floor(random() * 0xffffffff).toString(16).padStart(8, '0')}`,
    EdgeStartTimestamp: start.toString(),
    EdgeEndTimestamp: (start + 12_000_000n).toString(),
    ClientIP: `${1 + Math.floor(random() * 223)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}`,
    ClientCountry: pick(countries),
    ClientASN: 1000 + Math.floor(random() * 60000),
    ClientDeviceType: pick(['desktop', 'mobile', 'tablet']),
    ClientRequestHost: 'www.example.com',
    ClientRequestMethod: pick(methods),
    ClientRequestPath: path,
    ClientRequestURI: `${path}?page=${Math.floor(random() * 10)}`,
    ClientRequestProtocol: 'HTTP/2',
    ClientRequestScheme: 'https',
    ClientRequestBytes: 500 + Math.floor(random() * 2000),
    ClientRequestUserAgent: pick(agents),
    ClientRequestReferer: 'https://www.example.com/',
    ClientSrcPort: 1024 + Math.floor(random() * 60000),
    ClientSSLProtocol: 'TLSv1.3',
    CacheCacheStatus: pick(cacheStatuses),
    CacheResponseBytes: Math.floor(random() * 100000),
    EdgeColoCode: pick(['FRA', 'AMS', 'LHR', 'SJC', 'NRT']),
    EdgeResponseStatus: pick(statuses),
    EdgeResponseBytes: Math.floor(random() * 200000),
    EdgeResponseContentType: 'application/json',
    EdgeTimeToFirstByteMs: Math.floor(random() * 300),
    OriginResponseStatus: pick(statuses),
    OriginIP: '203.0.113.10',
    BotScore: Math.floor(random() * 100),
    WAFAttackScore: Math.floor(random() * 100),
    SecurityAction: pick(['', 'block', 'managed_challenge', 'log']),
    ZoneName: 'example.com',
    RawRequestHeaders: [
      ['Host', 'www.example.com'],
      ['User-Agent', pick(agents)],
      ['X-Forwarded-For', '198.51.100.7'],
      ['Cookie', `session=${Math.floor(random() * 1e9)}; theme=dark`],
    ],
    RawResponseHeaders: [
      ['Server', 'nginx'],
      ['Content-Type', 'application/json'],
    ],
  };
}

/** `count` events as NDJSON lines (timestamps as bare integer nanoseconds, as edge logs carry them). */
export function makeEventLines(count: number, seed = 42, offset = 0): string[] {
  const random = seededRandom(seed);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const event = makeEvent(offset + i, random);
    lines.push(JSON.stringify(event).replace(/"(EdgeStartTimestamp|EdgeEndTimestamp)":"(\d+)"/g, '"$1":$2'));
  }
  return lines;
}
