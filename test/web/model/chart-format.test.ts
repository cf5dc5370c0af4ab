/** How chart values read, and the colour of each status class. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bytesText, seriesColour, tickText, figureText } from '../../../web/src/model/chart-format.ts';

describe('chart values', () => {
  const bytes: readonly [number, string][] = [
    [0, '0 B'],
    [1023, '1,023 B'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [20 * 1024 * 1024, '20 MiB'],
    [3 * 1024 ** 4, '3.0 TiB'],
  ];
  for (const [n, text] of bytes) it(`writes ${n} bytes as ${text}`, () => assert.equal(bytesText(n), text));

  it('writes ticks short and values whole', () => {
    assert.equal(tickText(1500, 'requests'), '1.5K');
    assert.equal(tickText(12, 'percent'), '12%');
    assert.equal(figureText(1500, 'requests'), '1,500');
    assert.equal(figureText(12.5, 'percent'), '12.50%');
    assert.equal(figureText(null, 'requests'), '—');
  });

  it('gives each status class its colour, 5xx red, and other series a palette colour', () => {
    assert.equal(seriesColour('5xx', 0), '#b3261e');
    assert.equal(seriesColour('server_errors_pct', 1), '#b3261e');
    assert.notEqual(seriesColour('requests', 0), seriesColour('bytes', 1));
  });
});
