/** A small closed-loop HTTP load generator: `connections` keep-alive connections each sending GETs back to back. */
import http from 'node:http';

export interface GetLoadResult {
  readonly requests: number;
  readonly errors: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
}

export async function getLoad(url: string, headers: Readonly<Record<string, string>>, connections: number, durationS: number): Promise<GetLoadResult> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const until = performance.now() + durationS * 1000;
  let requests = 0;
  let errors = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const req = http.request(target, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) requests++;
          else errors++;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end();
    });
  const start = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) await one();
    }),
  );
  agent.destroy();
  const seconds = (performance.now() - start) / 1000;
  return { requests, errors, seconds, requestsPerSecond: requests / seconds };
}
