/**
 * The ingest figures: per zone and way in, with totals that are the sum of the ways; rejected events by
 * reason, warned about at most once a minute per zone, way in and reason; stored and read back whole, and
 * read leniently from a damaged file.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { ManualClock } from '../../src/core/clock.ts';
import { IngestFigures, waysIn, type RejectedEvents, type WayIn } from '../../src/ingest/ingest-figures.ts';
import { RejectionWarnings, rejectionWarningEveryMs } from '../../src/ingest/rejection-warnings.ts';
import { readStoredIngestFigures, writeStoredIngestFigures } from '../../src/ingest/stored-ingest-figures.ts';

function collectingLog(): { lines: { obj: unknown; msg: string }[]; log: { info: () => void; warn: (obj: unknown, msg?: string) => void; error: () => void } } {
  const lines: { obj: unknown; msg: string }[] = [];
  return { lines, log: { info: () => undefined, warn: (obj, msg) => lines.push({ obj, msg: msg ?? '' }), error: () => undefined } };
}

const notHttp = (count: number): RejectedEvents => ({
  count,
  byReason: { not_http_request: count },
  first: Array.from({ length: Math.min(count, 5) }, (_, i) => ({ reason: 'not_http_request', text: `log record ${i + 1}: not an HTTP request log` })),
});

describe('the ingest figures', () => {
  it('count per zone and way in, with totals equal to the sum of the ways', () => {
    const wayArb = fc.constantFrom<WayIn>(...waysIn);
    const change = fc.record({ zone: fc.constantFrom('a', 'b', ''), way: wayArb, accepted: fc.nat(50), dropped: fc.nat(50), rejected: fc.nat(50) });
    fc.assert(
      fc.property(fc.array(change, { maxLength: 40 }), (changes) => {
        const figures = new IngestFigures(new ManualClock());
        for (const c of changes) {
          figures.count(c.zone, c.way, { requests: 1, accepted_events: c.accepted, events: c.accepted });
          figures.dropped(c.zone, c.way, 'no_job', c.dropped);
          figures.rejected(c.zone, c.way, { count: c.rejected, byReason: { bad: c.rejected }, first: [] });
        }
        for (const zone of ['a', 'b', '']) {
          const counters = figures.of(zone);
          const mine = changes.filter((c) => c.zone === zone);
          assert.equal(counters.accepted_events, mine.reduce((n, c) => n + c.accepted, 0));
          assert.equal(counters.requests, mine.length);
          for (const key of ['requests', 'accepted_events'] as const) {
            assert.equal(counters[key], waysIn.reduce((n, way) => n + counters.way_in[way][key], 0));
          }
          assert.equal(counters.dropped.no_job ?? 0, waysIn.reduce((n, way) => n + (counters.way_in[way].dropped.no_job ?? 0), 0));
          assert.equal(counters.rejected_events.bad ?? 0, mine.reduce((n, c) => n + c.rejected, 0));
        }
      }),
    );
  });

  it('note when events last came in, and not for a request that brought none', () => {
    const clock = new ManualClock(Date.UTC(2026, 4, 2, 10, 0, 0));
    const figures = new IngestFigures(clock);
    figures.count('z', 'otlp', { requests: 1 });
    assert.equal(figures.of('z').last_event_at, null);
    figures.dropped('z', 'otlp', 'no_job', 3);
    assert.equal(figures.of('z').way_in.otlp.last_event_at, '2026-05-02T10:00:00.000Z');
    assert.equal(figures.of('z').way_in.http.last_event_at, null);
  });

  it('warn about rejected events at most once a minute per zone, way in and reason, with the count since the last line and the first reasons', () => {
    const clock = new ManualClock();
    const { lines, log } = collectingLog();
    const figures = new IngestFigures(clock, new RejectionWarnings(clock, log));
    figures.rejected('zone-a', 'otlp', notHttp(3));
    assert.equal(lines.length, 1);
    assert.match(lines[0]?.msg ?? '', /^OTLP rejected 3 log records for zone zone-a \(not_http_request\);.*The first: log record 1: not an HTTP request log; log record 2: .*; log record 3: /);
    figures.rejected('zone-a', 'otlp', notHttp(4));
    clock.advance(rejectionWarningEveryMs - 1);
    figures.rejected('zone-a', 'otlp', notHttp(1));
    assert.equal(lines.length, 1, 'quiet for a minute');
    figures.rejected('zone-b', 'otlp', notHttp(2));
    figures.rejected('zone-a', 'otlp', { count: 1, byReason: { unknown_host: 1 }, first: [{ reason: 'unknown_host', text: 'log record 1: no zone serves the host "x"' }] });
    assert.equal(lines.length, 3, 'another zone, another reason: lines of their own');
    assert.doesNotMatch(lines[2]?.msg ?? '', /not an HTTP request/, "a reason's line names only its own examples");
    clock.advance(1);
    figures.rejected('zone-a', 'otlp', notHttp(2));
    assert.equal(lines.length, 4);
    assert.match(lines[3]?.msg ?? '', /^OTLP rejected 7 log records for zone zone-a \(not_http_request\) since the last warning;/, '4 + 1 quiet ones, and these 2');
    assert.equal(figures.of('zone-a').rejected_events.not_http_request, 10, 'every one counted');
  });

  it('are stored whole and read back, and a damaged file reads as what it can', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-figures-'));
    try {
      const file = path.join(dir, 'ingest-figures.json');
      assert.equal(readStoredIngestFigures(file), undefined);
      const clock = new ManualClock();
      const figures = new IngestFigures(clock);
      figures.count('z', 'http', { requests: 2, accepted_events: 5, events: 5 });
      figures.dropped('', 'tail', 'unknown_host', 4);
      figures.rejected('z', 'otlp', notHttp(1));
      await writeStoredIngestFigures(file, figures.snapshot(), clock.now());
      const stored = readStoredIngestFigures(file);
      assert.ok(stored);
      assert.equal(stored.updated_at, new Date(clock.now()).toISOString());
      const again = new IngestFigures(clock, undefined, stored);
      assert.deepEqual(again.snapshot(), figures.snapshot());
      assert.deepEqual(fs.readdirSync(dir), ['ingest-figures.json'], 'no temporary file left');

      fs.writeFileSync(file, JSON.stringify({ zones: { z: { requests: 'many', accepted_events: 3, dropped: { no_job: -1, other: 2 }, way_in: { http: null } } } }));
      const damaged = readStoredIngestFigures(file);
      assert.equal(damaged?.zones.z?.requests, 0);
      assert.equal(damaged?.zones.z?.accepted_events, 3);
      assert.deepEqual(damaged?.zones.z?.dropped, { other: 2 });
      assert.equal(damaged?.zones.z?.way_in.http.accepted_events, 0);
      fs.writeFileSync(file, 'not json');
      assert.equal(readStoredIngestFigures(file), undefined);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
