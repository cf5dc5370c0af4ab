/**
 * No line can wedge retention (issue 24): the line `{"RayID":"a","RayID":"b",…}` that once stopped a
 * zone's retention for good is accepted, retained with its last value (what JSON.parse gave every export
 * job), compacted, and the zone's later events are retained too; a lone surrogate is refused at ingest
 * with the line and the field named; a NUL character is kept and read back. Through HTTP, on a real node
 * whose compaction runs as soon as a hot segment is written.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/test-app.ts';

describe('a line that once wedged retention', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };
  let zoneId: string;
  const startS = Math.floor(Date.now() / 1000) - 60;

  const ingest = (body: string) => fetch(`${t.app.url}/ingest/zones/${zoneId}/http_requests`, { method: 'POST', headers: { 'x-auth-email': owner.email, 'x-auth-key': owner.key }, body });
  const received = async (fields: string): Promise<Record<string, unknown>[]> => {
    const answer = await t.call('GET', `/zones/${zoneId}/logs/received?start=${startS}&end=${startS + 600}&fields=${fields}`, { auth: owner });
    assert.equal(answer.status, 200, answer.text);
    return answer.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  };
  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(`${t.app.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return Number(line?.split(' ')[1] ?? Number.NaN);
  };
  const until = async (what: string, check: () => Promise<boolean>): Promise<void> => {
    const giveUp = Date.now() + 60_000;
    while (!(await check())) {
      assert.ok(Date.now() < giveUp, `timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  before(async () => {
    t = await startTestApp({ LOGEXPORT_RETENTION_FLUSH: '100ms', LOGEXPORT_RETENTION_COMPACT_AFTER: '0s' });
    owner = await t.user();
    zoneId = await t.zone(owner, 'poison.example');
    assert.equal((await t.call('POST', `/zones/${zoneId}/logs/control/retention/flag`, { body: { flag: true }, auth: owner })).status, 200);
  });
  after(async () => t.stop());

  it('accepts a key written twice, retains its last value, and keeps retaining the zone', async () => {
    const poison = await ingest('{"RayID":"a","RayID":"b","EdgeStartTimestamp":1790000000000000000}\n');
    assert.equal(poison.status, 200, await poison.text());
    assert.equal((await ingest('{"RayID":"later","EdgeStartTimestamp":"1790000000000000001"}\n')).status, 200);
    await until('both events retained', async () => (await received('RayID')).length === 2);
    const lines = (await t.call('GET', `/zones/${zoneId}/logs/received?start=${startS}&end=${startS + 600}&fields=RayID,EdgeStartTimestamp`, { auth: owner })).text.split('\n').filter((l) => l !== '');
    assert.deepEqual(lines.sort(), ['{"RayID":"b","EdgeStartTimestamp":1790000000000000000}', '{"RayID":"later","EdgeStartTimestamp":1790000000000000001}']);
    // Compacted into Parquet (normalised on the way), and the answer is the same.
    await until('the compaction', async () => (await metric('logexport_retention_hot_segments')) === 0 && (await metric('logexport_retention_compacted_segments_total')) >= 1);
    assert.deepEqual((await received('RayID')).map((r) => r.RayID).sort(), ['b', 'later']);
    assert.equal(await metric('logexport_retention_hot_bytes'), 0);
    assert.ok(!(await (await fetch(`${t.app.url}/metrics`)).text()).includes('logexport_retention_quarantined_segments{'));
  });

  it('refuses a lone surrogate at ingest, naming the line and the field, and keeps nothing of the request', async () => {
    const answer = await ingest('{"RayID":"ok1"}\n{"RayID":"x","ClientRequestUserAgent":"bad\\ud800"}\n');
    assert.equal(answer.status, 400);
    const body = (await answer.json()) as { errors: { message: string }[] };
    assert.match(body.errors[0]?.message ?? '', /line 2: "ClientRequestUserAgent" holds a lone surrogate/);
  });

  it('keeps a NUL character and reads it back', async () => {
    assert.equal((await ingest('{"RayID":"nul","ClientRequestUserAgent":"a\\u0000b"}\n')).status, 200);
    await until('the event retained', async () => (await received('RayID')).some((r) => r.RayID === 'nul'));
    assert.equal((await received('RayID,ClientRequestUserAgent')).find((r) => r.RayID === 'nul')?.ClientRequestUserAgent, 'a\u0000b');
    assert.ok(!(await received('RayID')).some((r) => r.RayID === 'ok1'));
  });
});
