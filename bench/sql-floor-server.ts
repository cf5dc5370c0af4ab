// Target 12's floor, in its own process: a bare node:http server that runs each POSTed SQL text on its own
// DuckDB connection (two threads, as the node's sandbox) and answers the rows as JSON — HTTP between two
// processes plus DuckDB, with nothing of logexport's (no routing, authentication, sandbox or listing).
import http from 'node:http';
import { DuckDBInstance } from '@duckdb/node-api';

const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const connection = await instance.connect();
await connection.run('SET parquet_metadata_cache = true');

const server = http.createServer((request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    connection
      .runAndReadAll(Buffer.concat(parts).toString('utf8'))
      .then((reader) => {
        const rows = reader.getRowObjectsJson();
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: true, result: rows }));
      })
      .catch((error: unknown) => {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: false, errors: [{ message: String(error) }] }));
      });
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`);
});
