/**
 * Target 12: Log Explorer. Over 1,000,000 retained events of one zone (kept for an enabled `http_requests`
 * dataset, ingested through the HTTP endpoint, then compacted), a GROUP BY through the SQL API
 * (`POST …/logs/explorer/query/sql`) answers in no more than 1.3× the time the same query takes on the same
 * Parquet files through `@duckdb/node-api` directly, in the same run — the API's share being the sandbox
 * (the zone's DuckDB kept warm, a connection and view per query, the statement checks), the segment
 * listing, the JSON answer and HTTP. The same query over the hot tier only (before compaction) is printed
 * too. Times are the median of several runs of each.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BenchContext } from './bench-context.ts';
import { startListeningProcess } from './listening-process.ts';
import { nodeMetric, postLoad, startNodeUnderTest, type NodeUnderTest } from './node-under-test.ts';

const total = 1_000_000;
const perRequest = 2000;
const runs = 25;
const hotRuns = 5;
const query = 'SELECT EdgeResponseStatus, ClientCountry, count(*) AS requests, sum(EdgeResponseBytes) AS bytes FROM http_requests GROUP BY EdgeResponseStatus, ClientCountry ORDER BY requests DESC';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Every file under `dir` whose name ends with `suffix` and whose path holds `zoneId`. */
function filesOf(dir: string, zoneId: string, suffix: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(suffix) && full.includes(zoneId)) found.push(full);
    }
  };
  walk(dir);
  return found.sort();
}

async function sqlApi(node: NodeUnderTest, sql: string): Promise<{ readonly ms: number; readonly rows: number; readonly total: number }> {
  const started = performance.now();
  const response = await fetch(`${node.url}/client/v4/zones/${node.zoneId}/logs/explorer/query/sql`, { method: 'POST', headers: { ...node.auth, 'content-type': 'text/plain' }, body: sql });
  const body = (await response.json()) as { success: boolean; result: { requests?: number }[] | null; errors: unknown[] };
  const ms = performance.now() - started;
  if (!body.success || body.result === null) throw new Error(`the SQL API refused the query: ${JSON.stringify(body.errors)}`);
  return { ms, rows: body.result.length, total: body.result.reduce((sum, r) => sum + Number(r.requests ?? 0), 0) };
}

/** The query on the floor server (sql-floor-server.ts): HTTP between two processes and DuckDB, nothing else. */
async function floorQuery(url: string, sql: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', body: sql });
  const body = (await response.json()) as { success: boolean; result?: unknown[]; errors?: unknown[] };
  if (!body.success) throw new Error(`the floor server refused the query: ${JSON.stringify(body.errors)}`);
  return performance.now() - started;
}

async function count(node: NodeUnderTest): Promise<number> {
  const response = await fetch(`${node.url}/client/v4/zones/${node.zoneId}/logs/explorer/query/sql`, { method: 'POST', headers: { ...node.auth, 'content-type': 'text/plain' }, body: 'SELECT count(*) AS n FROM http_requests' });
  const body = (await response.json()) as { result: { n: number }[] | null };
  return body.result?.[0]?.n ?? 0;
}

export async function targetExplorer(bench: BenchContext): Promise<void> {
  console.log(`12. Log Explorer: a GROUP BY over ${total.toLocaleString('en')} retained events through the SQL API, against DuckDB on the same files`);
  const node = await bench.setUp([], { LOGEXPORT_RETENTION_FLUSH: '2s', LOGEXPORT_RETENTION_COMPACT_BUDGET: '0', LOGEXPORT_SQL_TIMEOUT: '120s', LOGEXPORT_SQL_MEMORY: '1GiB' });
  let compactingNode: NodeUnderTest | undefined;
  try {
    const created = await node.api('POST', `/zones/${node.zoneId}/logs/explorer/datasets`, { dataset: 'http_requests' });
    if (created.status !== 200) throw new Error(`could not create the dataset: ${JSON.stringify(created.body)}`);
    let sent = 0;
    let accepted = 0;
    // Every request differs (one RayID per request), or the queue would store a repeated body once.
    const shared = Buffer.from(bench.lines.slice(1, perRequest).join('\n') + '\n');
    const body = (n: number): Buffer[] => [Buffer.from((bench.lines[0] ?? '').replace(/"RayID":"[^"]*"/, `"RayID":"explorer${n}"`) + '\n'), shared];
    const ingestStart = performance.now();
    await postLoad(node, () => (sent < total ? body((sent += perRequest)) : undefined), 4, (status, events) => {
      if (status === 200) accepted += events;
    });
    bench.line('ingested (dataset enabled, no job)', `${accepted} events in ${((performance.now() - ingestStart) / 1000).toFixed(1)} s`);
    const until = Date.now() + 180_000;
    while ((await count(node)) < accepted && Date.now() < until) await new Promise((r) => setTimeout(r, 1000));

    const hotTimes: number[] = [];
    let hotCheck = 0;
    for (let i = 0; i < hotRuns; i++) {
      const answer = await sqlApi(node, query);
      hotTimes.push(answer.ms);
      hotCheck = answer.total;
    }
    bench.line('SQL API, hot tier only (zstd NDJSON)', `${median(hotTimes).toFixed(0)} ms (median of ${hotRuns}; ${hotCheck} events counted)`);
    await node.stop();

    // The same data directory, on a node that compacts every hot segment at once with a whole core.
    compactingNode = await startNodeUnderTest(
      { LOGEXPORT_DATA_DIR: node.dataDir, LOGEXPORT_RETENTION_FLUSH: '2s', LOGEXPORT_RETENTION_COMPACT_BUDGET: '1', LOGEXPORT_RETENTION_COMPACT_AFTER: '0s', LOGEXPORT_SQL_TIMEOUT: '120s', LOGEXPORT_SQL_MEMORY: '1GiB' },
      [],
      { reuse: node },
    );
    await new Promise((r) => setTimeout(r, 2000));
    while ((await nodeMetric(compactingNode, 'logexport_retention_hot_segments')) > 0) await new Promise((r) => setTimeout(r, 500));
    const parquet = filesOf(node.dataDir, node.zoneId, '.parquet');
    bench.line('compacted', `${parquet.length} Parquet segments`);

    // DuckDB directly: one instance and connection kept (the most favourable case), the same query over the
    // same files. The two are run in turns, so a change in the machine's load falls on both alike.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
    const connection = await instance.connect();
    const direct = query.replace('FROM http_requests', `FROM read_parquet([${parquet.map((p) => `'${p.replaceAll("'", "''")}'`).join(', ')}])`);
    const floor = await startListeningProcess(new URL('./sql-floor-server.ts', import.meta.url));
    const apiTimes: number[] = [];
    const directTimes: number[] = [];
    const floorTimes: number[] = [];
    let apiCheck = 0;
    let directCheck = 0;
    let apiCpuSeconds = 0;
    let directCpuMicros = 0;
    try {
      // A first query of each, not timed: the zone's sandbox is made, and both read the files once.
      await sqlApi(compactingNode, query);
      await connection.runAndReadAll(direct);
      await floorQuery(floor.url, direct);
      // CPU beside the times, which a loaded machine stretches more than the work: the node's for the API's
      // queries, this process's (DuckDB runs in it) for the direct ones.
      for (let i = 0; i < runs; i++) {
        const nodeCpu = compactingNode.cpuSeconds();
        const answer = await sqlApi(compactingNode, query);
        apiCpuSeconds += compactingNode.cpuSeconds() - nodeCpu;
        apiTimes.push(answer.ms);
        apiCheck = answer.total;
        const ownCpu = process.cpuUsage();
        const started = performance.now();
        const rows = (await connection.runAndReadAll(direct)).getRowObjectsJS();
        directTimes.push(performance.now() - started);
        const used = process.cpuUsage(ownCpu);
        directCpuMicros += used.user + used.system;
        directCheck = rows.reduce((sum, r) => sum + Number(r.requests ?? 0), 0);
        floorTimes.push(await floorQuery(floor.url, direct));
      }
    } finally {
      floor.stop();
    }
    connection.closeSync();
    instance.closeSync();
    const apiMs = median(apiTimes);
    const directMs = median(directTimes);
    bench.line('SQL API, compacted', `${apiMs.toFixed(1)} ms (median of ${runs}; ${apiCheck} events counted)`);
    bench.line('@duckdb/node-api directly, same files', `${directMs.toFixed(1)} ms (median of ${runs}; ${directCheck} events counted)`);
    bench.line('floor: bare node:http + DuckDB (report)', `${median(floorTimes).toFixed(1)} ms (median of ${runs}): ${(median(floorTimes) / directMs).toFixed(2)}× DuckDB directly, HTTP between two processes and nothing else`);
    bench.line('CPU per query (report)', `the node ${((apiCpuSeconds * 1000) / runs).toFixed(1)} ms for the SQL API; DuckDB directly ${(directCpuMicros / 1000 / runs).toFixed(1)} ms`);
    const ratio = apiMs / directMs;
    const complete = apiCheck === accepted && directCheck === accepted;
    bench.verdict('12', complete && ratio <= 1.3, `the SQL API took ${ratio.toFixed(2)}× DuckDB's own time on the same files (target ≤ 1.3×)${complete ? '' : '; events were missing'}`);
    await compactingNode.stop();
  } finally {
    compactingNode?.dispose();
    node.dispose();
  }
}
