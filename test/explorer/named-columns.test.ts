/**
 * A query's narrower view (the columns it names, read from DuckDB's own parse tree) never changes its
 * answer: queries that name their columns get a view of those, queries that reach columns without naming
 * them (`*`, `COLUMNS`, `#1`, a row as a value, NATURAL joins, columns renamed by position, table functions,
 * DESCRIBE) get the whole view, and every query of the table — and any query of named fields fast-check
 * makes up — answers the same rows on the narrower view as on the whole one, over real DuckDB.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { httpRequests } from '../../src/domain/datasets/http-requests.ts';
import { loadDuckDB } from '../../src/explorer/duckdb-module.ts';
import { explorerViewSql } from '../../src/explorer/explorer-view.ts';
import { namedColumns, type NamedColumns } from '../../src/explorer/named-columns.ts';
import { readJsonColumns, retainedColumns, sqlString } from '../../src/retention/segment-schema.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-named-columns-'));
const file = path.join(dir, 'events.ndjson');
const table = `read_json(${sqlString(file)}, format='newline_delimited', columns=${readJsonColumns(httpRequests)})`;

const events = Array.from({ length: 12 }, (_, i) => ({
  _received_ms: 1_790_000_000_000 + i,
  RayID: `ray${i}`,
  ClientCountry: ['us', 'de', 'fr'][i % 3],
  ClientRequestHost: i % 4 === 0 ? 'a.example.com' : 'b.example.com',
  ClientRequestMethod: i % 2 === 0 ? 'GET' : 'POST',
  EdgeResponseStatus: [200, 404, 500, 200][i % 4],
  EdgeResponseBytes: 100 * i,
  EdgeStartTimestamp: String(1_790_000_000_000_000_000n + BigInt(i) * 60_000_000_000n),
  EdgeEndTimestamp: String(1_790_000_000_000_000_000n + BigInt(i) * 60_000_000_000n + 5_000_000n),
  RequestHeaders: i % 3 === 0 ? { 'user-agent': `agent${i % 2}` } : {},
  Cookies: {},
}));

let instance: DuckDBInstance;
let whole: DuckDBConnection;
let probe: DuckDBConnection;

/** What DuckDB's serializer makes of `sql`, read by namedColumns. */
async function columnsOf(sql: string): Promise<NamedColumns> {
  const text = (await probe.runAndReadAll(`SELECT json_serialize_sql(${sqlString(sql)})`)).getRows()[0]?.[0];
  const tree = JSON.parse(String(text)) as { error?: boolean; error_message?: string; statements?: unknown };
  assert.notEqual(tree.error, true, `${sql}: ${tree.error_message}`);
  return namedColumns(tree.statements);
}

/** The query's answer (its column names and rows as JSON) on a connection, or its error. */
async function answer(connection: DuckDBConnection, sql: string): Promise<string> {
  try {
    const reader = await connection.runAndReadAll(sql);
    return JSON.stringify([reader.columnNames(), reader.getRowsJson()]);
  } catch (error) {
    return `error: ${String(error)}`;
  }
}

/** The answer on the query's narrower view, which must be the whole view's. */
async function sameOnNarrowerView(sql: string, columns: NamedColumns): Promise<void> {
  const narrow = await instance.connect();
  try {
    await narrow.run(explorerViewSql(httpRequests, table, retainedColumns(httpRequests), columns));
    const expected = await answer(whole, sql);
    assert.doesNotMatch(expected, /^error/, sql);
    assert.equal(await answer(narrow, sql), expected, sql);
  } finally {
    narrow.closeSync();
  }
}

describe("a Log Explorer query's narrower view", () => {
  before(async () => {
    fs.writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const duck = await loadDuckDB();
    instance = await duck.DuckDBInstance.create(':memory:', { threads: '1' });
    whole = await instance.connect();
    await whole.run(`SET TimeZone = 'UTC'`);
    await whole.run(explorerViewSql(httpRequests, table, retainedColumns(httpRequests)));
    probe = await instance.connect();
  });
  after(() => {
    instance?.closeSync();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // The fields each query must have in its view (more names are harmless), or 'all'.
  const cases: [string, readonly string[] | 'all'][] = [
    ['SELECT EdgeResponseStatus, ClientCountry, count(*) AS requests, sum(EdgeResponseBytes) AS bytes FROM http_requests GROUP BY EdgeResponseStatus, ClientCountry ORDER BY requests DESC, 1, 2', ['EdgeResponseStatus', 'ClientCountry', 'EdgeResponseBytes']],
    ['SELECT count(*) AS n FROM http_requests', []],
    ['SELECT h.clientcountry, "RayID" FROM http_requests AS h WHERE h.EDGERESPONSESTATUS >= 400 ORDER BY ALL', ['ClientCountry', 'RayID', 'EdgeResponseStatus']],
    ["SELECT RequestHeaders['user-agent'] AS agent, count(*) FROM http_requests GROUP BY ALL ORDER BY ALL", ['RequestHeaders']],
    ["SELECT date_trunc('minute', EdgeStartTimestamp) AS t, count(*) FROM http_requests WHERE EdgeStartTimestamp < now() GROUP BY t ORDER BY t", ['EdgeStartTimestamp']],
    ['WITH errors AS (SELECT ClientRequestHost AS host FROM http_requests WHERE EdgeResponseStatus >= 500) SELECT host, count(*) FROM errors GROUP BY host ORDER BY host', ['ClientRequestHost', 'EdgeResponseStatus']],
    ['SELECT a.RayID, b.ClientCountry FROM http_requests a JOIN http_requests b USING (RayID) ORDER BY 1', ['RayID', 'ClientCountry']],
    ['SELECT ClientCountry, row_number() OVER (PARTITION BY ClientCountry ORDER BY EdgeResponseBytes DESC) AS r FROM http_requests QUALIFY r = 1 ORDER BY 1', ['ClientCountry', 'EdgeResponseBytes']],
    ['SELECT list_transform([1, 2], x -> x + EdgeResponseStatus) AS l FROM http_requests ORDER BY RayID LIMIT 3', ['EdgeResponseStatus', 'RayID']],
    ['SELECT ClientCountry FROM http_requests WHERE EdgeResponseBytes > (SELECT avg(EdgeResponseBytes) FROM http_requests) ORDER BY RayID', ['ClientCountry', 'EdgeResponseBytes', 'RayID']],
    ['SELECT EdgeResponseStatus AS ClientCountry FROM http_requests WHERE ClientCountry = \'us\' ORDER BY 1', ['EdgeResponseStatus', 'ClientCountry']],
    ['SELECT CAST(EdgeResponseBytes AS DECIMAL(12, 2)) AS b, [ClientCountry]::VARCHAR[] AS c FROM http_requests ORDER BY 1', ['EdgeResponseBytes', 'ClientCountry']],
    ['SELECT ClientCountry FROM http_requests UNION SELECT ClientRequestMethod FROM http_requests ORDER BY 1', ['ClientCountry', 'ClientRequestMethod']],
    ['SELECT * FROM http_requests ORDER BY RayID', 'all'],
    ['FROM http_requests SELECT RayID ORDER BY 1', ['RayID']],
    ['FROM http_requests ORDER BY RayID', 'all'],
    ['SELECT * EXCLUDE (RayID) FROM http_requests ORDER BY EdgeResponseBytes', 'all'],
    ["SELECT COLUMNS('Edge.*') FROM http_requests ORDER BY EdgeResponseBytes", 'all'],
    ['SELECT h.* FROM http_requests h ORDER BY RayID', 'all'],
    ['SELECT #2 FROM http_requests ORDER BY 1', 'all'],
    ['SELECT to_json(h) FROM http_requests h ORDER BY h.RayID', 'all'],
    ['SELECT http_requests FROM http_requests ORDER BY 1', 'all'],
    ['WITH r AS (SELECT RayID FROM http_requests) SELECT r FROM r ORDER BY 1', 'all'],
    ['SELECT a.RayID FROM http_requests a NATURAL JOIN http_requests b ORDER BY 1', 'all'],
    ['SELECT x FROM http_requests h(x) ORDER BY 1', 'all'],
    ["SELECT count(*) FROM query_table('http_requests')", 'all'],
    ['SELECT column_name FROM (DESCRIBE http_requests) ORDER BY 1', 'all'],
    ['SELECT ClientCountry FROM http_requests UNION ALL BY NAME SELECT * FROM http_requests ORDER BY RayID', 'all'],
  ];

  it('names the columns a query names, or the whole view when it reaches columns without naming them', async () => {
    for (const [sql, expected] of cases) {
      const columns = await columnsOf(sql);
      if (expected === 'all') assert.equal(columns, 'all', sql);
      else {
        assert.notEqual(columns, 'all', sql);
        for (const name of expected) assert.ok((columns as ReadonlySet<string>).has(name.toLowerCase()), `${sql}: ${name}`);
      }
    }
  });

  it('answers every query of the table on its narrower view as on the whole one', async () => {
    for (const [sql] of cases) await sameOnNarrowerView(sql, await columnsOf(sql));
  });

  it('answers any query of named fields on its narrower view as on the whole one (property)', async () => {
    const fields = ['RayID', 'ClientCountry', 'ClientRequestHost', 'ClientRequestMethod', 'EdgeResponseStatus', 'EdgeResponseBytes', 'EdgeStartTimestamp', 'EdgeEndTimestamp', 'RequestHeaders', 'Cookies', 'BotScore', 'ClientASN'];
    const field = fc.constantFrom(...fields);
    const casing = (name: string, how: number): string => (how === 0 ? name : how === 1 ? name.toLowerCase() : `"${name.toUpperCase()}"`);
    const query = fc
      .record({ selected: fc.uniqueArray(field, { minLength: 1, maxLength: 4 }), filter: fc.option(field), grouped: fc.boolean(), how: fc.nat(2), alias: fc.boolean() })
      .map(({ selected, filter, grouped, how, alias }) => {
        const from = alias ? 'http_requests AS t' : 'http_requests';
        const ref = (name: string): string => (alias ? `t.${casing(name, how)}` : casing(name, how));
        const where = filter === null ? '' : ` WHERE ${ref(filter)} IS NOT NULL`;
        const list = selected.map((name) => `${ref(name)}::VARCHAR`).join(', ');
        return grouped ? `SELECT ${list}, count(*) AS n FROM ${from}${where} GROUP BY ALL ORDER BY ALL` : `SELECT ${list} FROM ${from}${where} ORDER BY ALL`;
      });
    await fc.assert(
      fc.asyncProperty(query, async (sql) => {
        const columns = await columnsOf(sql);
        assert.notEqual(columns, 'all', sql);
        await sameOnNarrowerView(sql, columns);
      }),
      { numRuns: 60 },
    );
  });
});
