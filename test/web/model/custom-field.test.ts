import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Rule } from '../../../web/src/api/ruleset.ts';
import { capturedFieldMaps, listCustomFields, rulesWithField, rulesWithoutField } from '../../../web/src/model/custom-field.ts';

const rule = (fields: Rule['action_parameters'], extra: Partial<Rule> = {}): Rule => ({
  id: '0'.repeat(32),
  ref: 'ref1',
  version: '3',
  action: 'log_custom_field',
  expression: 'true',
  description: 'd',
  enabled: true,
  action_parameters: fields,
  ...extra,
});

describe('custom fields in the dashboard', () => {
  it('lists each configured field once, request headers first, and marks fields of disabled rules', () => {
    const rules = [
      rule({ cookie_fields: [{ name: 'SessionID' }], request_fields: [{ name: 'x-a' }] }),
      rule({ request_fields: [{ name: 'x-a' }, { name: 'x-b' }], response_fields: [{ name: 'cache-control' }] }, { enabled: false }),
    ];
    assert.deepEqual(listCustomFields(rules), [
      { list: 'request_fields', name: 'x-a', captured: true },
      { list: 'request_fields', name: 'x-b', captured: false },
      { list: 'response_fields', name: 'cache-control', captured: false },
      { list: 'cookie_fields', name: 'SessionID', captured: true },
    ]);
  });

  it('creates a rule for the first field of a zone', () => {
    assert.deepEqual(rulesWithField([], { list: 'request_fields', name: 'x-custom' }), [
      { action: 'log_custom_field', expression: 'true', description: 'Custom fields set in the dashboard', enabled: true, action_parameters: { request_fields: [{ name: 'x-custom' }] } },
    ]);
  });

  it('appends to the first enabled rule and sends back rules without the keys the server sets', () => {
    const rules = [rule({ request_fields: [{ name: 'x-a' }] }, { enabled: false }), rule({ request_fields: [{ name: 'x-b' }] })];
    const next = rulesWithField(rules, { list: 'cookie_fields', name: 'Sid' });
    assert.deepEqual(next[0]?.action_parameters, { request_fields: [{ name: 'x-a' }] });
    assert.deepEqual(next[1]?.action_parameters, { request_fields: [{ name: 'x-b' }], cookie_fields: [{ name: 'Sid' }] });
    assert.ok(next.every((r) => r.version === undefined && r.id === '0'.repeat(32)));
  });

  it('removes a field wherever it is named and drops a rule left empty', () => {
    const rules = [rule({ request_fields: [{ name: 'x-a' }], cookie_fields: [{ name: 'x-a' }] }), rule({ request_fields: [{ name: 'x-a' }] })];
    const next = rulesWithoutField(rules, { list: 'request_fields', name: 'x-a' });
    assert.equal(next.length, 1);
    assert.deepEqual(next[0]?.action_parameters, { cookie_fields: [{ name: 'x-a' }] });
  });

  it('matches header names without regard to case but cookie names exactly', () => {
    const rules = [rule({ request_fields: [{ name: 'x-a' }], cookie_fields: [{ name: 'Sid' }, { name: 'sid' }] })];
    assert.deepEqual(rulesWithoutField(rules, { list: 'request_fields', name: 'X-A' })[0]?.action_parameters, { cookie_fields: [{ name: 'Sid' }, { name: 'sid' }] });
    assert.deepEqual(rulesWithoutField(rules, { list: 'cookie_fields', name: 'sid' })[0]?.action_parameters, { request_fields: [{ name: 'x-a' }], cookie_fields: [{ name: 'Sid' }] });
  });

  it('names the dataset fields that carry the captured custom fields, in catalogue order, leaving out lists only disabled rules name', () => {
    const fields = listCustomFields([rule({ cookie_fields: [{ name: 'Sid' }], request_fields: [{ name: 'x-a' }] }), rule({ response_fields: [{ name: 'x-b' }] }, { enabled: false })]);
    assert.deepEqual(capturedFieldMaps(fields), ['RequestHeaders', 'Cookies']);
    assert.deepEqual(capturedFieldMaps([]), []);
  });
});
