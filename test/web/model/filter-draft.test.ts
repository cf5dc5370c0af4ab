import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import { defaultFilterLimits, parseFilter } from '../../../src/domain/filters/parse-filter.ts';
import type { DatasetFieldInfo } from '../../../web/src/model/dataset-field.ts';
import {
  appendChild,
  checkFilterDraft,
  draftFromFilter,
  emptyFilterDraft,
  newCondition,
  newGroup,
  nodeOfMessage,
  operatorsFor,
  removeNode,
  updateNode,
  type ConditionDraft,
  type GroupDraft,
} from '../../../web/src/model/filter-draft.ts';

const catalogue: DatasetFieldInfo[] = httpRequests.fields.map((f) => ({ name: f.name, type: f.type, description: f.description }));

function condition(key: string, operator: ConditionDraft['operator'], value: string): ConditionDraft {
  return { ...newCondition(), key, operator, value };
}

function group(combinator: 'and' | 'or', ...children: GroupDraft['children']): GroupDraft {
  return { ...newGroup(combinator), children };
}

describe('the filter builder draft', () => {
  it('is no filter at all while it has no condition', () => {
    const check = checkFilterDraft(emptyFilterDraft(), catalogue);
    assert.equal(check.filter, null);
    assert.equal(check.problems.size, 0);
  });

  const values: readonly { field: string; operator: ConditionDraft['operator']; typed: string; sent: unknown }[] = [
    { field: 'ClientCountry', operator: 'eq', typed: 'ca', sent: 'ca' },
    { field: 'ClientCountry', operator: 'eq', typed: ' ca ', sent: ' ca ' },
    { field: 'ClientCountry', operator: 'eq', typed: '', sent: '' },
    { field: 'EdgeResponseStatus', operator: 'geq', typed: '500', sent: 500 },
    { field: 'EdgeResponseStatus', operator: 'in', typed: '403, 404,429', sent: [403, 404, 429] },
    { field: 'ClientCountry', operator: 'in', typed: 'ca, us', sent: ['ca', 'us'] },
    { field: 'ClientCountry', operator: '!in', typed: '["a,b", "c"]', sent: ['a,b', 'c'] },
    { field: 'CacheReserveUsed', operator: 'eq', typed: 'true', sent: true },
    { field: 'EdgeStartTimestamp', operator: 'geq', typed: '1700000000000000001', sent: '1700000000000000001' },
    { field: 'BotDetectionIDs', operator: 'contains', typed: '42', sent: 42 },
    { field: 'SecuritySources', operator: 'contains', typed: 'waf', sent: 'waf' },
  ];
  for (const { field, operator, typed, sent } of values) {
    it(`sends ${JSON.stringify(typed)} for ${field} ${operator} as ${JSON.stringify(sent)}, and the server accepts it`, () => {
      const check = checkFilterDraft(group('and', condition(field, operator, typed)), catalogue);
      assert.deepEqual(check.problems, new Map());
      assert.deepEqual(JSON.parse(check.filter ?? ''), { where: { and: [{ key: field, operator, value: sent }] } });
      assert.equal(parseFilter(check.filter, httpRequests, defaultFilterLimits).ok, true);
    });
  }

  const mistakes: readonly { draft: () => GroupDraft; message: RegExp }[] = [
    { draft: () => group('and', condition('', '', '')), message: /^\/where\/and\/0: choose a field/ },
    { draft: () => group('and', condition('EdgeResponseStatus', 'geq', 'many')), message: /^\/where\/and\/0\/value: EdgeResponseStatus is an int field/ },
    { draft: () => group('and', condition('EdgeResponseStatus', 'geq', '  ')), message: /^\/where\/and\/0\/value: enter a value/ },
    { draft: () => group('or', condition('ClientCountry', 'eq', 'ca'), condition('ClientCountry', 'lt', 'b')), message: /^\/where\/or\/1\/operator: operator "lt" does not apply/ },
    { draft: () => group('and', condition('Cookies', 'eq', 'x')), message: /cannot be filtered on/ },
    { draft: () => group('and', condition('clientcountry', 'eq', 'ca')), message: /unknown field "clientcountry"/ },
    { draft: () => group('and', condition('ClientCountry', 'eq', 'ca'), group('or')), message: /^\/where\/and\/1: this group is empty/ },
    { draft: () => group('and', condition('EdgeResponseStatus', 'in', '[1, ')), message: /needs a JSON array/ },
  ];
  for (const { draft, message } of mistakes) {
    it(`catches ${message.source} before anything is sent`, () => {
      const check = checkFilterDraft(draft(), catalogue);
      assert.equal(check.problems.size, 1);
      assert.match([...check.problems.values()][0] ?? '', message);
    });
  }

  it('builds nested groups as the filter language nests them', () => {
    const root = group('and', condition('ClientRequestHost', 'eq', 'shop.example.com'), group('or', condition('EdgeResponseStatus', 'in', '403, 500'), condition('EdgeTimeToFirstByteMs', 'gt', '2000')));
    const check = checkFilterDraft(root, catalogue);
    assert.equal(check.conditions, 3);
    assert.deepEqual(JSON.parse(check.filter ?? ''), {
      where: {
        and: [
          { key: 'ClientRequestHost', operator: 'eq', value: 'shop.example.com' },
          { or: [{ key: 'EdgeResponseStatus', operator: 'in', value: [403, 500] }, { key: 'EdgeTimeToFirstByteMs', operator: 'gt', value: 2000 }] },
        ],
      },
    });
    assert.equal(check.bytes, Buffer.byteLength(check.filter ?? ''));
  });

  it('edits the tree by node id: append, update and remove', () => {
    let root = emptyFilterDraft();
    const first = condition('ClientCountry', 'eq', 'ca');
    const inner = group('or');
    root = appendChild(appendChild(root, root.id, first), root.id, inner);
    root = updateNode(root, first.id, (node) => ({ ...node, value: 'us' }) as ConditionDraft);
    assert.equal((root.children[0] as ConditionDraft).value, 'us');
    assert.equal((root.children[1] as GroupDraft).combinator, 'or');
    root = removeNode(root, inner.id);
    assert.deepEqual(root.children.map((c) => c.id), [first.id]);
  });

  it('offers only the operators a field type supports', () => {
    assert.deepEqual(operatorsFor('bool'), ['eq', '!eq']);
    assert.ok(!operatorsFor('string').includes('lt'));
    assert.ok(operatorsFor('timestamp').includes('in'));
  });

  it('reads a stored filter back into the same filter, a single condition becoming a group', () => {
    const nested =
      '{"where":{"or":[{"and":[{"key":"WorkerSubrequest","operator":"eq","value":true},{"key":"WorkerScriptName","operator":"eq","value":"edge-router"}]},{"key":"ClientRequestUserAgent","operator":"!contains","value":"Mozilla/"}]}}';
    const numeric = '{"where":{"and":[{"key":"BotScore","operator":"lt","value":"30"},{"key":"EdgeResponseStatus","operator":"in","value":[403,"404"]}]}}';
    const cases: readonly [stored: string, same: string][] = [
      ['{"where":{"key":"ClientCountry","operator":"!eq","value":"ca"}}', '{"where":{"and":[{"key":"ClientCountry","operator":"!eq","value":"ca"}]}}'],
      [nested, nested],
      [numeric, numeric],
    ];
    for (const [text, same] of cases) {
      const draft = draftFromFilter(text);
      assert.ok(draft !== undefined);
      const rebuilt = parseFilter(checkFilterDraft(draft, catalogue).filter, httpRequests, defaultFilterLimits);
      const expected = parseFilter(same, httpRequests, defaultFilterLimits);
      assert.ok(rebuilt.ok && expected.ok);
      assert.deepEqual(rebuilt.value, expected.value);
    }
    assert.equal(draftFromFilter('not json'), undefined);
    assert.deepEqual(draftFromFilter(null)?.children, []);
  });

  it('round-trips any list of plain values through the Value text', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 0, maxLength: 8 }), { minLength: 1, maxLength: 5 }), (items) => {
        const stored = JSON.stringify({ where: { key: 'ClientCountry', operator: 'in', value: items } });
        const draft = draftFromFilter(stored);
        assert.ok(draft !== undefined);
        assert.deepEqual(JSON.parse(checkFilterDraft(draft, catalogue).filter ?? '').where.and[0].value, items);
      }),
    );
  });

  it('finds the condition a server message points at', () => {
    const second = condition('ClientCountry', 'eq', 'ca');
    const nested = group('or', condition('EdgeResponseStatus', 'eq', '1'), second);
    const root = group('and', condition('ClientCountry', 'eq', 'ca'), nested);
    assert.equal(nodeOfMessage(root, '/where/and/1/or/1/value: ClientCountry is a string field, …'), second.id);
    assert.equal(nodeOfMessage(root, '/where/and/1: a group has exactly one of "and" or "or"'), nested.id);
    assert.equal(nodeOfMessage(root, 'filter: the filter is 1043 bytes long'), undefined);
  });
});
