/** The Instant Logs screen's pure parts: reading stream messages, the newest-N table, counts and rates. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { applyLiveMessage, cellText, emptyLiveView, parseLiveMessage, parseSample, previewSummary, recordsPerSecond, tableColumns } from '../../../web/src/model/live-view.ts';

describe('the live view', () => {
  it('reads records, dropped and stats messages, and ignores anything else', () => {
    assert.deepEqual(parseLiveMessage('{"RayID":"a"}'), { kind: 'record', text: '{"RayID":"a"}', record: { RayID: 'a' } });
    assert.deepEqual(parseLiveMessage('{"control":"dropped","dropped":3,"dropped_total":7}'), { kind: 'dropped', dropped: 3, total: 7 });
    assert.deepEqual(parseLiveMessage('{"control":"stats","events":10,"filtered_out":6,"sampled_out":1,"kept":3}'), { kind: 'stats', events: 10, filteredOut: 6, sampledOut: 1 });
    for (const text of ['', 'nope', '[1]', '"x"', 'null', '{"control":"later"}']) assert.deepEqual(parseLiveMessage(text), { kind: 'other' });
  });

  it('keeps the newest rows first, at most the limit, and counts everything', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.array(fc.oneof(fc.constant('record'), fc.constant('dropped'), fc.constant('stats')), { maxLength: 60 }), (limit, kinds) => {
        let view = emptyLiveView;
        let records = 0;
        let dropped = 0;
        for (const kind of kinds) {
          if (kind === 'record') view = applyLiveMessage(view, parseLiveMessage(JSON.stringify({ n: ++records })), limit);
          else if (kind === 'dropped') view = applyLiveMessage(view, parseLiveMessage(`{"control":"dropped","dropped":2,"dropped_total":${(dropped += 2)}}`), limit);
          else view = applyLiveMessage(view, parseLiveMessage('{"control":"stats","events":5,"filtered_out":1,"sampled_out":0}'), limit);
        }
        assert.equal(view.received, records);
        assert.equal(view.dropped, dropped);
        assert.equal(view.rows.length, Math.min(limit, records));
        assert.deepEqual(
          view.rows.map((r) => r.record.n),
          Array.from({ length: Math.min(limit, records) }, (_, i) => records - i),
        );
      }),
    );
  });

  it('computes records per second over the samples, and cells and sample rates as the API takes them', () => {
    assert.equal(recordsPerSecond([]), 0);
    assert.equal(recordsPerSecond([[1000, 5]]), 0);
    assert.equal(recordsPerSecond([[1000, 5], [2000, 15], [3000, 45]]), 20);
    assert.equal(cellText(undefined), '');
    assert.equal(cellText(null), '');
    assert.equal(cellText('a'), 'a');
    assert.equal(cellText(['waf']), '["waf"]');
    assert.equal(parseSample('10'), 10);
    for (const bad of ['0', '1.5', '', 'x', '-1', '01', '2000000']) assert.equal(parseSample(bad), undefined);
  });

  it('sums up a Preview, counting the kept records the server could not send as kept, and naming them', () => {
    const seen = [
      '{"control":"stats","events":9,"filtered_out":5,"sampled_out":0}',
      ...['{"RayID":"a"}', '{"RayID":"b"}', '{"RayID":"c"}', '{"RayID":"d"}'],
    ].reduce((view, text) => applyLiveMessage(view, parseLiveMessage(text), 20), emptyLiveView);
    assert.equal(previewSummary(seen), '4 records kept, 5 left out by the filter, of 9 received.');
    const busy = [
      '{"control":"dropped","dropped":2999,"dropped_total":2999}',
      '{"RayID":"e"}',
      '{"control":"stats","events":5000,"filtered_out":2000,"sampled_out":0}',
    ].reduce((view, text) => applyLiveMessage(view, parseLiveMessage(text), 20), emptyLiveView);
    assert.equal(previewSummary(busy), '3000 records kept (2999 not shown: they came faster than the preview could take them), 2000 left out by the filter, of 5000 received.');
    assert.equal(previewSummary(applyLiveMessage(emptyLiveView, parseLiveMessage('{"RayID":"x"}'), 20)), '1 record kept, 0 left out by the filter, of 0 received.');
  });

  it('puts RayID first among the table columns and leaves out the hidden ones', () => {
    assert.deepEqual(tableColumns(['ClientIP', 'RayID', 'EdgeStartTimestamp'], new Set()), ['RayID', 'ClientIP', 'EdgeStartTimestamp']);
    assert.deepEqual(tableColumns(['ClientIP', 'RayID', 'EdgeStartTimestamp'], new Set(['ClientIP'])), ['RayID', 'EdgeStartTimestamp']);
    assert.deepEqual(tableColumns(['ClientIP'], new Set()), ['ClientIP']);
  });
});
