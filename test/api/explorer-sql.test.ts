/**
 * Log Explorer's SQL is a sandbox, not a database shell: every way out is a failing attempt here, against
 * a real node with two zones' events retained — a second statement, statements other than SELECT, table
 * functions over files and URLs, another zone's segment by its path — and every bound is driven: the time
 * limit (a query that cannot finish), the memory limit, the concurrent queries per node. Errors carry
 * DuckDB's message made readable, with where in the query it points.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ManualClock } from '../../src/core/clock.ts';
import { retentionBody } from '../support/retention-events.ts';
import { waitAdvancing } from '../support/advancing-wait.ts';
import { startTestApp, type ApiAnswer, type TestApp } from '../support/test-app.ts';
import { ingestAs } from '../support/zone-ingest.ts';

const t0 = Date.UTC(2026, 4, 2, 10, 0, 0);

describe('Log Explorer SQL sandbox', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };
  let zoneA: string;
  let zoneB: string;
  /** Local files of zone B's segments (what a query of zone A must never read). */
  let otherPaths: string[] = [];
  const clock = new ManualClock(t0);

  const query = (zoneId: string, sql: string): Promise<ApiAnswer> => t.call('POST', `/zones/${zoneId}/logs/explorer/query/sql`, { raw: sql, auth: owner, headers: { 'content-type': 'text/plain' } });

  before(async () => {
    t = await startTestApp({ LOGEXPORT_RETENTION_FLUSH: '100ms', LOGEXPORT_SQL_MEMORY: '160MiB' }, { clock });
    owner = await t.user();
    zoneA = await t.zone(owner, 'a.example');
    zoneB = await t.zone(owner, 'b.example');
    for (const [zone, tag] of [
      [zoneA, 'a'],
      [zoneB, 'b'],
    ] as const) {
      assert.equal((await t.call('POST', `/zones/${zone}/logs/control/retention/flag`, { body: { flag: true }, auth: owner })).status, 200);
      await ingestAs(t, owner, zone, retentionBody(0, tag === 'a' ? 30 : 20, tag));
    }
    await waitAdvancing(async () => (await t.app.retention.segments.list(`${zoneB}/`)).length > 0 && (await t.app.retention.segments.list(`${zoneA}/`)).length > 0, 'the segments', clock);
    const entries = await t.app.retention.segments.list(`${zoneB}/`);
    for (const entry of entries) {
      const opened = await t.app.retention.segments.open(entry.key);
      otherPaths.push(opened.path);
      await opened.release();
    }
    otherPaths = otherPaths.filter((p) => p.endsWith('.zst') || p.endsWith('.parquet'));
    assert.ok(otherPaths.length > 0);
  });
  after(async () => t.stop());

  it("reads the zone's own rows only", async () => {
    const a = await query(zoneA, "SELECT count(*) AS n, count(*) FILTER (WHERE RayID LIKE 'b%') AS other FROM http_requests");
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.body.result, [{ n: 30, other: 0 }]);
    const b = await query(zoneB, 'SELECT count(*) AS n FROM http_requests');
    assert.deepEqual(b.body.result, [{ n: 20 }]);
  });

  const refusals: readonly (readonly [string, string, number])[] = [
    ['a second statement', 'SELECT 1; SELECT 2', 14411],
    ['a SELECT then a COPY', "SELECT 1; COPY (SELECT 1) TO '/tmp/x.csv'", 14411],
    ['COPY', "COPY (SELECT * FROM http_requests) TO '/tmp/logexport-out.csv'", 14411],
    ['ATTACH', "ATTACH '/tmp/logexport-other.db' AS other", 14411],
    ['INSTALL', 'INSTALL httpfs', 14411],
    ['LOAD', 'LOAD httpfs', 14411],
    ['PRAGMA', 'PRAGMA database_list', 14411],
    ['SET', 'SET enable_external_access = true', 14411],
    ['RESET', 'RESET lock_configuration', 14411],
    ['CREATE', 'CREATE TABLE t AS SELECT 1', 14411],
    ['CREATE VIEW', 'CREATE VIEW v AS SELECT 1', 14411],
    ['EXPLAIN', 'EXPLAIN SELECT 1', 14411],
    ['CALL', 'CALL pragma_version()', 14411],
    ['read_csv of a system file', "SELECT * FROM read_csv('/etc/passwd')", 14412],
    ['read_text of a system file', "SELECT * FROM read_text('/etc/hostname')", 14412],
    // With external access off, DuckDB does not take a quoted path for a file: it is a table that does not exist.
    ['a bare path as a table', "SELECT * FROM '/etc/passwd'", 14410],
    ['glob', "SELECT * FROM glob('/tmp/*')", 14412],
    ['an http URL', "SELECT * FROM read_parquet('http://127.0.0.1:1/x.parquet')", 14412],
    ['an https URL', "SELECT * FROM read_csv('https://example.com/x.csv')", 14412],
    ['an s3 URL', "SELECT * FROM read_parquet('s3://bucket/x.parquet')", 14412],
  ];
  for (const [what, sql, code] of refusals) {
    it(`refuses ${what}`, async () => {
      const answer = await query(zoneA, sql);
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.body.success, false);
      assert.equal(answer.body.errors[0].code, code, answer.text);
    });
  }

  it("refuses another zone's segment by its path, however it is written or read", async () => {
    const ownDirectory = t.app.retention.segments.zoneDirectory(zoneA);
    const otherDirectory = t.app.retention.segments.zoneDirectory(zoneB);
    for (const file of otherPaths) {
      const reader = file.endsWith('.parquet') ? 'read_parquet' : 'read_json_auto';
      const dir = file.slice(0, file.lastIndexOf('/'));
      assert.ok(file.startsWith(otherDirectory), file);
      // From inside the zone's own directory, climbing out of it.
      const climbing = `${ownDirectory}../${path.basename(otherDirectory)}/${file.slice(otherDirectory.length)}`;
      for (const sql of [
        `SELECT * FROM ${reader}('${climbing}')`,
        `SELECT * FROM read_text('${climbing}')`,
        `SELECT * FROM glob('${ownDirectory}../*')`,
        `SELECT * FROM ${reader}('${file}')`,
        `SELECT * FROM read_text('${file}')`,
        `SELECT * FROM read_blob('${file}')`,
        `SELECT * FROM ${reader}('${dir}/./${file.slice(dir.length + 1)}')`,
        `SELECT * FROM ${reader}('${dir}/*')`,
        `SELECT * FROM http_requests UNION ALL BY NAME SELECT * FROM ${reader}('${file}')`,
      ]) {
        const answer = await query(zoneA, sql);
        assert.equal(answer.status, 400, `${sql}: ${answer.text}`);
        assert.equal(answer.body.errors[0].code, 14412, sql);
      }
    }
  });

  it("answers two queries run at once, of one zone or of two, each from its own zone's view", async () => {
    const sql = "SELECT count(*) AS n, count(*) FILTER (WHERE RayID LIKE 'a%') AS a FROM http_requests";
    const expected = (zone: string): unknown => (zone === zoneA ? [{ n: 30, a: 30 }] : [{ n: 20, a: 0 }]);
    // LOGEXPORT_SQL_CONCURRENCY is 2 by default: two at once are run, not refused.
    for (const pair of [
      [zoneA, zoneB],
      [zoneA, zoneA],
      [zoneB, zoneB],
    ]) {
      const answers = await Promise.all(pair.map((zone) => query(zone, sql)));
      assert.deepEqual(
        answers.map((a) => a.body.result),
        pair.map(expected),
      );
    }
  });

  it('answers a syntax error and an unknown column with where they are', async () => {
    const syntax = await query(zoneA, 'SELECT count(*)\nFROM http_requests\nWHER EdgeResponseStatus = 200');
    assert.equal(syntax.status, 400);
    assert.equal(syntax.body.errors[0].code, 14410);
    assert.match(syntax.body.errors[0].message, /syntax error at or near "EdgeResponseStatus"/);
    const column = await query(zoneA, 'SELECT RayID\nFROM http_requests\nWHERE NoSuchField = 1');
    assert.equal(column.body.errors[0].code, 14410);
    assert.match(column.body.errors[0].message, /NoSuchField/);
    assert.match(column.body.errors[0].message, /line 3, column 7, at "NoSuchField"/);
    // The query's view holds only the columns it names, yet a misspelt name is told the dataset's field.
    const misspelt = await query(zoneA, 'SELECT RayID FROM http_requests WHERE EdgeResponseStatu = 200');
    assert.equal(misspelt.body.errors[0].code, 14410);
    assert.match(misspelt.body.errors[0].message, /Candidate bindings: .*"EdgeResponseStatus"/);
    const empty = await query(zoneA, '   ');
    assert.equal(empty.body.errors[0].code, 14410);
    const getEmpty = await t.call('GET', `/zones/${zoneA}/logs/explorer/query/sql`, { auth: owner });
    assert.equal(getEmpty.body.errors[0].code, 14410);
  });

  it('answers a query that needs more memory than LOGEXPORT_SQL_MEMORY as too costly', async () => {
    const answer = await query(zoneA, "SELECT count(DISTINCT range::VARCHAR || repeat('x', 200)) AS n FROM range(20000000)");
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.body.errors[0].code, 14413, answer.text);
    assert.match(answer.body.errors[0].message, /^Out of Memory Error: .*160\.0 MiB/);
    assert.doesNotMatch(answer.body.errors[0].message, /temp_directory/);
    // The zone's sandbox answers the next query as before.
    const next = await query(zoneA, 'SELECT count(*) AS n FROM http_requests');
    assert.deepEqual(next.body.result, [{ n: 30 }]);
  });

  it('cuts an answer too large for LOGEXPORT_SQL_MEMORY at the row cap rather than refusing it', async () => {
    // A million rows of ~500 bytes: far more than 160 MiB made whole, 10,000 of them (the default cap) streamed.
    const answer = await query(zoneA, "SELECT range AS n, repeat('x', 500) AS padding FROM range(1000000)");
    assert.equal(answer.status, 200, answer.text.slice(0, 500));
    assert.deepEqual(answer.body.result_info, { count: 10_000, truncated: true });
    assert.equal(answer.body.result[9999].n, 9999);
  });

  it('answers a column called __proto__ as a member of its row like any other', async () => {
    const answer = await query(zoneA, 'SELECT 1 AS "__proto__", 2 AS x, count(*) AS n FROM http_requests');
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.text, /"result":\[\{"__proto__":1,"x":2,"n":30\}\]/);
  });

  it('refuses a query holding a NUL character, whatever follows it', async () => {
    const answer = await query(zoneA, 'SELECT 1 AS one\u0000; COPY (SELECT 1) TO \'/tmp/logexport-nul.csv\'');
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.body.errors[0].code, 14410);
  });

  it('needs logs read permission, and a token of another zone sees nothing', async () => {
    const reader = await t.token(owner, [zoneA], ['logs:read']);
    const ok = await t.call('POST', `/zones/${zoneA}/logs/explorer/query/sql`, { raw: 'SELECT 1 AS one', auth: { token: reader } });
    assert.equal(ok.status, 200, ok.text);
    const other = await t.call('POST', `/zones/${zoneB}/logs/explorer/query/sql`, { raw: 'SELECT 1 AS one', auth: { token: reader } });
    assert.equal(other.status, 403);
    const ingestOnly = await t.token(owner, [zoneA], ['logs:ingest']);
    const refused = await t.call('POST', `/zones/${zoneA}/logs/explorer/query/sql`, { raw: 'SELECT 1 AS one', auth: { token: ingestOnly } });
    assert.equal(refused.status, 403);
  });
});

describe('Log Explorer SQL bounds on time and concurrency', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };
  let zoneId: string;

  before(async () => {
    t = await startTestApp({ LOGEXPORT_SQL_TIMEOUT: '1s', LOGEXPORT_SQL_CONCURRENCY: '1' });
    owner = await t.user();
    zoneId = await t.zone(owner, 'slow.example');
  });
  after(async () => t.stop());

  // Ten trillion rows streamed through a hash in constant memory: it cannot finish (nor run out of memory),
  // so the time limit decides, however busy the machine is.
  const endless = 'SELECT count(*) AS n FROM range(10000000000000) WHERE hash(range) = 0';

  it('interrupts a query that runs past LOGEXPORT_SQL_TIMEOUT, and refuses a second one meanwhile with 429', async () => {
    const slow = t.call('POST', `/zones/${zoneId}/logs/explorer/query/sql`, { raw: endless, auth: owner });
    while (t.app.explorer.active === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const busy = await t.call('POST', `/zones/${zoneId}/logs/explorer/query/sql`, { raw: 'SELECT 1', auth: owner });
    assert.equal(busy.status, 429);
    assert.equal(busy.body.errors[0].code, 14429);
    assert.equal(busy.headers.get('retry-after'), '1');
    const answer = await slow;
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.body.errors[0].code, 14414);
    const after = await t.call('POST', `/zones/${zoneId}/logs/explorer/query/sql`, { raw: 'SELECT 1 AS one', auth: owner });
    assert.deepEqual(after.body.result, [{ one: 1 }]);
  });
});
