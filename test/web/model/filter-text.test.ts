import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import { filterOperators } from '../../../src/domain/filters/filter-node.ts';
import { defaultFilterLimits, parseFilter } from '../../../src/domain/filters/parse-filter.ts';
import { filterText, operatorSymbols } from '../../../web/src/model/filter-text.ts';

const leaf = (key: string, operator: string, value: unknown) => ({ key, operator, value });
const filter = (where: unknown) => JSON.stringify({ where });

describe('a filter as conditions', () => {
  const cases: readonly [string, string, string][] = [
    ['one condition', filter(leaf('ClientCountry', '!eq', 'ca')), 'ClientCountry ≠ "ca"'],
    [
      'a group inside another, in parentheses',
      filter({ and: [leaf('ClientCountry', '!eq', 'ca'), { or: [leaf('EdgeResponseStatus', 'geq', 500), leaf('ClientRequestPath', 'startsWith', '/api/')] }] }),
      'ClientCountry ≠ "ca" AND (EdgeResponseStatus ≥ 500 OR ClientRequestPath starts with "/api/")',
    ],
    ['a group of one condition, without parentheses', filter({ or: [leaf('EdgeResponseStatus', 'lt', 400)] }), 'EdgeResponseStatus < 400'],
    ['a nested group of one condition', filter({ and: [leaf('ClientCountry', 'eq', 'ca'), { or: [leaf('EdgeResponseStatus', 'leq', 399)] }] }), 'ClientCountry = "ca" AND EdgeResponseStatus ≤ 399'],
    ['lists of values', filter(leaf('EdgeResponseStatus', '!in', [403, 404])), 'EdgeResponseStatus not in (403, 404)'],
    ['a string with a quote, escaped as JSON', filter(leaf('ClientRequestUserAgent', 'contains', 'say "hi"')), 'ClientRequestUserAgent contains "say \\"hi\\""'],
    ['a timestamp beyond 2^53, exactly', '{"where":{"key":"EdgeStartTimestamp","operator":"gt","value":1777716000001000001}}', 'EdgeStartTimestamp > 1777716000001000001'],
    ['a boolean', filter(leaf('CacheReserveUsed', 'eq', true)), 'CacheReserveUsed = true'],
  ];
  for (const [what, text, expected] of cases) {
    it(`reads ${what}`, () => assert.equal(filterText(text), expected));
  }

  it('gives up on what is not a stored filter, so the JSON is shown instead', () => {
    for (const text of ['', 'nope', '{}', '{"where":{}}', filter({ and: [] }), filter({ and: [leaf('A', 'eq', 1)], or: [] }), filter(leaf('A', 'like', 'x')), filter({ key: 'A', operator: 'eq' }), '{"where":{"key":"A","operator":"eq","value":1},"x":1}']) {
      assert.equal(filterText(text), undefined, text);
    }
  });

  it('has a symbol for every operator of the filter language', () => {
    assert.deepEqual(Object.keys(operatorSymbols).sort(), [...filterOperators].sort());
  });

  // Any filter the server accepts reads as conditions naming every field it compares.
  const fieldNames = httpRequests.fields.filter((f) => f.type === 'string').map((f) => f.name);
  const leafArb = fc.record({
    key: fc.constantFrom(...fieldNames),
    operator: fc.constantFrom('eq', '!eq', 'startsWith', 'contains', '!endsWith'),
    value: fc.string({ maxLength: 6 }),
  });
  const { node } = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leafArb, fc.record({ and: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }), fc.record({ or: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) })),
  }));
  it('reads every filter the server accepts, naming each field it compares', () => {
    fc.assert(
      fc.property(node, (where) => {
        const text = filter(where);
        if (!parseFilter(text, httpRequests, defaultFilterLimits).ok) return;
        const shown = filterText(text);
        assert.ok(shown !== undefined, text);
        for (const key of text.match(/"key":"(\w+)"/g) ?? []) assert.ok(shown.includes(key.slice(7, -1)), `${shown} names ${key}`);
      }),
      { numRuns: 200 },
    );
  });
});
