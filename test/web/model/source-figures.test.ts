import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { figureLabel, figureRows, noJobDrops, waysIn } from '../../../web/src/model/source-figures.ts';
import { countText } from '../../../web/src/model/count-text.ts';

describe("the Sources page's figures", () => {
  it('shows the known figures first, in order, then any other under a label made from its name', () => {
    const rows = figureRows({ bytes_skipped: 7, last_event_at: '2026-05-02T10:00:00Z', accepted_events: 3, requests: 2, dropped: { no_job: 4, unknown_host: 0 }, rejected_events: {}, way_in: {} }, ['way_in']);
    assert.deepEqual(
      rows.map((r) => [r.key, r.label, r.kind]),
      [
        ['requests', 'Requests', 'count'],
        ['accepted_events', 'Events accepted', 'count'],
        ['dropped', 'Events dropped', 'reasons'],
        ['rejected_events', 'Events rejected', 'reasons'],
        ['last_event_at', 'Last event', 'time'],
        ['bytes_skipped', 'Bytes skipped', 'count'],
      ],
    );
    assert.deepEqual(rows[2], { kind: 'reasons', key: 'dropped', label: 'Events dropped', counts: [['no_job', 4]], total: 4 });
  });

  it("shows a tailed file's flags and unknown figures, and a figure the server does not know yet as a dash", () => {
    const rows = figureRows({ source: 'native:/a', format: 'native', path: '/a', paused: false, bytes_behind: null, last_line_at: null, rotations: 2 }, ['source', 'format', 'path']);
    assert.deepEqual(
      rows.map((r) => [r.key, r.kind, 'value' in r ? r.value : undefined]),
      [
        ['bytes_behind', 'text', '—'],
        ['last_line_at', 'time', null],
        ['rotations', 'count', 2],
        ['paused', 'text', 'no'],
      ],
    );
    assert.equal(figureLabel('last_compaction_at'), 'Last compaction');
  });

  it('counts the events dropped for no enabled job', () => {
    assert.equal(noJobDrops({ dropped: { no_job: 12, unknown_host: 3 } }), 12);
    assert.equal(noJobDrops({ dropped: {} }), 0);
    assert.equal(noJobDrops(null), 0);
  });

  it('lists the ways in known ones first', () => {
    assert.deepEqual(waysIn({ way_in: { tail: {}, carrier_pigeon: {}, http: {}, otlp: {} } }).map(([w]) => w), ['http', 'otlp', 'tail', 'carrier_pigeon']);
    assert.deepEqual(waysIn({}), []);
  });

  it('says one thing in the singular', () => {
    assert.deepEqual([countText(0, 'field'), countText(1, 'field'), countText(2, 'field'), countText(1000, 'event was', 'events were')], ['0 fields', '1 field', '2 fields', '1,000 events were']);
  });
});
