/**
 * How the retention flag and a Log Explorer dataset combine (docs/retention.md): with the flag on every
 * event is kept whole whatever the dataset selects; with the flag turned off the enabled dataset keeps the
 * zone retaining — its consumer stays, and from then on only what it selects is kept; a zone with neither
 * keeps nothing, and a query of it answers over an empty table.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/core/clock.ts';
import { retentionBody } from '../support/retention-events.ts';
import { waitAdvancing } from '../support/advancing-wait.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { ingestAs } from '../support/zone-ingest.ts';

const t0 = Date.UTC(2026, 4, 2, 10, 0, 0);

describe('the retention flag and a Log Explorer dataset together', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };
  let zoneId: string;
  const clock = new ManualClock(t0);

  const ingest = (body: string): Promise<void> => ingestAs(t, owner, zoneId, body);
  const rows = async (sql: string): Promise<Record<string, unknown>[]> => {
    const answer = await t.call('POST', `/zones/${zoneId}/logs/explorer/query/sql`, { raw: sql, auth: owner });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.result;
  };
  const waitForCount = (where: string, n: number): Promise<void> =>
    waitAdvancing(async () => Number((await rows(`SELECT count(*) AS n FROM http_requests WHERE ${where}`))[0]?.n) === n, `${n} rows where ${where}`, clock);

  before(async () => {
    t = await startTestApp({ LOGEXPORT_RETENTION_FLUSH: '100ms' }, { clock });
    owner = await t.user();
    zoneId = await t.zone(owner, 'both.example');
  });
  after(async () => t.stop());

  it('answers a zone that keeps nothing over an empty table', async () => {
    assert.deepEqual(await rows('SELECT count(*) AS n, max(EdgeStartTimestamp) AS latest FROM http_requests'), [{ n: 0, latest: null }]);
  });

  it('keeps every event whole while the flag is on, whatever the dataset selects', async () => {
    const created = await t.call('POST', `/zones/${zoneId}/logs/explorer/datasets`, {
      body: { dataset: 'http_requests', fields: [{ name: 'clientip', enabled: false }], filter: '{"where":{"key":"EdgeResponseStatus","operator":"eq","value":500}}' },
      auth: owner,
    });
    assert.equal(created.status, 200, created.text);
    assert.equal((await t.call('POST', `/zones/${zoneId}/logs/control/retention/flag`, { body: { flag: true }, auth: owner })).status, 200);
    await ingest(retentionBody(0, 10, 'a'));
    await waitForCount("RayID LIKE 'a%'", 10);
    assert.deepEqual(await rows("SELECT count(ClientIP) AS ips FROM http_requests WHERE RayID LIKE 'a%'"), [{ ips: 10 }]);
  });

  it('keeps retaining by the dataset alone once the flag is off, only what it selects', async () => {
    assert.equal((await t.call('POST', `/zones/${zoneId}/logs/control/retention/flag`, { body: { flag: false }, auth: owner })).status, 200);
    await ingest(retentionBody(0, 10, 'b'));
    await waitForCount("RayID LIKE 'b%'", 2);
    assert.deepEqual(await rows("SELECT RayID, ClientIP, EdgeResponseStatus FROM http_requests WHERE RayID LIKE 'b%' ORDER BY RayID"), [
      { rayid: 'b0000000', clientip: null, edgeresponsestatus: 500 },
      { rayid: 'b0000005', clientip: null, edgeresponsestatus: 500 },
    ]);
    assert.equal(Number((await rows("SELECT count(*) AS n FROM http_requests WHERE RayID LIKE 'a%'"))[0]?.n), 10);
  });
});
