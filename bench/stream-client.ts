/**
 * A Logpull client: reads a streamed answer to the end counting its bytes and lines. Run as a script (the URL
 * the first argument, the headers as JSON the second), it does so in a process of its own and prints what it
 * read and how long it took as one JSON line: target 11 measures its pulls that way. Inside the bench's own
 * process, whose heap holds the benchmark's records and what earlier targets left, the client took ~1.2
 * cores during a 3 GB answer, most of it V8's collector threads, and the node waited on it.
 */
import http from 'node:http';
import { fileURLToPath } from 'node:url';

export interface Streamed {
  readonly status: number;
  readonly bytes: number;
  readonly lines: number;
  readonly seconds: number;
}

/** GETs `url` and reads the answer to the end. */
export function readStreamed(url: string, headers: Readonly<Record<string, string>>): Promise<Streamed> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { ...headers, 'accept-encoding': 'identity' } }, (res) => {
        let bytes = 0;
        let lines = 0;
        res.on('data', (d: Buffer) => {
          bytes += d.length;
          for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) lines++;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, lines, seconds: (performance.now() - started) / 1000 }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url = '', headersJson = '{}'] = process.argv.slice(2);
  console.log(JSON.stringify(await readStreamed(url, JSON.parse(headersJson) as Record<string, string>)));
}
