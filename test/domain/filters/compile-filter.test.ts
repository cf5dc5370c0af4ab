import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import type { EventRecord } from '../../../src/domain/datasets/event-record.ts';
import { compileFilter } from '../../../src/domain/filters/compile-filter.ts';
import type { FilterPredicate } from '../../../src/domain/filters/compile-filter.ts';
import { filterLeaf } from '../../../src/domain/filters/filter-node.ts';
import { defaultFilterLimits, parseFilter } from '../../../src/domain/filters/parse-filter.ts';

function compile(where: unknown): FilterPredicate {
  const parsed = parseFilter(JSON.stringify({ where }), httpRequests, defaultFilterLimits);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return compileFilter(parsed.value);
}

function leaf(key: string, operator: string, value: unknown): Record<string, unknown> {
  return { key, operator, value };
}

interface Case {
  readonly where: unknown;
  readonly record: EventRecord;
  readonly expected: boolean;
}

function runCases(cases: readonly Case[]): void {
  for (const { where, record, expected } of cases) {
    const l = where as Record<string, unknown>;
    const condition = 'key' in l ? `${String(l.key)} ${String(l.operator)} ${JSON.stringify(l.value)}` : JSON.stringify(where);
    it(`${expected ? 'keeps' : 'drops'} ${JSON.stringify(record)} for ${condition}`, () => {
      assert.equal(compile(where)(record), expected);
    });
  }
}

describe('compileFilter without a filter', () => {
  it('keeps every record', () => {
    const predicate = compileFilter(null);
    assert.equal(predicate({}), true);
    assert.equal(predicate({ ClientCountry: 'ca' }), true);
  });
});

describe('compileFilter on string fields', () => {
  runCases([
    { where: leaf('ClientCountry', 'eq', 'ca'), record: { ClientCountry: 'ca' }, expected: true },
    { where: leaf('ClientCountry', 'eq', 'ca'), record: { ClientCountry: 'CA' }, expected: false },
    { where: leaf('ClientCountry', 'eq', 'ca'), record: { ClientCountry: 'cat' }, expected: false },
    { where: leaf('ClientCountry', '!eq', 'ca'), record: { ClientCountry: 'ca' }, expected: false },
    { where: leaf('ClientCountry', '!eq', 'ca'), record: { ClientCountry: 'CA' }, expected: true },
    { where: leaf('EdgeServerIP', 'eq', ''), record: { EdgeServerIP: '' }, expected: true },
    { where: leaf('ClientRequestPath', 'startsWith', '/api/'), record: { ClientRequestPath: '/api/v1' }, expected: true },
    { where: leaf('ClientRequestPath', 'startsWith', '/api/'), record: { ClientRequestPath: '/API/v1' }, expected: false },
    { where: leaf('ClientRequestPath', '!startsWith', '/api/'), record: { ClientRequestPath: '/static/a' }, expected: true },
    { where: leaf('ClientRequestPath', '!startsWith', '/api/'), record: { ClientRequestPath: '/api/v1' }, expected: false },
    { where: leaf('ClientRequestPath', 'endsWith', '.php'), record: { ClientRequestPath: '/index.php' }, expected: true },
    { where: leaf('ClientRequestPath', 'endsWith', '.php'), record: { ClientRequestPath: '/index.PHP' }, expected: false },
    { where: leaf('ClientRequestPath', '!endsWith', '.php'), record: { ClientRequestPath: '/index.html' }, expected: true },
    { where: leaf('ClientRequestPath', '!endsWith', '.php'), record: { ClientRequestPath: '/index.php' }, expected: false },
    { where: leaf('ClientRequestUserAgent', 'contains', 'bot'), record: { ClientRequestUserAgent: 'googlebot/2.1' }, expected: true },
    { where: leaf('ClientRequestUserAgent', 'contains', 'bot'), record: { ClientRequestUserAgent: 'GoogleBot' }, expected: false },
    { where: leaf('ClientRequestUserAgent', '!contains', 'bot'), record: { ClientRequestUserAgent: 'curl/8' }, expected: true },
    { where: leaf('ClientRequestUserAgent', '!contains', 'bot'), record: { ClientRequestUserAgent: 'a bot' }, expected: false },
    { where: leaf('ClientCountry', 'in', ['ca', 'us']), record: { ClientCountry: 'us' }, expected: true },
    { where: leaf('ClientCountry', 'in', ['ca', 'us']), record: { ClientCountry: 'US' }, expected: false },
    { where: leaf('ClientCountry', '!in', ['ca', 'us']), record: { ClientCountry: 'de' }, expected: true },
    { where: leaf('ClientCountry', '!in', ['ca', 'us']), record: { ClientCountry: 'ca' }, expected: false },
  ]);
});

describe('compileFilter on int fields', () => {
  runCases([
    { where: leaf('EdgeResponseStatus', 'eq', 404), record: { EdgeResponseStatus: 404 }, expected: true },
    { where: leaf('EdgeResponseStatus', 'eq', '404'), record: { EdgeResponseStatus: 404 }, expected: true },
    { where: leaf('EdgeResponseStatus', 'eq', 404), record: { EdgeResponseStatus: 200 }, expected: false },
    { where: leaf('EdgeResponseStatus', '!eq', 404), record: { EdgeResponseStatus: 200 }, expected: true },
    { where: leaf('EdgeResponseStatus', '!eq', 404), record: { EdgeResponseStatus: 404 }, expected: false },
    { where: leaf('BotScore', 'lt', '30'), record: { BotScore: 29 }, expected: true },
    { where: leaf('BotScore', 'lt', 30), record: { BotScore: 30 }, expected: false },
    { where: leaf('BotScore', 'leq', 30), record: { BotScore: 30 }, expected: true },
    { where: leaf('BotScore', 'leq', 30), record: { BotScore: 31 }, expected: false },
    { where: leaf('BotScore', 'gt', 30), record: { BotScore: 31 }, expected: true },
    { where: leaf('BotScore', 'gt', 30), record: { BotScore: 30 }, expected: false },
    { where: leaf('BotScore', 'geq', 30), record: { BotScore: 30 }, expected: true },
    { where: leaf('BotScore', 'geq', 30), record: { BotScore: 29 }, expected: false },
    { where: leaf('BotScore', 'gt', -1), record: { BotScore: 0 }, expected: true },
    { where: leaf('EdgeResponseStatus', 'in', [500, '503']), record: { EdgeResponseStatus: 503 }, expected: true },
    { where: leaf('EdgeResponseStatus', 'in', [500, 503]), record: { EdgeResponseStatus: 502 }, expected: false },
    { where: leaf('EdgeResponseStatus', '!in', [500, 503]), record: { EdgeResponseStatus: 200 }, expected: true },
    { where: leaf('EdgeResponseStatus', '!in', [500, 503]), record: { EdgeResponseStatus: 500 }, expected: false },
  ]);
});

describe('compileFilter on float fields', () => {
  runCases([
    { where: leaf('EdgeResponseCompressionRatio', 'eq', 1.5), record: { EdgeResponseCompressionRatio: 1.5 }, expected: true },
    { where: leaf('EdgeResponseCompressionRatio', '!eq', '1.5'), record: { EdgeResponseCompressionRatio: 1.25 }, expected: true },
    { where: leaf('EdgeResponseCompressionRatio', 'lt', 2), record: { EdgeResponseCompressionRatio: 1.99 }, expected: true },
    { where: leaf('EdgeResponseCompressionRatio', 'leq', '2.0'), record: { EdgeResponseCompressionRatio: 2 }, expected: true },
    { where: leaf('EdgeResponseCompressionRatio', 'gt', 2), record: { EdgeResponseCompressionRatio: 2 }, expected: false },
    { where: leaf('EdgeResponseCompressionRatio', 'geq', 2.5), record: { EdgeResponseCompressionRatio: 2.5 }, expected: true },
  ]);
});

describe('compileFilter on bool fields', () => {
  runCases([
    { where: leaf('WorkerSubrequest', 'eq', true), record: { WorkerSubrequest: true }, expected: true },
    { where: leaf('WorkerSubrequest', 'eq', true), record: { WorkerSubrequest: false }, expected: false },
    { where: leaf('WorkerSubrequest', 'eq', false), record: { WorkerSubrequest: false }, expected: true },
    { where: leaf('WorkerSubrequest', '!eq', true), record: { WorkerSubrequest: false }, expected: true },
    { where: leaf('WorkerSubrequest', '!eq', true), record: { WorkerSubrequest: true }, expected: false },
  ]);
});

describe('compileFilter on timestamp fields compares nanoseconds exactly', () => {
  const t = '1506702504433000200';
  runCases([
    { where: leaf('EdgeStartTimestamp', 'eq', t), record: { EdgeStartTimestamp: t }, expected: true },
    { where: leaf('EdgeStartTimestamp', 'eq', '1506702504433000201'), record: { EdgeStartTimestamp: t }, expected: false },
    { where: leaf('EdgeStartTimestamp', '!eq', '1506702504433000201'), record: { EdgeStartTimestamp: t }, expected: true },
    { where: leaf('EdgeStartTimestamp', 'lt', '1506702504433000201'), record: { EdgeStartTimestamp: t }, expected: true },
    { where: leaf('EdgeStartTimestamp', 'lt', t), record: { EdgeStartTimestamp: t }, expected: false },
    { where: leaf('EdgeStartTimestamp', 'leq', t), record: { EdgeStartTimestamp: t }, expected: true },
    { where: leaf('EdgeStartTimestamp', 'gt', '1506702504433000199'), record: { EdgeStartTimestamp: t }, expected: true },
    { where: leaf('EdgeStartTimestamp', 'gt', t), record: { EdgeStartTimestamp: t }, expected: false },
    { where: leaf('EdgeEndTimestamp', 'geq', t), record: { EdgeEndTimestamp: t }, expected: true },
    { where: leaf('EdgeEndTimestamp', 'geq', 1506702504433000000), record: { EdgeEndTimestamp: t }, expected: true },
    { where: leaf('EdgeStartTimestamp', 'in', ['1', t]), record: { EdgeStartTimestamp: t }, expected: true },
    { where: leaf('EdgeStartTimestamp', 'in', ['1506702504433000201']), record: { EdgeStartTimestamp: t }, expected: false },
    { where: leaf('EdgeStartTimestamp', '!in', ['1506702504433000201']), record: { EdgeStartTimestamp: t }, expected: true },
    { where: leaf('EdgeStartTimestamp', '!in', [t]), record: { EdgeStartTimestamp: t }, expected: false },
  ]);
});

describe('compileFilter on array fields tests membership', () => {
  runCases([
    { where: leaf('SecuritySources', 'contains', 'waf'), record: { SecuritySources: ['rateLimit', 'waf'] }, expected: true },
    { where: leaf('SecuritySources', 'contains', 'wa'), record: { SecuritySources: ['waf'] }, expected: false },
    { where: leaf('SecuritySources', 'contains', 'waf'), record: { SecuritySources: [] }, expected: false },
    { where: leaf('SecuritySources', '!contains', 'waf'), record: { SecuritySources: ['rateLimit'] }, expected: true },
    { where: leaf('SecuritySources', '!contains', 'waf'), record: { SecuritySources: ['waf'] }, expected: false },
    { where: leaf('BotDetectionIDs', 'contains', 7), record: { BotDetectionIDs: [3, 7] }, expected: true },
    { where: leaf('BotDetectionIDs', 'contains', '7'), record: { BotDetectionIDs: [3, 7] }, expected: true },
    { where: leaf('BotDetectionIDs', 'contains', 7), record: { BotDetectionIDs: ['7'] }, expected: false },
    { where: leaf('BotDetectionIDs', '!contains', 7), record: { BotDetectionIDs: [3] }, expected: true },
  ]);
});

describe('compileFilter treats an absent, null or mistyped field as absent', () => {
  const positive = [
    leaf('ClientCountry', 'eq', 'ca'),
    leaf('BotScore', 'lt', 30),
    leaf('BotScore', 'leq', 30),
    leaf('BotScore', 'gt', 30),
    leaf('BotScore', 'geq', 30),
    leaf('ClientRequestPath', 'startsWith', '/'),
    leaf('ClientRequestPath', 'endsWith', '/'),
    leaf('ClientRequestPath', 'contains', ''),
    leaf('SecuritySources', 'contains', 'waf'),
    leaf('EdgeResponseStatus', 'in', [200]),
    leaf('WorkerSubrequest', 'eq', false),
    leaf('EdgeStartTimestamp', 'geq', 0),
    leaf('EdgeResponseCompressionRatio', 'lt', 10),
  ];
  const negate = (l: Record<string, unknown>): Record<string, unknown> => ({ ...l, operator: `!${String(l.operator)}` });
  const negative = positive.filter((l) => !['lt', 'leq', 'gt', 'geq'].includes(String(l.operator))).map(negate);

  for (const condition of positive) {
    const key = String(condition.key);
    it(`a positive ${key} ${String(condition.operator)} is false when the field is missing or null`, () => {
      const predicate = compile(condition);
      assert.equal(predicate({}), false);
      assert.equal(predicate({ [key]: null }), false);
    });
  }
  for (const condition of negative) {
    const key = String(condition.key);
    it(`a negated ${key} ${String(condition.operator)} is true when the field is missing or null`, () => {
      const predicate = compile(condition);
      assert.equal(predicate({}), true);
      assert.equal(predicate({ [key]: null }), true);
    });
  }

  runCases([
    { where: leaf('BotScore', 'lt', 30), record: { BotScore: '10' }, expected: false },
    { where: leaf('BotScore', 'eq', 10), record: { BotScore: '10' }, expected: false },
    { where: leaf('BotScore', '!eq', 10), record: { BotScore: '10' }, expected: true },
    { where: leaf('BotScore', 'lt', 30), record: { BotScore: 10.5 }, expected: false },
    { where: leaf('BotScore', 'in', [10]), record: { BotScore: '10' }, expected: false },
    { where: leaf('BotScore', '!in', [10]), record: { BotScore: '10' }, expected: true },
    { where: leaf('ClientCountry', 'eq', 'ca'), record: { ClientCountry: ['ca'] }, expected: false },
    { where: leaf('ClientCountry', '!startsWith', 'c'), record: { ClientCountry: 7 }, expected: true },
    { where: leaf('ClientRequestUserAgent', 'contains', 'bot'), record: { ClientRequestUserAgent: ['bot'] }, expected: false },
    { where: leaf('SecuritySources', 'contains', 'waf'), record: { SecuritySources: 'waf' }, expected: false },
    { where: leaf('SecuritySources', '!contains', 'waf'), record: { SecuritySources: 'waf' }, expected: true },
    { where: leaf('WorkerSubrequest', 'eq', true), record: { WorkerSubrequest: 'true' }, expected: false },
    { where: leaf('EdgeStartTimestamp', 'gt', 0), record: { EdgeStartTimestamp: 1506702504433000200 }, expected: false },
    { where: leaf('EdgeStartTimestamp', 'gt', 0), record: { EdgeStartTimestamp: '2017-09-29T16:28:24Z' }, expected: false },
    { where: leaf('EdgeStartTimestamp', 'gt', 0), record: { EdgeStartTimestamp: '' }, expected: false },
    { where: leaf('EdgeStartTimestamp', '!eq', 0), record: { EdgeStartTimestamp: '0x10' }, expected: true },
    { where: leaf('EdgeResponseCompressionRatio', 'gt', 0), record: { EdgeResponseCompressionRatio: Number.NaN }, expected: false },
  ]);
});

describe('compileFilter combines groups', () => {
  // X AND (Y OR Z)
  const xAndYOrZ = {
    and: [leaf('ClientCountry', 'eq', 'ca'), { or: [leaf('EdgeResponseStatus', 'geq', 500), leaf('BotScore', 'lt', 30)] }],
  };
  // (X AND Y) OR Z
  const xAndYOrZGrouped = {
    or: [{ and: [leaf('ClientCountry', 'eq', 'ca'), leaf('EdgeResponseStatus', 'geq', 500)] }, leaf('BotScore', 'lt', 30)],
  };
  runCases([
    { where: xAndYOrZ, record: { ClientCountry: 'ca', EdgeResponseStatus: 503, BotScore: 90 }, expected: true },
    { where: xAndYOrZ, record: { ClientCountry: 'ca', EdgeResponseStatus: 200, BotScore: 10 }, expected: true },
    { where: xAndYOrZ, record: { ClientCountry: 'ca', EdgeResponseStatus: 200, BotScore: 90 }, expected: false },
    { where: xAndYOrZ, record: { ClientCountry: 'us', EdgeResponseStatus: 503, BotScore: 10 }, expected: false },
    { where: xAndYOrZ, record: { ClientCountry: 'ca' }, expected: false },
    { where: xAndYOrZGrouped, record: { ClientCountry: 'ca', EdgeResponseStatus: 503, BotScore: 90 }, expected: true },
    { where: xAndYOrZGrouped, record: { ClientCountry: 'us', EdgeResponseStatus: 503, BotScore: 10 }, expected: true },
    { where: xAndYOrZGrouped, record: { ClientCountry: 'us', EdgeResponseStatus: 503, BotScore: 90 }, expected: false },
    { where: xAndYOrZGrouped, record: { ClientCountry: 'ca', EdgeResponseStatus: 200 }, expected: false },
    { where: { and: [leaf('ClientCountry', 'eq', 'ca')] }, record: { ClientCountry: 'ca' }, expected: true },
    { where: { or: [leaf('ClientCountry', 'eq', 'ca')] }, record: { ClientCountry: 'us' }, expected: false },
    {
      where: { and: [{ or: [{ and: [leaf('ClientCountry', '!eq', 'ca')] }] }, leaf('RayID', '!in', ['a'])] },
      record: {},
      expected: true,
    },
  ]);
});

describe('compileFilter on a hand-built tree', () => {
  it('refuses a leaf whose value does not suit its operator', () => {
    const field = httpRequests.field('BotScore');
    assert.ok(field !== undefined);
    assert.throws(() => compileFilter(filterLeaf(field, 'in', 5)), /wrong type/);
  });
});
