/**
 * A Logpull client in a process of its own: GETs the URL given as the first argument (the headers, as JSON,
 * the second), reads the streamed answer to the end counting its bytes and lines, and prints what it read
 * and how long it took as one JSON line. Run by target 11 in place of a client inside the bench's process,
 * whose heap (the benchmark's records, what earlier targets left) made each of its garbage collections
 * long: during a 3 GB answer that client used ~1.2 cores of the two, most of it V8's collector threads,
 * and the node waited on it.
 */
import http from 'node:http';

const [url = '', headersJson = '{}'] = process.argv.slice(2);
const headers = JSON.parse(headersJson) as Record<string, string>;
const started = performance.now();
http
  .get(url, { headers: { ...headers, 'accept-encoding': 'identity' } }, (res) => {
    let bytes = 0;
    let lines = 0;
    res.on('data', (d: Buffer) => {
      bytes += d.length;
      for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) lines++;
    });
    res.on('end', () => {
      console.log(JSON.stringify({ status: res.statusCode ?? 0, bytes, lines, seconds: (performance.now() - started) / 1000 }));
    });
  })
  .on('error', (error) => {
    console.error(error.message);
    process.exit(1);
  });
