/** What the retained section keeps per event: the request line when it is canonical, else the record. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { retainedText } from '../../src/ingest/retained-text.ts';

const record = { RayID: 'a', EdgeStartTimestamp: '1790000000000000000' };

describe('retained text', () => {
  const cases: [string, string, object | undefined, unknown][] = [
    ['keeps a line with bare nanosecond timestamps as it is', '{"RayID":"a","EdgeStartTimestamp":1790000000000000000}', undefined, { RayID: 'a', EdgeStartTimestamp: 1790000000000000000 }],
    ['trims the line', '  {"RayID":"a","EdgeStartTimestamp" : 1790000000000000000 }\r', undefined, { RayID: 'a', EdgeStartTimestamp: 1790000000000000000 }],
    ['adds what capture found', '{"RayID":"a"}', { RequestHeaders: { 'x-a': 'b' }, Cookies: { s: '1' } }, { RayID: 'a', RequestHeaders: { 'x-a': 'b' }, Cookies: { s: '1' } }],
    ['adds captured fields to an empty line', '{ }', { ResponseHeaders: { server: 'x' } }, { ResponseHeaders: { server: 'x' } }],
    ['adds nothing when capture found nothing', '{"RayID":"a"}', {}, { RayID: 'a' }],
    ['serialises the record when a timestamp is RFC 3339', '{"RayID":"a","EdgeStartTimestamp":"2026-09-21T14:13:20Z"}', undefined, record],
    ['serialises the record when a timestamp is a digit string', '{"RayID":"a","EdgeStartTimestamp":"1790000000000000000"}', undefined, record],
    ['serialises the record when a timestamp has an exponent', '{"RayID":"a","EdgeEndTimestamp":1.79e18}', undefined, record],
  ];
  for (const [what, line, captured, expected] of cases) {
    it(what, () => assert.deepEqual(JSON.parse(retainedText(line, record, captured)), expected));
  }

  it('keeps the raw text exactly, so the writer reads the numbers as sent', () => {
    assert.equal(retainedText('{"EdgeStartTimestamp":1790000000000000123}', record, undefined), '{"EdgeStartTimestamp":1790000000000000123}');
  });
});
