import { startTestApp } from '../test/support/test-app.ts';
import { makeEventLines } from './records.ts';
import { ingestAs } from '../test/support/zone-ingest.ts';
import { openRetained } from '../src/retention/retained-files.ts';
import { explorerViewSql, emptyRetainedSql } from '../src/explorer/explorer-view.ts';
import { httpRequests } from '../src/domain/datasets/http-requests.ts';
import { createSandbox } from '../src/explorer/sql-sandbox.ts';
import * as duck from '@duckdb/node-api';
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
const opened = await openRetained(t.app.retention.segments, zoneId, { startMs: 0, endMs: Date.now() + 1e9 }, httpRequests);
const viewSql = explorerViewSql(httpRequests, opened.table, emptyRetainedSql(opened.columns));
const inst = await createSandbox(duck, t.app.retention.segments.zoneDirectory(zoneId), { memoryBytes: 1 << 30, threads: 2 });
const c = await inst.connect();
await c.run(viewSql);
const plain = await duck.DuckDBInstance.create(':memory:', { threads: '2' });
const pc = await plain.connect();
const direct = q.replace('FROM http_requests', 'FROM ' + opened.table!);
function med(a: number[]): string { return a.sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(2); }
const cpu = async (f: () => Promise<unknown>) => { const s = process.cpuUsage(); await f(); const d = process.cpuUsage(s); return (d.user + d.system) / 1000; };
const R: Record<string, number[]> = {};
const rec = async (k: string, f: () => Promise<unknown>) => { (R[k] ??= []).push(await cpu(f)); };
for (let i = 0; i < 0; i++) {
  await rec('direct runAndReadAll', async () => (await pc.runAndReadAll(direct)).getRowObjectsJS());
  await rec('sandbox direct (no view)', async () => (await c.runAndReadAll(direct)).getRowObjectsJS());
  await rec('view runAndReadAll', async () => (await c.runAndReadAll(q)).getRowObjectsJS());
  await rec('extract', async () => c.extractStatements(q));
  await rec('serialize', async () => (await c.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS tree', [q])).getRowObjects());
  await rec('extract+prepare', async () => (await c.extractStatements(q)).prepare(0));
  await rec('prepare direct', async () => (await c.extractStatements(direct)).prepare(0));
  await rec('new conn + view', async () => { const x = await inst.connect(); await x.run(viewSql); x.closeSync(); });
}
const W: Record<string, number[]> = {};
const wall = async (k: string, f: () => Promise<unknown>) => { const s = performance.now(); await f(); (W[k] ??= []).push(performance.now() - s); };
for (let i = 0; i < 60; i++) {
  await wall('api SELECT 1', () => api('SELECT 1 AS one'));
  await wall('api GET datasets', () => t.call('GET', `/zones/${zoneId}/logs/explorer/datasets`, { auth: owner }));
  await wall('api GET zone', () => t.call('GET', `/zones/${zoneId}`, { auth: owner }));
  await wall('openRetained', async () => { const o = await openRetained(t.app.retention.segments, zoneId, { startMs: 0, endMs: Date.now() + 1e9 }, httpRequests); await o.release(); });
  await wall('duck SELECT 1', async () => (await c.runAndReadAll('SELECT 1 AS one')).getRowObjectsJS());
  await wall('api q', () => api(q));
  await wall('A extract+prepare', async () => { const p = await (await c.extractStatements(q)).prepare(0); p.destroySync(); });
  await wall('B c.prepare', async () => { const p = await c.prepare(q); p.destroySync(); });
  let pp = await c.prepare(q);
  await wall('C prepared.run only', async () => { const r = await pp.run(); for (let ch = await r.fetchChunk(); ch && ch.rowCount > 0; ch = await r.fetchChunk()) ch.getRows(); });
  await wall('D prepared.stream only', async () => { const r = await pp.stream(); for (let ch = await r.fetchChunk(); ch && ch.rowCount > 0; ch = await r.fetchChunk()) ch.getRows(); });
  await wall('D2 prepared.runAndReadAll', async () => { (await pp.runAndReadAll()).getRows(); });
  pp.destroySync();
  await wall('E c.stream', async () => { const r = await c.stream(q); for (let ch = await r.fetchChunk(); ch && ch.rowCount > 0; ch = await r.fetchChunk()) ch.getRows(); });
  await wall('F c.run', async () => { const r = await c.run(q); for (let ch = await r.fetchChunk(); ch && ch.rowCount > 0; ch = await r.fetchChunk()) ch.getRows(); });
  await wall('G c.runAndReadAll', async () => (await c.runAndReadAll(q)).getRowObjectsJS());
  await wall('direct q', async () => (await pc.runAndReadAll(direct)).getRowObjectsJS());
}
for (const [k, v] of Object.entries(W)) console.log('wall', k.padEnd(30), med(v));

for (const [k, v] of Object.entries(R)) console.log(k.padEnd(30), med(v));
await t.stop();
process.exit(0);
