/**
 * The pure parts of the tail: `LOGEXPORT_TAIL` parsing, and splitting read bytes into complete lines with
 * their byte offsets (partial last lines wait, CRLF, non-UTF-8 and oversize lines marked), for any bytes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { forEachLine, type ReadLine } from '../../../src/sources/tail/split-lines.ts';
import { parseTailSpecs } from '../../../src/sources/tail/tail-spec.ts';
import { decodeTailState, emptyTailState, encodeTailState } from '../../../src/sources/tail/tail-status.ts';

describe('LOGEXPORT_TAIL', () => {
  it('takes FORMAT:PATH items separated by semicolons, paths resolved', () => {
    const parsed = parseTailSpecs(' caddy:/var/log/caddy/access.log ; native:logs/x.log;', '/srv');
    assert.deepEqual(parsed, {
      ok: true,
      value: [
        { format: 'caddy', path: '/var/log/caddy/access.log' },
        { format: 'native', path: '/srv/logs/x.log' },
      ],
    });
  });
  const bad: readonly [string, RegExp][] = [
    ['apache:/x.log', /does not start with a format/],
    ['/var/log/x.log', /does not start with a format/],
    ['native:', /has no path/],
    ['native', /does not start with a format|has no path/],
    ['native:/a.log;caddy:/a.log', /listed twice/],
    [' ; ', /no file is listed/],
  ];
  for (const [value, message] of bad) {
    it(`refuses ${JSON.stringify(value)}`, () => {
      const parsed = parseTailSpecs(value, '/');
      assert.ok(!parsed.ok);
      assert.match(parsed.error, message);
    });
  }
});

/** The lines forEachLine hands over, and the bytes it says they took. */
function splitLines(bytes: Buffer, start: number, maxLineBytes: number, final = false): { lines: ReadLine[]; consumed: number } {
  const lines: ReadLine[] = [];
  const consumed = forEachLine(bytes, start, maxLineBytes, final, (line) => lines.push(line));
  return { lines, consumed };
}

describe('splitting lines', () => {
  it('gives complete lines with their offsets and leaves a partial one', () => {
    const result = splitLines(Buffer.from('a\r\nbb\n\nccc'), 100, 10);
    assert.deepEqual(result.lines.map((l) => [l.text, l.offset]), [['a', 100], ['bb', 103], ['', 106]]);
    assert.equal(result.consumed, 7);
    assert.equal(splitLines(Buffer.from('a\nccc'), 0, 10, true).consumed, 5);
  });

  it('marks lines that are not UTF-8 or over the limit', () => {
    const result = splitLines(Buffer.concat([Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from('x'.repeat(20) + '\nok\n')]), 0, 10);
    assert.deepEqual(result.lines.map((l) => [l.notUtf8, l.oversize, l.text]), [[true, false, ''], [false, true, ''], [false, false, 'ok']]);
  });

  it('for any bytes: the lines and the rest add up, offsets point at the lines', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(1000), fc.integer({ min: 1, max: 50 }), (bytes, start, max) => {
        const buffer = Buffer.from(bytes);
        const result = splitLines(buffer, start, max);
        const lastNewline = buffer.lastIndexOf(0x0a);
        assert.equal(result.consumed, lastNewline + 1);
        assert.equal(result.lines.length, buffer.subarray(0, lastNewline + 1).filter((b) => b === 0x0a).length);
        for (const line of result.lines) {
          assert.ok(line.offset >= start && line.offset - start < buffer.length);
          if (!line.oversize && !line.notUtf8) assert.ok(buffer.subarray(line.offset - start).toString('utf8').startsWith(line.text));
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the tail state in a checkpoint', () => {
  it('survives encoding, and garbage decodes to the empty state', () => {
    const state = { ...emptyTailState, fileId: '1:2', offset: 42, linesRead: 3, linesAccepted: 2, linesRejected: 1, lastError: 'x', lastErrorAt: 't' };
    assert.deepEqual(decodeTailState(encodeTailState(state)), state);
    assert.deepEqual(decodeTailState('not json'), emptyTailState);
    assert.deepEqual(decodeTailState('{"offset":-1,"fileId":7}'), emptyTailState);
  });
});
