/** Live records over NATS are split under the server's message limit without losing or double-counting anything. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { LiveTapOutput } from '../../src/ingest/live-tap.ts';
import { splitLiveOutputs } from '../../src/live/nats-live-bus.ts';

const output = fc.record({
  sessionId: fc.constantFrom('a', 'b', 'c'),
  events: fc.nat(100),
  filteredOut: fc.nat(100),
  sampledOut: fc.nat(100),
  overflow: fc.nat(10),
  lines: fc.array(fc.string({ maxLength: 80 }), { maxLength: 30 }),
});

describe('splitting live records for NATS', () => {
  it('keeps every message under the limit, every record in order, and every count once', () => {
    fc.assert(
      fc.property(fc.array(output, { maxLength: 4 }), fc.integer({ min: 300, max: 3000 }), (outputs, maxBytes) => {
        const messages = splitLiveOutputs(outputs, maxBytes).map((m) => JSON.parse(m) as LiveTapOutput[]);
        const pieces = messages.flat();
        const sum = (list: readonly LiveTapOutput[], key: 'events' | 'filteredOut' | 'sampledOut') => list.reduce((n, o) => n + o[key], 0);
        for (const key of ['events', 'filteredOut', 'sampledOut'] as const) assert.equal(sum(pieces, key), sum(outputs, key));
        // Records arrive in order; one that alone exceeds the limit is counted as overflow instead.
        const sent = pieces.flatMap((o) => o.lines);
        const total = (list: readonly LiveTapOutput[]) => list.reduce((n, o) => n + o.lines.length + o.overflow, 0);
        assert.equal(total(pieces), total(outputs));
        const all = outputs.flatMap((o) => o.lines);
        let at = 0;
        for (const line of sent) {
          at = all.indexOf(line, at);
          assert.ok(at >= 0);
          at += 1;
        }
        for (const [i, m] of splitLiveOutputs(outputs, maxBytes).entries()) {
          const parsed = messages[i] as LiveTapOutput[];
          if (parsed.some((o) => o.lines.length > 0)) assert.ok(Buffer.byteLength(m) <= maxBytes, `message ${i} is ${Buffer.byteLength(m)} bytes`);
        }
      }),
    );
  });
});
