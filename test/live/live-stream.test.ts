/**
 * Instant Logs end to end on one node: sessions made through the API, watched by a real WebSocket client
 * (ws), fed by real ingest requests. The viewer gets exactly the records a session's filter and sample keep,
 * formatted with its fields (checked against a count and formatting made independently here), nothing of
 * another zone, and a stalled viewer neither stalls ingest nor grows without bound.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { event, ndjson, postIngest, rayIds, startPlane, type PlaneHarness } from '../e2e/support/data-plane.ts';
import { connectViewer, sampledIn, type LiveViewer } from '../support/live-viewer.ts';

type Ev = Record<string, unknown>;

async function makeSession(h: PlaneHarness, body: Record<string, unknown>, zone = h.zone) {
  const res = await h.t.call('POST', `/zones/${zone}/logexport/edge/jobs`, { body });
  assert.equal(res.status, 200, res.text);
  return res.body.result as { session_id: string; destination_conf: string; fields: string; filter: string | null; sample: number };
}

async function ingest(h: PlaneHarness, events: readonly Ev[], zone = h.zone): Promise<void> {
  const res = await postIngest(h, ndjson(events), { zone });
  assert.equal(res.status, 200, res.text);
}

/** The ndjson text of a record with these fields, written here without logexport's formatter. */
function expectedLine(e: Ev, fields: readonly string[]): string {
  return `{${fields.map((f) => `${JSON.stringify(f)}:${JSON.stringify(e[f] ?? null)}`).join(',')}}`;
}

/** Every event of a mixed set: statuses, countries, paths and methods spread so each filter keeps some. */
function mixedEvents(prefix: string, count: number): Ev[] {
  const statuses = [200, 200, 301, 404, 500, 503];
  const countries = ['us', 'ca', 'de', 'fr'];
  return rayIds(prefix, 0, count).map((id, i) =>
    event(id, {
      EdgeResponseStatus: statuses[i % statuses.length],
      ClientCountry: countries[(i >> 1) % countries.length],
      ClientRequestPath: i % 3 === 0 ? `/api/items/${i}` : `/static/${i}.css`,
      ClientRequestMethod: i % 5 === 0 ? 'POST' : 'GET',
    }),
  );
}

/** Waits until the viewer's stats account for `events` events, then for the records to stop arriving. */
async function settle(viewer: LiveViewer, events: number, records: number): Promise<void> {
  await viewer.until(`stats for ${events} events (have ${viewer.events()})`, () => viewer.events() >= events);
  await viewer.until(`${records} records (have ${viewer.records.length})`, () => viewer.records.length >= records);
  // Anything extra would arrive now.
  await new Promise((r) => setTimeout(r, 300));
}

describe('Instant Logs on one node', () => {
  let h: PlaneHarness;

  before(async () => {
    h = await startPlane({ LOGEXPORT_WORKERS: '1' });
  });
  after(async () => {
    await h.stop();
  });

  const filters: readonly { name: string; filter: string | null; keeps: (e: Ev) => boolean }[] = [
    { name: 'no filter', filter: null, keeps: () => true },
    { name: 'status ≥ 500', filter: JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 500 } }), keeps: (e) => Number(e.EdgeResponseStatus) >= 500 },
    {
      name: 'country ca AND path under /api/',
      filter: JSON.stringify({ where: { and: [{ key: 'ClientCountry', operator: 'eq', value: 'ca' }, { key: 'ClientRequestPath', operator: 'startsWith', value: '/api/' }] } }),
      keeps: (e) => e.ClientCountry === 'ca' && String(e.ClientRequestPath).startsWith('/api/'),
    },
    {
      name: 'POST OR status in [404, 301]',
      filter: JSON.stringify({ where: { or: [{ key: 'ClientRequestMethod', operator: 'eq', value: 'POST' }, { key: 'EdgeResponseStatus', operator: 'in', value: [404, 301] }] } }),
      keeps: (e) => e.ClientRequestMethod === 'POST' || [404, 301].includes(Number(e.EdgeResponseStatus)),
    },
  ];
  const samples = [1, 3, 10];

  for (const f of filters) {
    for (const sample of samples) {
      it(`streams exactly what "${f.name}" keeps at one in ${sample}`, async () => {
        const fields = ['RayID', 'EdgeResponseStatus', 'ClientCountry', 'ClientRequestPath'];
        const session = await makeSession(h, { fields: fields.join(','), filter: f.filter ?? undefined, sample });
        const viewer = await connectViewer(session.destination_conf);
        try {
          const events = mixedEvents(`m-${f.name.length}-${sample}-`, 900);
          // Several requests, so records of one session come from more than one task.
          for (let i = 0; i < events.length; i += 300) await ingest(h, events.slice(i, i + 300));
          const expected = events.filter((e) => f.keeps(e) && sampledIn(String(e.RayID), sample)).map((e) => expectedLine(e, fields));
          assert.ok(expected.length > 0, 'the table keeps some records in every case');
          await settle(viewer, events.length, expected.length);
          assert.deepEqual(viewer.records, expected);
          assert.equal(viewer.controls.filter((c) => c.control === 'dropped').length, 0);
        } finally {
          await viewer.close();
        }
      });
    }
  }

  it('shows a viewer nothing of another zone, and nothing ingested before it connected', async () => {
    const otherZone = await h.t.zone(h.owner);
    const session = await makeSession(h, { fields: 'RayID' });
    await ingest(h, rayIds('before-', 0, 5).map((id) => event(id)));
    const viewer = await connectViewer(session.destination_conf);
    try {
      const other = await makeSession(h, { fields: 'RayID' }, otherZone);
      const otherViewer = await connectViewer(other.destination_conf);
      await ingest(h, rayIds('other-', 0, 50).map((id) => event(id)), otherZone);
      await ingest(h, rayIds('mine-', 0, 20).map((id) => event(id)));
      await settle(viewer, 20, 20);
      await settle(otherViewer, 50, 50);
      assert.deepEqual(viewer.records, rayIds('mine-', 0, 20).map((id) => `{"RayID":"${id}"}`));
      assert.ok(otherViewer.records.every((r) => r.includes('"other-')));
      await otherViewer.close();
    } finally {
      await viewer.close();
    }
  });

  it('gives each of several viewers of one session every record', async () => {
    const session = await makeSession(h, { fields: 'RayID', sample: 1 });
    const first = await connectViewer(session.destination_conf);
    const second = await connectViewer(session.destination_conf);
    try {
      await ingest(h, rayIds('both-', 0, 30).map((id) => event(id)));
      await settle(first, 30, 30);
      await settle(second, 30, 30);
      assert.deepEqual(first.records, second.records);
      assert.equal(first.records.length, 30);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('captures custom fields in what a viewer sees', async () => {
    const put = await h.t.call('PUT', `/zones/${h.zone}/rulesets/phases/http_log_custom_fields/entrypoint`, {
      body: { rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'x-live' }] } }] },
    });
    assert.equal(put.status, 200, put.text);
    const session = await makeSession(h, { fields: 'RayID,RequestHeaders' });
    const viewer = await connectViewer(session.destination_conf);
    try {
      await ingest(h, [event('cf-1', { RawRequestHeaders: [['X-Live', 'yes']] })]);
      await settle(viewer, 1, 1);
      assert.deepEqual(viewer.records, ['{"RayID":"cf-1","RequestHeaders":{"x-live":"yes"}}']);
    } finally {
      await viewer.close();
    }
  });

  it('shows records that came in as OTLP log records, through the same filter', async () => {
    // A zone of its own: the suite's zone holds as many sessions as a zone may.
    const zone = await h.t.zone(h.owner);
    const session = await makeSession(
      h,
      { fields: 'RayID,ClientRequestPath,EdgeResponseStatus', filter: JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 500 } }) },
      zone,
    );
    const viewer = await connectViewer(session.destination_conf);
    try {
      const record = (rayId: string, path: string, status: number) => ({
        timeUnixNano: '1790000000000000000',
        attributes: [
          { key: 'RayID', value: { stringValue: rayId } },
          { key: 'url.path', value: { stringValue: path } },
          { key: 'http.response.status_code', value: { intValue: String(status) } },
        ],
      });
      const body = {
        resourceLogs: [
          {
            resource: { attributes: [{ key: 'server.address', value: { stringValue: 'www.example.com' } }] },
            scopeLogs: [{ logRecords: [record('otlp-ok', '/fine', 200), record('otlp-bad', '/broken', 502), record('otlp-missing', '/gone', 404), record('otlp-down', '/down', 503)] }],
          },
        ],
      };
      const res = await fetch(`${h.t.app.url}/ingest/zones/${zone}/otlp/v1/logs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-email': h.owner.email, 'x-auth-key': h.owner.key },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200, await res.text());
      await settle(viewer, 4, 2);
      assert.deepEqual(viewer.records, [
        '{"RayID":"otlp-bad","ClientRequestPath":"/broken","EdgeResponseStatus":502}',
        '{"RayID":"otlp-down","ClientRequestPath":"/down","EdgeResponseStatus":503}',
      ]);
    } finally {
      await viewer.close();
    }
  });

  it('drops what a stalled viewer cannot take, keeps ingest answering, and says how many it dropped', async () => {
    const session = await makeSession(h, { fields: 'RayID,ClientRequestPath' });
    const viewer = await connectViewer(session.destination_conf);
    // The viewer stops reading: its socket fills, then its buffer (1000 records by default).
    (viewer.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const total = 60_000;
    const started = Date.now();
    const path = `/${'x'.repeat(200)}`;
    for (let i = 0; i < total; i += 5000) await ingest(h, rayIds(`stall-${i}-`, 0, 5000).map((id) => event(id, { ClientRequestPath: path })));
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 30_000, `ingest kept answering (${elapsed} ms for ${total} events)`);
    (viewer.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    await viewer.until('a dropped message', () => viewer.controls.some((c) => c.control === 'dropped'));
    await viewer.until('every event accounted', () => viewer.events() >= total);
    await new Promise((r) => setTimeout(r, 300));
    const dropped = viewer.controls.filter((c) => c.control === 'dropped').reduce((n, c) => n + Number(c.dropped), 0);
    assert.ok(dropped > 0);
    // Every record is either received or counted as dropped, and received ones are in ingest order.
    assert.equal(viewer.records.length + dropped, total);
    const last = viewer.controls.filter((c) => c.control === 'dropped').at(-1);
    assert.equal(last?.dropped_total, dropped);
    await viewer.close();
  });

  it('refuses a viewer of an unknown session before the upgrade', async () => {
    await assert.rejects(connectViewer(`${h.t.app.url.replace('http', 'ws')}/instant-logs/ws/sessions/${'0'.repeat(32)}`), /404/);
  });
});
