import { startTestApp } from '../test/support/test-app.ts';
import { makeEventLines } from './records.ts';
import { ingestAs } from '../test/support/zone-ingest.ts';
const t = await startTestApp({ LOGEXPORT_RETENTION_FLUSH: '1s', LOGEXPORT_SQL_MEMORY: '1GiB' });
const owner = await t.user();
const zoneId = await t.zone(owner, 'x.example');
await t.call('POST', `/zones/${zoneId}/logs/explorer/datasets`, { body: { dataset: 'http_requests' }, auth: owner });
const lines = makeEventLines(2000);
const N = Number(process.env.N ?? 300000);
for (let i = 0; i < N; i += 2000) await ingestAs(t, owner, zoneId, lines.map((l, k) => k === 0 ? l.replace(/"RayID":"[^"]*"/, `"RayID":"x${i}"`) : l).join('\n') + '\n');
const q = 'SELECT EdgeResponseStatus, ClientCountry, count(*) AS requests, sum(EdgeResponseBytes) AS bytes FROM http_requests GROUP BY EdgeResponseStatus, ClientCountry ORDER BY requests DESC';
const api = async (sql: string) => { const a = await t.call('POST', `/zones/${zoneId}/logs/explorer/query/sql`, { raw: sql, auth: owner, headers: { 'content-type': 'text/plain' } }); return a.text; };
for (let w = 0; w < 200; w++) { const text = await api('SELECT count(*) AS n FROM http_requests'); if (text.includes(`${N}`)) break; await new Promise((r) => setTimeout(r, 500)); }
await t.app.retention.compactor.compactNow();
const files = (await t.app.retention.segments.list(`${zoneId}/`)).map((e) => e.key).filter((f) => f.endsWith('.parquet'));
console.log(files.length, 'parquet', (await api('SELECT count(*) AS n FROM http_requests')).slice(0, 90));
const { DuckDBInstance } = await import('@duckdb/node-api');
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const c = await inst.connect();
const paths = files.map((f) => t.app.retention.segments.zoneDirectory(zoneId) + f.slice(zoneId.length + 1));
const direct = q.replace('FROM http_requests', `FROM read_parquet([${paths.map((p) => `'${p}'`).join(',')}])`);
const cpu = async (f: () => Promise<unknown>) => { const s = process.cpuUsage(); const w = performance.now(); await f(); const d = process.cpuUsage(s); return [(d.user + d.system) / 1000, performance.now() - w]; };
const A: number[][] = [], D: number[][] = [];
await api(q); await c.runAndReadAll(direct);
for (let i = 0; i < Number(process.env.R ?? 30); i++) { A.push(await cpu(() => api(q))); D.push(await cpu(async () => (await c.runAndReadAll(direct)).getRowObjectsJS())); }
const med = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(2);
console.log('api cpu', med(A.map((x) => x[0]!)), 'wall', med(A.map((x) => x[1]!)), '| direct cpu', med(D.map((x) => x[0]!)), 'wall', med(D.map((x) => x[1]!)));
await t.stop();
process.exit(0);
