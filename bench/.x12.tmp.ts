import { startTestApp } from '../test/support/test-app.ts';
import { retentionBody } from '../test/support/retention-events.ts';
import { ingestAs } from '../test/support/zone-ingest.ts';
const t = await startTestApp({ LOGEXPORT_RETENTION_FLUSH: '100ms' });
const owner = await t.user();
const zoneId = await t.zone(owner, 'x.example');
await t.call('POST', `/zones/${zoneId}/logs/explorer/datasets`, { body: { dataset: 'http_requests' }, auth: owner });
for (let i = 0; i < 10; i++) await ingestAs(t, owner, zoneId, retentionBody(i * 1000, (i + 1) * 1000));
const q = 'SELECT EdgeResponseStatus, ClientCountry, count(*) AS requests, sum(EdgeResponseBytes) AS bytes FROM http_requests GROUP BY EdgeResponseStatus, ClientCountry ORDER BY requests DESC';
const api = async (sql: string) => { const s = performance.now(); const a = await t.call('POST', `/zones/${zoneId}/logs/explorer/query/sql`, { raw: sql, auth: owner, headers: { 'content-type': 'text/plain' } }); return [performance.now() - s, a.text.slice(0, 80)] as const; };
for (let w = 0; w < 50; w++) { const [, text] = await api('SELECT count(*) AS n FROM http_requests'); if (w % 10 === 9) console.log(text); if (text.includes('10000')) break; await new Promise((r) => setTimeout(r, 200)); }
await t.app.retention.compactor.compactNow();
const times: number[] = [];
for (let i = 0; i < 40; i++) times.push((await api(q))[0]);
times.sort((a, b) => a - b);
console.log('api median', times[20].toFixed(2), 'min', times[0].toFixed(2), (await api(q))[1]);
const files = (await t.app.retention.segments.list(`${zoneId}/`)).map((e) => e.key);
console.log(files);
const { DuckDBInstance } = await import('@duckdb/node-api');
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const c = await inst.connect();
const paths = files.filter((f) => f.endsWith('.parquet')).map((f) => t.app.retention.segments.zoneDirectory(zoneId) + f.slice(zoneId.length + 1));
const direct = q.replace('FROM http_requests', `FROM read_parquet([${paths.map((p) => `'${p}'`).join(',')}])`);
const dt: number[] = [];
for (let i = 0; i < 40; i++) { const s = performance.now(); (await c.runAndReadAll(direct)).getRowObjectsJS(); dt.push(performance.now() - s); }
dt.sort((a, b) => a - b);
console.log('direct median', dt[20].toFixed(2), 'min', dt[0].toFixed(2));
const g = globalThis as any; const med = (a: number[]) => a.sort((x,y)=>x-y)[Math.floor(a.length/2)]!.toFixed(2); console.log('list', med(g.__L.slice(-40))); for (let k=0;k<5;k++) console.log('phase', k, med(g.__T.slice(-40).map((r: number[])=>r[k]))); for (let k=0;k<3;k++) console.log('check', k, med(g.__C.slice(-40).map((r: number[])=>r[k]))); await t.stop();
process.exit(0);
