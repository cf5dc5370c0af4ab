import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { membersFirst, printJson, readJson, recordText } from '../../../web/src/model/json-text.ts';

describe('JSON read with its numbers as written', () => {
  it('prints any JSON value as JSON.stringify(value, null, 2) does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const read = readJson(text);
        assert.ok(read !== undefined, text);
        assert.equal(printJson(read), JSON.stringify(JSON.parse(text), null, 2));
      }),
      { numRuns: 300 },
    );
  });

  it('reads text with any white space between tokens', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const spaced = JSON.stringify(value, null, '\t \n');
        assert.equal(printJson(readJson(spaced)!), JSON.stringify(value, null, 2));
      }),
      { numRuns: 100 },
    );
  });

  it('keeps number literals as written, so nanosecond timestamps are not rounded', () => {
    const read = readJson('{"EdgeStartTimestamp":1777716000001000001,"f":1.50,"e":1e3,"n":-0}');
    assert.equal(printJson(read!), '{\n  "EdgeStartTimestamp": 1777716000001000001,\n  "f": 1.50,\n  "e": 1e3,\n  "n": -0\n}');
  });

  const notJson = ['', '{', '{"a":}', '{"a":1,}', '[1,]', '01', '1.', '.5', 'tru', '"\u0001"', '{"a" 1}', '{} {}', "{'a':1}", '[1 2]', 'NaN', '"\\x"'];
  for (const text of notJson) {
    it(`refuses ${JSON.stringify(text)}, as JSON.parse does`, () => {
      assert.equal(readJson(text), undefined);
      assert.throws(() => JSON.parse(text));
    });
  }

  it('moves the named members first, in their order, and keeps the rest in theirs', () => {
    const moved = membersFirst(readJson('{"b":1,"RayID":"r","a":2,"c":3}')!, ['RayID', 'c']);
    assert.equal(printJson(moved), '{\n  "RayID": "r",\n  "c": 3,\n  "b": 1,\n  "a": 2\n}');
  });

  it('shows a record indented with RayID first, and text that is not JSON as it is', () => {
    assert.equal(recordText('{"EdgeStartTimestamp":1777716000001000001,"RayID":"abc","RequestHeaders":{"x-a":"1"}}'), '{\n  "RayID": "abc",\n  "EdgeStartTimestamp": 1777716000001000001,\n  "RequestHeaders": {\n    "x-a": "1"\n  }\n}');
    assert.equal(recordText('not json'), 'not json');
  });
});
