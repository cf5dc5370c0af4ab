import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import type { DatasetField, FieldType } from '../../../src/domain/datasets/http-requests.ts';
import type { EventRecord } from '../../../src/domain/datasets/event-record.ts';
import { compileFilter } from '../../../src/domain/filters/compile-filter.ts';
import { filterOperators } from '../../../src/domain/filters/filter-node.ts';
import type { FilterOperator } from '../../../src/domain/filters/filter-node.ts';
import { defaultFilterLimits, parseFilter } from '../../../src/domain/filters/parse-filter.ts';
import type { FilterProblem } from '../../../src/domain/filters/parse-filter.ts';

type Json = unknown;

const filterable = httpRequests.fields.filter((field) => field.type !== 'object');

// The design's operator table, restated here so the generator does not trust the code under test.
const operatorsFor: Readonly<Record<Exclude<FieldType, 'object'>, readonly FilterOperator[]>> = {
  string: ['eq', '!eq', 'startsWith', 'endsWith', '!startsWith', '!endsWith', 'contains', '!contains', 'in', '!in'],
  int: ['eq', '!eq', 'lt', 'leq', 'gt', 'geq', 'in', '!in'],
  float: ['eq', '!eq', 'lt', 'leq', 'gt', 'geq'],
  bool: ['eq', '!eq'],
  timestamp: ['eq', '!eq', 'lt', 'leq', 'gt', 'geq', 'in', '!in'],
  'string[]': ['contains', '!contains'],
  'int[]': ['contains', '!contains'],
};

function scalarType(field: DatasetField): Exclude<FieldType, 'object' | 'string[]' | 'int[]'> {
  if (field.type === 'string[]') return 'string';
  if (field.type === 'int[]') return 'int';
  if (field.type === 'object') throw new Error('object fields are not filterable');
  return field.type;
}

// Small pools, shared by filter values and record values, so conditions match often enough to matter.
const strings = fc.constantFrom('', 'a', 'ab', 'ba', 'ca', 'CA', 'é', '/api/x');
const ints = fc.integer({ min: -3, max: 40 });
const floats = fc.constantFrom(-1.5, 0, 0.5, 1, 2.25, 40);
const nanos = fc.constantFrom(0n, 1n, 1506702504433000199n, 1506702504433000200n, 1506702504433000201n, 2n ** 63n);

/** A type-correct filter value in any of the accepted spellings. */
function filterScalar(type: ReturnType<typeof scalarType>): fc.Arbitrary<Json> {
  switch (type) {
    case 'string':
      return strings;
    case 'int':
      return fc.oneof(ints, ints.map(String));
    case 'float':
      return fc.oneof(floats, floats.map(String));
    case 'bool':
      return fc.boolean();
    case 'timestamp':
      return fc.oneof(nanos.map(String), fc.constantFrom(0, 1, 4096));
  }
}

/** A record value: usually of the right type, sometimes absent-like or of a wrong type. */
function recordValue(field: DatasetField): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(fc.constant(null), fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}));
  const right = ((): fc.Arbitrary<unknown> => {
    switch (field.type) {
      case 'string':
        return strings;
      case 'int':
        return ints;
      case 'float':
        return floats;
      case 'bool':
        return fc.boolean();
      case 'timestamp':
        return nanos.map(String);
      case 'string[]':
        return fc.array(strings, { maxLength: 3 });
      case 'int[]':
        return fc.array(ints, { maxLength: 3 });
      case 'object':
        return fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 });
    }
  })();
  return fc.oneof({ arbitrary: right, weight: 4 }, { arbitrary: wrong, weight: 1 });
}

const leafArb: fc.Arbitrary<Json> = fc.constantFrom(...filterable).chain((field) => {
  const type = field.type as Exclude<FieldType, 'object'>;
  return fc.constantFrom(...operatorsFor[type]).chain((operator) => {
    const value =
      operator === 'in' || operator === '!in'
        ? fc.array(filterScalar(scalarType(field)), { minLength: 1, maxLength: 3 })
        : filterScalar(scalarType(field));
    return value.map((v) => ({ key: field.name, operator, value: v }));
  });
});

const nodeArb: fc.Arbitrary<Json> = fc.letrec<{ node: Json }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafArb,
    fc.array(tie('node'), { minLength: 1, maxLength: 4 }).map((children) => ({ and: children })),
    fc.array(tie('node'), { minLength: 1, maxLength: 4 }).map((children) => ({ or: children })),
  ),
})).node;

function countLeaves(node: Json): number {
  const group = node as { and?: Json[]; or?: Json[] };
  const children = group.and ?? group.or;
  return children === undefined ? 1 : children.reduce<number>((sum, child) => sum + countLeaves(child), 0);
}

const wellFormedFilter = nodeArb
  .map((node) => JSON.stringify({ where: node }))
  .filter((text) => Buffer.byteLength(text) <= defaultFilterLimits.maxBytes)
  .filter((text) => countLeaves((JSON.parse(text) as { where: Json }).where) <= defaultFilterLimits.maxOperators);

const recordArb: fc.Arbitrary<EventRecord> = fc
  .tuple(...filterable.map((field) => fc.option(recordValue(field), { nil: undefined, freq: 3 })))
  .map((values) => {
    const record: Record<string, unknown> = {};
    values.forEach((value, index) => {
      const field = filterable[index];
      if (field !== undefined && value !== undefined) record[field.name] = value;
    });
    return record;
  });

// A deliberately naive interpreter of the raw filter JSON, used as the oracle for compiled predicates.
function evaluate(node: Json, record: EventRecord): boolean {
  const group = node as { and?: Json[]; or?: Json[] };
  if (group.and !== undefined) return group.and.every((child) => evaluate(child, record));
  if (group.or !== undefined) return group.or.some((child) => evaluate(child, record));
  const { key, operator, value } = node as { key: string; operator: FilterOperator; value: Json };
  const field = httpRequests.field(key);
  if (field === undefined) throw new Error(`unknown field ${key}`);
  const negated = operator.startsWith('!');
  const base = negated ? operator.slice(1) : operator;
  const actual = readRecord(field, record[key]);
  if (actual === undefined) return negated;
  const want = (raw: Json): unknown => normalise(field, raw);
  let holds: boolean;
  switch (base) {
    case 'eq':
      holds = actual === want(value);
      break;
    case 'lt':
      holds = (actual as number) < (want(value) as number);
      break;
    case 'leq':
      holds = (actual as number) <= (want(value) as number);
      break;
    case 'gt':
      holds = (actual as number) > (want(value) as number);
      break;
    case 'geq':
      holds = (actual as number) >= (want(value) as number);
      break;
    case 'startsWith':
      holds = (actual as string).startsWith(want(value) as string);
      break;
    case 'endsWith':
      holds = (actual as string).endsWith(want(value) as string);
      break;
    case 'contains':
      holds = Array.isArray(actual) ? actual.some((item) => item === want(value)) : (actual as string).includes(want(value) as string);
      break;
    case 'in':
      holds = (value as Json[]).some((item) => want(item) === actual);
      break;
    default:
      throw new Error(`unknown operator ${operator}`);
  }
  return negated ? !holds : holds;
}

function readRecord(field: DatasetField, raw: unknown): unknown {
  switch (field.type) {
    case 'string':
      return typeof raw === 'string' ? raw : undefined;
    case 'int':
      return typeof raw === 'number' && Number.isInteger(raw) ? raw : undefined;
    case 'float':
      return typeof raw === 'number' && Number.isFinite(raw) ? raw : undefined;
    case 'bool':
      return typeof raw === 'boolean' ? raw : undefined;
    case 'timestamp':
      return typeof raw === 'string' && /^-?[0-9]+$/.test(raw) ? BigInt(raw) : undefined;
    case 'string[]':
    case 'int[]':
      return Array.isArray(raw) ? raw : undefined;
    case 'object':
      return undefined;
  }
}

function normalise(field: DatasetField, raw: Json): unknown {
  switch (scalarType(field)) {
    case 'int':
    case 'float':
      return Number(raw);
    case 'timestamp':
      return BigInt(raw as string | number);
    case 'string':
    case 'bool':
      return raw;
  }
}

/** The node a JSON pointer designates, or undefined when it designates nothing. */
function resolvePointer(document: Json, pointer: string): { found: boolean } {
  if (pointer === '') return { found: true };
  let node: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return { found: false };
    node = (node as Record<string, unknown>)[segment];
  }
  return { found: true };
}

function assertWellFormedProblem(problem: FilterProblem): void {
  assert.ok(problem.pointer === '' || problem.pointer.startsWith('/'), problem.pointer);
  const prefix = problem.pointer === '' ? 'filter: ' : `${problem.pointer}: `;
  assert.ok(problem.message.startsWith(prefix), problem.message);
  assert.ok(problem.message.length > prefix.length, problem.message);
}

describe('filters built from the catalogue', () => {
  it('parse, and their compiled predicates agree with a naive interpreter on random records', () => {
    fc.assert(
      fc.property(wellFormedFilter, fc.array(recordArb, { minLength: 1, maxLength: 5 }), (text, records) => {
        const parsed = parseFilter(text, httpRequests, defaultFilterLimits);
        assert.ok(parsed.ok, parsed.ok ? '' : parsed.error.message);
        const predicate = compileFilter(parsed.value);
        const where = (JSON.parse(text) as { where: Json }).where;
        for (const record of records) assert.equal(predicate(record), evaluate(where, record));
      }),
      { numRuns: 300 },
    );
  });

  it('compile to predicates that never throw, whatever the record holds', () => {
    const anyRecord = fc.dictionary(
      fc.oneof(fc.constantFrom(...filterable.map((field) => field.name)), fc.string()),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(wellFormedFilter, fc.array(anyRecord, { maxLength: 5 }), (text, records) => {
        const parsed = parseFilter(text, httpRequests, defaultFilterLimits);
        assert.ok(parsed.ok);
        const predicate = compileFilter(parsed.value);
        for (const record of records) assert.equal(typeof predicate(record), 'boolean');
      }),
      { numRuns: 200 },
    );
  });

  it('negating a condition inverts the predicate on every record', () => {
    fc.assert(
      fc.property(leafArb, recordArb, (leaf, record) => {
        const { operator } = leaf as { operator: FilterOperator };
        const opposite = operator.startsWith('!') ? operator.slice(1) : `!${operator}`;
        const compile = (where: Json): boolean => {
          const parsed = parseFilter(JSON.stringify({ where }), httpRequests, defaultFilterLimits);
          assert.ok(parsed.ok, parsed.ok ? '' : parsed.error.message);
          return compileFilter(parsed.value)(record);
        };
        if (!(filterOperators as readonly string[]).includes(opposite)) return;
        assert.equal(compile(leaf), !compile({ ...(leaf as object), operator: opposite }));
      }),
    );
  });
});

describe('hostile and random input', () => {
  it('never throws on arbitrary strings, and answers every non-blank one with a problem', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme-ascii', maxLength: 300 })), (text) => {
        const result = parseFilter(text, httpRequests, defaultFilterLimits);
        if (text.trim() === '') assert.deepEqual(result, { ok: true, value: null });
        else {
          assert.ok(!result.ok);
          assertWellFormedProblem(result.error);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary JSON, and points at a node that exists', () => {
    const documents = fc.oneof(
      fc.json(),
      fc.jsonValue().map((where) => JSON.stringify({ where })),
      fc.jsonValue().map((node) => JSON.stringify({ where: { and: [node] } })),
    );
    fc.assert(
      fc.property(documents, (text) => {
        const result = parseFilter(text, httpRequests, { maxOperators: 30, maxBytes: 1_000_000 });
        assert.ok(!result.ok, text);
        assertWellFormedProblem(result.error);
        assert.ok(resolvePointer(JSON.parse(text), result.error.pointer).found, `${result.error.pointer} in ${text}`);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on conditions with any operator and any value, and compiles what it accepts', () => {
    const fields = fc.constantFrom(...httpRequests.fields.map((field) => field.name), 'Nope');
    const operators = fc.oneof(fc.constantFrom(...filterOperators), fc.jsonValue());
    const values = fc.oneof(fc.jsonValue(), fc.array(fc.jsonValue(), { maxLength: 3 }), ints.map(String), strings);
    fc.assert(
      fc.property(fields, operators, values, recordArb, (key, operator, value, record) => {
        const text = JSON.stringify({ where: { or: [{ key, operator, value }] } });
        const result = parseFilter(text, httpRequests, { maxOperators: 30, maxBytes: 1_000_000 });
        if (result.ok) {
          assert.equal(typeof compileFilter(result.value)(record), 'boolean');
        } else {
          assertWellFormedProblem(result.error);
          assert.ok(resolvePointer(JSON.parse(text), result.error.pointer).found, `${result.error.pointer} in ${text}`);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws on well-formed filters with characters changed, dropped or added', () => {
    const mutated = fc
      .tuple(wellFormedFilter, fc.array(fc.tuple(fc.nat(), fc.nat({ max: 2 }), fc.string({ unit: 'binary', maxLength: 2 })), { minLength: 1, maxLength: 4 }))
      .map(([text, edits]) => {
        let out = text;
        for (const [at, kind, insert] of edits) {
          const index = at % (out.length + 1);
          if (kind === 0) out = out.slice(0, index) + out.slice(index + 1);
          else if (kind === 1) out = out.slice(0, index) + insert + out.slice(index);
          else out = out.slice(0, index) + insert + out.slice(index + 1);
        }
        return out;
      });
    fc.assert(
      fc.property(mutated, recordArb, (text, record) => {
        const result = parseFilter(text, httpRequests, defaultFilterLimits);
        if (result.ok) assert.equal(typeof compileFilter(result.value)(record), 'boolean');
        else assertWellFormedProblem(result.error);
      }),
      { numRuns: 500 },
    );
  });
});
