import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import type { FieldType } from '../../../src/domain/datasets/http-requests.ts';
import { filterOperators } from '../../../src/domain/filters/filter-node.ts';
import type { FilterNode, FilterOperator } from '../../../src/domain/filters/filter-node.ts';
import { defaultFilterLimits, maxFilterDepth, parseFilter } from '../../../src/domain/filters/parse-filter.ts';

const limits = defaultFilterLimits;

function parse(filter: unknown): ReturnType<typeof parseFilter> {
  return parseFilter(typeof filter === 'string' ? filter : JSON.stringify(filter), httpRequests, limits);
}

function leaf(key: string, operator: string, value: unknown): Record<string, unknown> {
  return { key, operator, value };
}

/** Strips the catalogue entry so expected trees can be written by hand. */
function shape(node: FilterNode): unknown {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { [node.kind]: node.children.map(shape) };
    case 'leaf':
      return { key: node.key, operator: node.operator, value: node.value };
  }
}

describe('parseFilter accepts no filter', () => {
  for (const text of [null, undefined, '', '   ', '\n\t ']) {
    it(`treats ${JSON.stringify(text) ?? 'undefined'} as no filter`, () => {
      assert.deepEqual(parseFilter(text, httpRequests, limits), { ok: true, value: null });
    });
  }
});

describe('parseFilter builds the tree of a valid filter', () => {
  const cases: readonly { name: string; filter: unknown; tree: unknown }[] = [
    {
      name: 'a leaf directly under where',
      filter: { where: leaf('ClientCountry', 'eq', 'ca') },
      tree: { key: 'ClientCountry', operator: 'eq', value: 'ca' },
    },
    {
      name: 'an and group of leaves',
      filter: { where: { and: [leaf('ClientCountry', '!eq', 'ca'), leaf('EdgeResponseStatus', 'geq', 500)] } },
      tree: {
        and: [
          { key: 'ClientCountry', operator: '!eq', value: 'ca' },
          { key: 'EdgeResponseStatus', operator: 'geq', value: 500 },
        ],
      },
    },
    {
      name: 'X AND (Y OR Z)',
      filter: {
        where: {
          and: [leaf('ClientRequestHost', 'eq', 'a.example'), { or: [leaf('BotScore', 'lt', 30), leaf('BotTags', 'contains', 'api')] }],
        },
      },
      tree: {
        and: [
          { key: 'ClientRequestHost', operator: 'eq', value: 'a.example' },
          { or: [{ key: 'BotScore', operator: 'lt', value: 30 }, { key: 'BotTags', operator: 'contains', value: 'api' }] },
        ],
      },
    },
    {
      name: '(X AND Y) OR Z',
      filter: { where: { or: [{ and: [leaf('WorkerSubrequest', 'eq', true), leaf('ClientASN', 'eq', 13335)] }, leaf('RayID', 'startsWith', '7f')] } },
      tree: {
        or: [
          { and: [{ key: 'WorkerSubrequest', operator: 'eq', value: true }, { key: 'ClientASN', operator: 'eq', value: 13335 }] },
          { key: 'RayID', operator: 'startsWith', value: '7f' },
        ],
      },
    },
    {
      name: 'a numeric string on an int field as a number',
      filter: { where: leaf('BotScore', 'lt', '30') },
      tree: { key: 'BotScore', operator: 'lt', value: 30 },
    },
    {
      name: 'a numeric string on a float field as a number',
      filter: { where: leaf('EdgeResponseCompressionRatio', 'geq', '1.5') },
      tree: { key: 'EdgeResponseCompressionRatio', operator: 'geq', value: 1.5 },
    },
    {
      name: 'an in list of numbers and numeric strings on an int field as numbers',
      filter: { where: leaf('EdgeResponseStatus', 'in', [200, '404', 503]) },
      tree: { key: 'EdgeResponseStatus', operator: 'in', value: [200, 404, 503] },
    },
    {
      name: 'an in list of strings',
      filter: { where: leaf('ClientCountry', '!in', ['ca', 'us']) },
      tree: { key: 'ClientCountry', operator: '!in', value: ['ca', 'us'] },
    },
    {
      name: 'a timestamp given as a string of digits as an exact bigint',
      filter: { where: leaf('EdgeStartTimestamp', 'geq', '1506702504433000201') },
      tree: { key: 'EdgeStartTimestamp', operator: 'geq', value: 1506702504433000201n },
    },
    {
      name: 'a timestamp given as a JSON number as a bigint',
      filter: { where: leaf('EdgeEndTimestamp', 'lt', 1700000000000000000) },
      tree: { key: 'EdgeEndTimestamp', operator: 'lt', value: 1700000000000000000n },
    },
    {
      name: 'an in list on a timestamp field as bigints',
      filter: { where: leaf('EdgeStartTimestamp', 'in', ['1', 2]) },
      tree: { key: 'EdgeStartTimestamp', operator: 'in', value: [1n, 2n] },
    },
    {
      name: 'contains on an int array with a numeric string as a number',
      filter: { where: leaf('BotDetectionIDs', '!contains', '42') },
      tree: { key: 'BotDetectionIDs', operator: '!contains', value: 42 },
    },
    {
      name: 'an empty string value kept as it is',
      filter: { where: leaf('EdgeServerIP', 'eq', '') },
      tree: { key: 'EdgeServerIP', operator: 'eq', value: '' },
    },
    {
      name: 'a deprecated field like any other',
      filter: { where: leaf('OriginResponseTime', 'gt', 0) },
      tree: { key: 'OriginResponseTime', operator: 'gt', value: 0 },
    },
  ];
  for (const { name, filter, tree } of cases) {
    it(`parses ${name}`, () => {
      const result = parse(filter);
      assert.ok(result.ok, result.ok ? '' : result.error.message);
      assert.ok(result.value !== null);
      assert.deepEqual(shape(result.value), tree);
    });
  }

  it('keeps the catalogue entry of the field on each leaf', () => {
    const result = parse({ where: leaf('BotScore', 'eq', 1) });
    assert.ok(result.ok && result.value?.kind === 'leaf');
    assert.equal(result.value.field, httpRequests.field('BotScore'));
  });

  it('returns a frozen tree', () => {
    const result = parse({ where: { and: [leaf('ClientCountry', 'in', ['ca'])] } });
    assert.ok(result.ok && result.value?.kind === 'and');
    assert.ok(Object.isFrozen(result.value));
    assert.ok(Object.isFrozen(result.value.children));
    const child = result.value.children[0];
    assert.ok(child?.kind === 'leaf' && Object.isFrozen(child) && Object.isFrozen(child.value));
  });
});

describe('parseFilter reports the first problem with its pointer', () => {
  const ok1 = leaf('ClientCountry', 'eq', 'ca');
  const cases: readonly { name: string; filter: unknown; pointer: string; mentions: readonly string[] }[] = [
    // Document level
    { name: 'text that is not JSON', filter: '{"where":', pointer: '', mentions: ['not valid JSON'] },
    { name: 'the JSON text null', filter: 'null', pointer: '', mentions: ['JSON object', 'null'] },
    { name: 'a top level array', filter: [ok1], pointer: '', mentions: ['JSON object', 'array'] },
    { name: 'a top level string', filter: '"where"', pointer: '', mentions: ['JSON object', 'string'] },
    { name: 'a missing where', filter: {}, pointer: '', mentions: ['missing', '"where"'] },
    { name: 'a misspelt where', filter: { Where: ok1 }, pointer: '', mentions: ['missing', '"where"'] },
    { name: 'an extra top level key', filter: { where: ok1, limit: 5 }, pointer: '/limit', mentions: ['unexpected key "limit"', '"where"'] },
    { name: 'a where that is null', filter: { where: null }, pointer: '/where', mentions: ['expected a condition', 'null'] },
    { name: 'a where that is an empty object', filter: { where: {} }, pointer: '/where', mentions: ['expected a condition', 'empty object'] },
    { name: 'a where with unrelated keys', filter: { where: { field: 'x' } }, pointer: '/where', mentions: ['expected a condition', '"field"'] },
    // Groups
    { name: 'an empty and', filter: { where: { and: [] } }, pointer: '/where/and', mentions: ['"and"', 'at least one'] },
    { name: 'an or that is not an array', filter: { where: { or: ok1 } }, pointer: '/where/or', mentions: ['"or"', 'array', 'object'] },
    { name: 'a group with both and and or', filter: { where: { and: [ok1], or: [ok1] } }, pointer: '/where', mentions: ['exactly one of "and" or "or"', 'both'] },
    { name: 'a group that is also a condition', filter: { where: { and: [ok1], key: 'ClientCountry' } }, pointer: '/where', mentions: ['either a group', 'not both'] },
    { name: 'a group with an extra key', filter: { where: { and: [ok1], note: 'x' } }, pointer: '/where/note', mentions: ['unexpected key "note"', '"and"'] },
    { name: 'a child that is a string', filter: { where: { and: [ok1, 'ClientCountry eq ca'] } }, pointer: '/where/and/1', mentions: ['expected a condition', 'string'] },
    { name: 'a nested empty group', filter: { where: { and: [ok1, { or: [] }] } }, pointer: '/where/and/1/or', mentions: ['"or"', 'at least one'] },
    // Condition shape
    { name: 'a condition missing key', filter: { where: { and: [{ operator: 'eq', value: 'ca' }] } }, pointer: '/where/and/0', mentions: ['missing "key"'] },
    { name: 'a condition missing operator', filter: { where: { and: [ok1, { key: 'ClientCountry', value: 'ca' }] } }, pointer: '/where/and/1', mentions: ['missing "operator"'] },
    { name: 'a condition missing value', filter: { where: { key: 'ClientCountry', operator: 'eq' } }, pointer: '/where', mentions: ['missing "value"'] },
    { name: 'a condition with an extra key', filter: { where: { ...ok1, negate: true } }, pointer: '/where/negate', mentions: ['unexpected key "negate"', '"key", "operator" and "value"'] },
    { name: 'an extra key that needs escaping', filter: { where: { ...ok1, 'a/b~c': 1 } }, pointer: '/where/a~1b~0c', mentions: ['unexpected key "a/b~c"'] },
    // Keys
    { name: 'a key that is not a string', filter: { where: leaf2(7, 'eq', 'ca') }, pointer: '/where/key', mentions: ['"key" must be a string', 'number 7'] },
    { name: 'an unknown field', filter: { where: { or: [ok1, leaf('Country', 'eq', 'ca')] } }, pointer: '/where/or/1/key', mentions: ['unknown field "Country"', 'http_requests'] },
    { name: 'a field in the wrong case', filter: { where: leaf('clientcountry', 'eq', 'ca') }, pointer: '/where/key', mentions: ['unknown field "clientcountry"', 'did you mean "ClientCountry"'] },
    { name: 'the Cookies object field', filter: { where: leaf('Cookies', 'eq', 'x') }, pointer: '/where/key', mentions: ['"Cookies"', 'object', 'cannot be filtered'] },
    { name: 'the RequestHeaders object field', filter: { where: leaf('RequestHeaders', 'contains', 'x') }, pointer: '/where/key', mentions: ['"RequestHeaders"', 'cannot be filtered'] },
    { name: 'the ResponseHeaders object field', filter: { where: leaf('ResponseHeaders', 'eq', 'x') }, pointer: '/where/key', mentions: ['"ResponseHeaders"', 'cannot be filtered'] },
    { name: 'the JA4Signals object field', filter: { where: leaf('JA4Signals', 'eq', 'x') }, pointer: '/where/key', mentions: ['"JA4Signals"', 'cannot be filtered'] },
    // Operators
    { name: 'an unknown operator', filter: { where: leaf('ClientCountry', 'like', 'ca') }, pointer: '/where/operator', mentions: ['unknown operator "like"', filterOperators.join(', ')] },
    { name: 'an operator in the wrong case', filter: { where: leaf('ClientCountry', 'EQ', 'ca') }, pointer: '/where/operator', mentions: ['unknown operator "EQ"'] },
    { name: 'an operator that is not a string', filter: { where: leaf2('ClientCountry', null, 'ca') }, pointer: '/where/operator', mentions: ['unknown operator', 'null'] },
    { name: 'lt on a string field', filter: { where: { and: [ok1, leaf('ClientCountry', 'lt', 'x')] } }, pointer: '/where/and/1', mentions: ['operator "lt"', 'int, float and timestamp', 'ClientCountry is a string field'] },
    { name: 'startsWith on an int field', filter: { where: leaf('BotScore', 'startsWith', '3') }, pointer: '/where', mentions: ['operator "startsWith"', 'string fields', 'BotScore is an int field'] },
    { name: 'contains on a bool field', filter: { where: leaf('WorkerSubrequest', 'contains', true) }, pointer: '/where', mentions: ['operator "contains"', 'string array', 'WorkerSubrequest is a bool field'] },
    { name: 'in on a float field', filter: { where: leaf('EdgeResponseCompressionRatio', 'in', [1]) }, pointer: '/where', mentions: ['operator "in"', 'string, int and timestamp', 'float field'] },
    { name: 'eq on an array field', filter: { where: leaf('BotTags', 'eq', 'api') }, pointer: '/where', mentions: ['operator "eq"', 'BotTags is a string array field'] },
    { name: 'gt on a bool field', filter: { where: leaf('CacheReserveUsed', 'gt', 0) }, pointer: '/where', mentions: ['operator "gt"', 'bool field'] },
    // Values
    { name: 'a number on a string field', filter: { where: { or: [leaf('ClientCountry', 'eq', 5)] } }, pointer: '/where/or/0/value', mentions: ['ClientCountry is a string field', 'must be a string', 'number 5'] },
    { name: 'a string "true" on a bool field', filter: { where: leaf('CacheReserveUsed', 'eq', 'true') }, pointer: '/where/value', mentions: ['bool field', 'true or false', 'string "true"'] },
    { name: 'a number on a bool field', filter: { where: leaf('CacheReserveUsed', '!eq', 1) }, pointer: '/where/value', mentions: ['true or false', 'number 1'] },
    { name: 'a fraction on an int field', filter: { where: leaf('BotScore', 'lt', 29.5) }, pointer: '/where/value', mentions: ['BotScore is an int field', 'integer', '29.5'] },
    { name: 'a fractional string on an int field', filter: { where: leaf('BotScore', 'lt', '29.5') }, pointer: '/where/value', mentions: ['integer', 'string "29.5"'] },
    { name: 'a non-numeric string on an int field', filter: { where: leaf('BotScore', 'gt', 'thirty') }, pointer: '/where/value', mentions: ['integer', 'string "thirty"'] },
    { name: 'a padded numeric string on an int field', filter: { where: leaf('BotScore', 'gt', ' 30') }, pointer: '/where/value', mentions: ['integer'] },
    { name: 'an int too large to compare exactly', filter: { where: leaf('ClientASN', 'eq', 2 ** 60) }, pointer: '/where/value', mentions: ['too large', 'ClientASN'] },
    { name: 'a boolean on a float field', filter: { where: leaf('EdgeResponseCompressionRatio', 'eq', true) }, pointer: '/where/value', mentions: ['float field', 'number', 'true'] },
    { name: 'an overflowing number on a float field', filter: '{"where":{"key":"EdgeResponseCompressionRatio","operator":"lt","value":1e999}}', pointer: '/where/value', mentions: ['float field', 'Infinity'] },
    { name: 'a fraction on a timestamp field', filter: { where: leaf('EdgeStartTimestamp', 'gt', 1.5) }, pointer: '/where/value', mentions: ['timestamp field', 'nanoseconds', '1.5'] },
    { name: 'an RFC 3339 string on a timestamp field', filter: { where: leaf('EdgeStartTimestamp', 'gt', '2024-01-01T00:00:00Z') }, pointer: '/where/value', mentions: ['timestamp field', 'nanoseconds', '2024-01-01'] },
    { name: 'a number element for a string array', filter: { where: leaf('BotTags', 'contains', 1) }, pointer: '/where/value', mentions: ['BotTags is a string array field', 'element', 'string'] },
    { name: 'a string element for an int array', filter: { where: leaf('BotDetectionIDs', 'contains', 'x') }, pointer: '/where/value', mentions: ['BotDetectionIDs is an int array field', 'integer'] },
    { name: 'an array value for eq', filter: { where: leaf('ClientCountry', 'eq', ['ca']) }, pointer: '/where/value', mentions: ['must be a string', 'array'] },
    { name: 'a null value', filter: { where: leaf('ClientCountry', 'eq', null) }, pointer: '/where/value', mentions: ['must be a string', 'null'] },
    // in / !in
    { name: 'a comma-separated string for in', filter: { where: leaf('EdgeResponseStatus', 'in', '200,201') }, pointer: '/where/value', mentions: ['JSON array', 'comma-separated', '"200,201"'] },
    { name: 'a single number for !in', filter: { where: leaf('EdgeResponseStatus', '!in', 200) }, pointer: '/where/value', mentions: ['"!in"', 'JSON array', 'number 200'] },
    { name: 'an empty list for in', filter: { where: leaf('ClientCountry', 'in', []) }, pointer: '/where/value', mentions: ['at least one value'] },
    { name: 'a wrong item in an in list', filter: { where: leaf('EdgeResponseStatus', 'in', [200, 'ok', 404]) }, pointer: '/where/value/1', mentions: ['EdgeResponseStatus is an int field', 'each value in the list', 'string "ok"'] },
    { name: 'a number in a string in list', filter: { where: leaf('ClientCountry', 'in', ['ca', 1]) }, pointer: '/where/value/1', mentions: ['ClientCountry is a string field', 'number 1'] },
    { name: 'a nested list in an in list', filter: { where: leaf('ClientCountry', 'in', [['ca']]) }, pointer: '/where/value/0', mentions: ['must be a string', 'array'] },
  ];
  for (const { name, filter, pointer, mentions } of cases) {
    it(`rejects ${name} at "${pointer}"`, () => {
      const result = parse(filter);
      assert.ok(!result.ok, 'expected a problem');
      assert.equal(result.error.pointer, pointer, result.error.message);
      assert.ok(result.error.message.startsWith(pointer === '' ? 'filter: ' : `${pointer}: `), result.error.message);
      for (const text of mentions) assert.ok(result.error.message.includes(text), `"${result.error.message}" should mention ${text}`);
    });
  }

  it('reports the earlier of two problems in document order', () => {
    const result = parse({ where: { and: [leaf('ClientCountry', 'eq', 1), leaf('Nope', 'eq', 'x')] } });
    assert.ok(!result.ok);
    assert.equal(result.error.pointer, '/where/and/0/value');
  });

  it('reports a bad where before an extra key that follows it', () => {
    const result = parse('{"where":{"and":[]},"extra":1}');
    assert.ok(!result.ok);
    assert.equal(result.error.pointer, '/where/and');
  });

  it('reports an extra key that comes before where first', () => {
    const result = parse('{"extra":1,"where":{"and":[]}}');
    assert.ok(!result.ok);
    assert.equal(result.error.pointer, '/extra');
  });

  it('shortens very long names in messages', () => {
    const result = parse({ where: leaf('x'.repeat(500), 'eq', 'ca') });
    assert.ok(!result.ok);
    assert.ok(result.error.message.length < 200, result.error.message);
  });
});

describe('parseFilter guards against deep nesting', () => {
  function nested(depth: number): unknown {
    let node: unknown = leaf('ClientCountry', 'eq', 'ca');
    for (let i = 0; i < depth; i += 1) node = { and: [node] };
    return { where: node };
  }
  const roomy = { maxOperators: 30, maxBytes: 100_000 };

  it(`accepts groups nested ${maxFilterDepth} deep`, () => {
    assert.ok(parseFilter(JSON.stringify(nested(maxFilterDepth)), httpRequests, roomy).ok);
  });

  it(`rejects groups nested ${maxFilterDepth + 1} deep at the first group too deep`, () => {
    const result = parseFilter(JSON.stringify(nested(maxFilterDepth + 1)), httpRequests, roomy);
    assert.ok(!result.ok);
    assert.equal(result.error.pointer, `/where${'/and/0'.repeat(maxFilterDepth)}`);
    assert.ok(result.error.message.includes(`at most ${maxFilterDepth} levels`), result.error.message);
  });

  it('answers with a problem, not a stack overflow, for arrays nested a million deep', () => {
    const text = `{"where":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`;
    const result = parseFilter(text, httpRequests, { maxOperators: 30, maxBytes: 10_000_000 });
    assert.ok(!result.ok);
    assert.equal(result.error.pointer, '/where');
  });

  it('answers with a problem for groups nested ten thousand deep', () => {
    const text = `{"where":${'{"or":['.repeat(10_000)}1${']}'.repeat(10_000)}}`;
    const result = parseFilter(text, httpRequests, { maxOperators: 30, maxBytes: 10_000_000 });
    assert.ok(!result.ok);
    assert.ok(result.error.message.includes('levels'), result.error.message);
  });
});

describe('parseFilter applies each operator to exactly the field types it supports', () => {
  const representative: Readonly<Record<Exclude<FieldType, 'object'>, { key: string; value: unknown }>> = {
    string: { key: 'ClientCountry', value: 'ca' },
    int: { key: 'EdgeResponseStatus', value: 200 },
    float: { key: 'EdgeResponseCompressionRatio', value: 1.25 },
    bool: { key: 'CacheTieredFill', value: true },
    timestamp: { key: 'EdgeStartTimestamp', value: '1700000000000000000' },
    'string[]': { key: 'SecuritySources', value: 'waf' },
    'int[]': { key: 'ContentScanObjSizes', value: 10 },
  };
  // Written out independently of the implementation's table, from the design's list.
  const supported: Readonly<Record<FilterOperator, readonly string[]>> = {
    eq: ['string', 'int', 'float', 'bool', 'timestamp'],
    '!eq': ['string', 'int', 'float', 'bool', 'timestamp'],
    lt: ['int', 'float', 'timestamp'],
    leq: ['int', 'float', 'timestamp'],
    gt: ['int', 'float', 'timestamp'],
    geq: ['int', 'float', 'timestamp'],
    startsWith: ['string'],
    endsWith: ['string'],
    '!startsWith': ['string'],
    '!endsWith': ['string'],
    contains: ['string', 'string[]', 'int[]'],
    '!contains': ['string', 'string[]', 'int[]'],
    in: ['string', 'int', 'timestamp'],
    '!in': ['string', 'int', 'timestamp'],
  };
  for (const operator of filterOperators) {
    for (const [type, { key, value }] of Object.entries(representative)) {
      const allowed = supported[operator].includes(type);
      it(`${allowed ? 'accepts' : 'rejects'} ${operator} on ${type} field ${key}`, () => {
        const operand = operator === 'in' || operator === '!in' ? [value] : value;
        const result = parse({ where: leaf(key, operator, operand) });
        if (allowed) {
          assert.ok(result.ok, result.ok ? '' : result.error.message);
        } else {
          assert.ok(!result.ok);
          assert.equal(result.error.pointer, '/where');
          assert.ok(result.error.message.includes(`operator "${operator}" applies to`), result.error.message);
        }
      });
    }
  }

  it('rejects every object field of the catalogue, whatever the operator', () => {
    const objectFields = httpRequests.fields.filter((field) => field.type === 'object');
    assert.ok(objectFields.length >= 4);
    for (const field of objectFields) {
      for (const operator of filterOperators) {
        const result = parse({ where: leaf(field.name, operator, 'x') });
        assert.ok(!result.ok);
        assert.equal(result.error.pointer, '/where/key');
      }
    }
  });
});

function leaf2(key: unknown, operator: unknown, value: unknown): Record<string, unknown> {
  return { key, operator, value };
}
