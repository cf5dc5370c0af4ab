import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  checkCustomFieldLimit,
  countCustomFields,
  defaultMaxCustomFields,
  parseRuleInput,
  ruleInputLimits,
} from '../../../src/domain/rulesets/custom-fields.ts';
import type { RuleInput } from '../../../src/domain/rulesets/custom-fields.ts';

const P = '/rules/0';
const AP = `${P}/action_parameters`;

function rule(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    action: 'log_custom_field',
    expression: 'true',
    action_parameters: { request_fields: [{ name: 'x-forwarded-for' }] },
    ...overrides,
  };
}

function withParameters(parameters: unknown): Record<string, unknown> {
  return rule({ action_parameters: parameters });
}

function parsed(value: unknown, pointer = P): RuleInput {
  const result = parseRuleInput(value, pointer);
  if (!result.ok) assert.fail(`expected a valid rule, got ${JSON.stringify(result.error)}`);
  return result.value;
}

/** One expected problem: its exact pointer and words its message must contain. */
interface Expected {
  readonly pointer: string;
  readonly says: readonly string[];
}

interface Case {
  readonly name: string;
  readonly input: unknown;
  readonly problems: readonly Expected[];
}

const invalidCases: readonly Case[] = [
  { name: 'a rule that is not an object', input: [rule()], problems: [{ pointer: P, says: ['must be a JSON object', 'an array'] }] },
  { name: 'a rule that is null', input: null, problems: [{ pointer: P, says: ['JSON object', 'null'] }] },
  {
    name: 'a missing action',
    input: rule({ action: undefined }),
    problems: [{ pointer: `${P}/action`, says: ['required', '"log_custom_field"'] }],
  },
  {
    name: 'another action',
    input: rule({ action: 'block' }),
    problems: [{ pointer: `${P}/action`, says: ['must use the action "log_custom_field"', '"block"'] }],
  },
  {
    name: 'an action that is not a string',
    input: rule({ action: 7 }),
    problems: [{ pointer: `${P}/action`, says: ['"log_custom_field"', 'a number'] }],
  },
  {
    name: 'a missing expression',
    input: rule({ expression: undefined }),
    problems: [{ pointer: `${P}/expression`, says: ['required', '"true"'] }],
  },
  {
    name: 'an expression other than true',
    input: rule({ expression: 'http.host eq "example.com"' }),
    problems: [{ pointer: `${P}/expression`, says: ['must be the string "true"', 'http.host'] }],
  },
  {
    name: 'an expression with spaces around true',
    input: rule({ expression: ' true ' }),
    problems: [{ pointer: `${P}/expression`, says: ['"true"'] }],
  },
  {
    name: 'the boolean true as expression',
    input: rule({ expression: true }),
    problems: [{ pointer: `${P}/expression`, says: ['must be the string "true"'] }],
  },
  {
    name: 'missing action_parameters',
    input: rule({ action_parameters: undefined }),
    problems: [{ pointer: AP, says: ['required', 'request_fields', 'response_fields', 'cookie_fields'] }],
  },
  {
    name: 'action_parameters that is not an object',
    input: withParameters('request_fields'),
    problems: [{ pointer: AP, says: ['must be an object', 'a string'] }],
  },
  {
    name: 'action_parameters without any list',
    input: withParameters({}),
    problems: [{ pointer: AP, says: ['at least one of request_fields, response_fields and cookie_fields'] }],
  },
  {
    name: 'an empty request_fields',
    input: withParameters({ request_fields: [] }),
    problems: [{ pointer: `${AP}/request_fields`, says: ['at least one request header'] }],
  },
  {
    name: 'an empty cookie_fields next to a good list',
    input: withParameters({ request_fields: [{ name: 'a' }], cookie_fields: [] }),
    problems: [{ pointer: `${AP}/cookie_fields`, says: ['at least one cookie'] }],
  },
  {
    name: 'a list that is not an array',
    input: withParameters({ response_fields: { name: 'server' } }),
    problems: [{ pointer: `${AP}/response_fields`, says: ['must be an array', 'an object'] }],
  },
  {
    name: 'an entry that is not an object',
    input: withParameters({ request_fields: ['host'] }),
    problems: [{ pointer: `${AP}/request_fields/0`, says: ['must be an object {"name"', 'a string'] }],
  },
  {
    name: 'an entry without a name',
    input: withParameters({ request_fields: [{ name: 'a' }, {}] }),
    problems: [{ pointer: `${AP}/request_fields/1/name`, says: ['needs a "name"'] }],
  },
  {
    name: 'a name that is not a string',
    input: withParameters({ cookie_fields: [{ name: 12 }] }),
    problems: [{ pointer: `${AP}/cookie_fields/0/name`, says: ['must be a string', 'a number'] }],
  },
  {
    name: 'an empty name',
    input: withParameters({ response_fields: [{ name: '' }] }),
    problems: [{ pointer: `${AP}/response_fields/0/name`, says: ['must not be empty'] }],
  },
  {
    name: 'an extra key in an entry',
    input: withParameters({ request_fields: [{ name: 'a', alias: 'b' }] }),
    problems: [{ pointer: `${AP}/request_fields/0/alias`, says: ['Unknown key "alias"', 'only "name"'] }],
  },
  {
    name: 'an upper-case request header name',
    input: withParameters({ request_fields: [{ name: 'a' }, { name: 'b' }, { name: 'X-Forwarded-For' }] }),
    problems: [
      { pointer: `${AP}/request_fields/2/name`, says: ['must be lower case', 'write "x-forwarded-for" instead of "X-Forwarded-For"'] },
    ],
  },
  {
    name: 'an upper-case response header name',
    input: withParameters({ response_fields: [{ name: 'Server' }] }),
    problems: [{ pointer: `${AP}/response_fields/0/name`, says: ['lower case', '"server"'] }],
  },
  {
    name: 'a header name with a space',
    input: withParameters({ request_fields: [{ name: 'x forwarded' }] }),
    problems: [{ pointer: `${AP}/request_fields/0/name`, says: ['contains a space', 'letters, digits'] }],
  },
  {
    name: 'a header name with a colon',
    input: withParameters({ request_fields: [{ name: 'host:' }] }),
    problems: [{ pointer: `${AP}/request_fields/0/name`, says: ['contains the character ":"'] }],
  },
  {
    name: 'a header name with a control character',
    input: withParameters({ response_fields: [{ name: 'a\tb' }] }),
    problems: [{ pointer: `${AP}/response_fields/0/name`, says: ['control character U+0009'] }],
  },
  {
    name: 'a header name with a non-ASCII letter',
    input: withParameters({ request_fields: [{ name: 'x-café' }] }),
    problems: [{ pointer: `${AP}/request_fields/0/name`, says: ['"é" (U+00E9)'] }],
  },
  {
    name: 'a cookie name with "="',
    input: withParameters({ cookie_fields: [{ name: 'a=b' }] }),
    problems: [{ pointer: `${AP}/cookie_fields/0/name`, says: ['contains the character "="', 'Cookie names may contain only'] }],
  },
  {
    name: 'a cookie name with a double quote',
    input: withParameters({ cookie_fields: [{ name: 'a"b' }] }),
    problems: [{ pointer: `${AP}/cookie_fields/0/name`, says: ['a double quote'] }],
  },
  {
    name: 'a cookie name with a semicolon',
    input: withParameters({ cookie_fields: [{ name: 'a;b' }] }),
    problems: [{ pointer: `${AP}/cookie_fields/0/name`, says: ['";"'] }],
  },
  {
    name: 'a name over the length bound',
    input: withParameters({ request_fields: [{ name: 'x'.repeat(ruleInputLimits.maxNameLength + 1) }] }),
    problems: [{ pointer: `${AP}/request_fields/0/name`, says: [`${ruleInputLimits.maxNameLength + 1} characters long`, `at most ${ruleInputLimits.maxNameLength}`] }],
  },
  {
    name: 'a duplicate request header',
    input: withParameters({ request_fields: [{ name: 'host' }, { name: 'accept' }, { name: 'host' }] }),
    problems: [{ pointer: `${AP}/request_fields/2/name`, says: ['"host" is listed more than once in request_fields'] }],
  },
  {
    name: 'a duplicate that differs only in case',
    input: withParameters({ response_fields: [{ name: 'Server' }, { name: 'server' }] }),
    problems: [
      { pointer: `${AP}/response_fields/0/name`, says: ['lower case'] },
      { pointer: `${AP}/response_fields/1/name`, says: ['"server" is listed more than once'] },
    ],
  },
  {
    name: 'a duplicate cookie',
    input: withParameters({ cookie_fields: [{ name: 'sid' }, { name: 'sid' }] }),
    problems: [{ pointer: `${AP}/cookie_fields/1/name`, says: ['Cookie "sid" is listed more than once in cookie_fields'] }],
  },
  {
    name: 'an unknown key in action_parameters',
    input: withParameters({ request_fields: [{ name: 'a' }], header_fields: [{ name: 'b' }] }),
    problems: [{ pointer: `${AP}/header_fields`, says: ['Unknown key "header_fields"', 'request_fields, response_fields, cookie_fields'] }],
  },
  {
    name: 'transformed_request_fields',
    input: withParameters({ transformed_request_fields: [{ name: 'a' }] }),
    problems: [
      { pointer: `${AP}/transformed_request_fields`, says: ['logexport does not support transformed_request_fields'] },
      { pointer: AP, says: ['at least one of'] },
    ],
  },
  {
    name: 'raw_response_fields',
    input: withParameters({ request_fields: [{ name: 'a' }], raw_response_fields: [{ name: 'b' }] }),
    problems: [{ pointer: `${AP}/raw_response_fields`, says: ['logexport does not support raw_response_fields'] }],
  },
  {
    name: 'preserve_duplicates in an entry',
    input: withParameters({ response_fields: [{ name: 'set-cookie', preserve_duplicates: true }] }),
    problems: [{ pointer: `${AP}/response_fields/0/preserve_duplicates`, says: ['logexport does not support preserve_duplicates'] }],
  },
  {
    name: 'logging',
    input: rule({ logging: { enabled: true } }),
    problems: [{ pointer: `${P}/logging`, says: ['only allowed on rules with the skip action'] }],
  },
  {
    name: 'position (the caller strips it)',
    input: rule({ position: { index: 1 } }),
    problems: [{ pointer: `${P}/position`, says: ['Unknown key "position"'] }],
  },
  {
    name: 'an unknown rule key',
    input: rule({ ratelimit: {} }),
    problems: [{ pointer: `${P}/ratelimit`, says: ['Unknown key "ratelimit" in the rule', 'action_parameters'] }],
  },
  {
    name: 'an unknown rule key with pointer characters',
    input: rule({ 'a/b~c': 1 }),
    problems: [{ pointer: `${P}/a~1b~0c`, says: ['Unknown key "a/b~c"'] }],
  },
  {
    name: 'a description that is not a string',
    input: rule({ description: 5 }),
    problems: [{ pointer: `${P}/description`, says: ['must be a string', 'a number'] }],
  },
  {
    name: 'a description over the length bound',
    input: rule({ description: 'd'.repeat(ruleInputLimits.maxDescriptionLength + 1) }),
    problems: [{ pointer: `${P}/description`, says: [`at most ${ruleInputLimits.maxDescriptionLength}`] }],
  },
  {
    name: 'enabled that is not a boolean',
    input: rule({ enabled: 'yes' }),
    problems: [{ pointer: `${P}/enabled`, says: ['true or false', 'a string'] }],
  },
  { name: 'an empty ref', input: rule({ ref: '' }), problems: [{ pointer: `${P}/ref`, says: ['must not be empty'] }] },
  { name: 'a ref that is not a string', input: rule({ ref: 3 }), problems: [{ pointer: `${P}/ref`, says: ['must be a string'] }] },
  {
    name: 'a ref over the length bound',
    input: rule({ ref: 'r'.repeat(ruleInputLimits.maxRefLength + 1) }),
    problems: [{ pointer: `${P}/ref`, says: [`at most ${ruleInputLimits.maxRefLength}`] }],
  },
  {
    name: 'an id that is not 32 lower-case hex',
    input: rule({ id: 'A'.repeat(32) }),
    problems: [{ pointer: `${P}/id`, says: ['32 lower-case hexadecimal'] }],
  },
  { name: 'a short id', input: rule({ id: 'abc' }), problems: [{ pointer: `${P}/id`, says: ['32 lower-case hexadecimal'] }] },
];

describe('parseRuleInput', () => {
  for (const testCase of invalidCases) {
    it(`rejects ${testCase.name} with the exact pointers`, () => {
      const result = parseRuleInput(testCase.input, P);
      assert.equal(result.ok, false);
      if (result.ok) return;
      assert.deepEqual(
        result.error.map((detail) => detail.pointer),
        testCase.problems.map((problem) => problem.pointer),
        JSON.stringify(result.error),
      );
      testCase.problems.forEach((problem, index) => {
        const message = result.error[index]?.message ?? '';
        for (const words of problem.says) assert.ok(message.includes(words), `"${message}" should say ${words}`);
      });
    });
  }

  it('collects every problem of a rule, not just the first', () => {
    const result = parseRuleInput(
      {
        action: 'block',
        expression: 'false',
        foo: 1,
        action_parameters: { request_fields: [{ name: 'A' }, { name: 'b c' }], cookie_fields: [{ name: '' }] },
      },
      '/rules/3',
    );
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(
      result.error.map((detail) => detail.pointer),
      [
        '/rules/3/foo',
        '/rules/3/action',
        '/rules/3/expression',
        '/rules/3/action_parameters/request_fields/0/name',
        '/rules/3/action_parameters/request_fields/1/name',
        '/rules/3/action_parameters/cookie_fields/0/name',
      ],
    );
  });

  it('points below the empty pointer when the body is the rule itself', () => {
    const result = parseRuleInput(withParameters({ request_fields: [{ name: 'Host' }] }), '');
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.error[0]?.pointer, '/action_parameters/request_fields/0/name');
  });

  it('summarises the problems beyond the bound instead of listing thousands', () => {
    const entries = Array.from({ length: 5000 }, () => 1);
    const result = parseRuleInput(withParameters({ request_fields: entries }), P);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error.length, ruleInputLimits.maxReportedProblems + 1);
    assert.match(result.error.at(-1)?.message ?? '', /4950 more problems/);
  });

  it('accepts a minimal rule and fills the defaults', () => {
    assert.deepEqual(parsed(rule()), {
      description: '',
      enabled: true,
      action: 'log_custom_field',
      expression: 'true',
      action_parameters: { request_fields: [{ name: 'x-forwarded-for' }] },
    });
  });

  it('accepts every optional key and keeps its value', () => {
    const id = '0123456789abcdef0123456789abcdef';
    const value = parsed(
      rule({
        id,
        ref: 'my-ref',
        description: 'headers for the SIEM',
        enabled: false,
        action_parameters: {
          request_fields: [{ name: 'content-type' }, { name: 'x-forwarded-for' }],
          response_fields: [{ name: 'server' }, { name: 'content-type' }],
          cookie_fields: [{ name: 'SessionID' }, { name: 'sessionid' }],
        },
      }),
    );
    assert.deepEqual(value, {
      id,
      ref: 'my-ref',
      description: 'headers for the SIEM',
      enabled: false,
      action: 'log_custom_field',
      expression: 'true',
      action_parameters: {
        request_fields: [{ name: 'content-type' }, { name: 'x-forwarded-for' }],
        response_fields: [{ name: 'server' }, { name: 'content-type' }],
        cookie_fields: [{ name: 'SessionID' }, { name: 'sessionid' }],
      },
    });
  });

  it('keeps the case of cookie names', () => {
    assert.deepEqual(parsed(withParameters({ cookie_fields: [{ name: 'Sess_ID' }] })).action_parameters, {
      cookie_fields: [{ name: 'Sess_ID' }],
    });
  });

  it('accepts every token punctuation character in names', () => {
    const name = "a!#$%&'*+-.^_`|~9";
    assert.deepEqual(parsed(withParameters({ request_fields: [{ name }], cookie_fields: [{ name }] })).action_parameters, {
      request_fields: [{ name }],
      cookie_fields: [{ name }],
    });
  });

  it('accepts a name exactly at the length bound', () => {
    const name = 'x'.repeat(ruleInputLimits.maxNameLength);
    assert.equal(parsed(withParameters({ request_fields: [{ name }] })).action_parameters.request_fields?.[0]?.name, name);
  });

  it('accepts names that are object keys in JavaScript', () => {
    const parameters = { request_fields: [{ name: '__proto__' }, { name: 'constructor' }], cookie_fields: [{ name: 'toString' }] };
    assert.deepEqual(parsed(withParameters(parameters)).action_parameters, parameters);
  });

  it('accepts the same name in different lists', () => {
    const parameters = { request_fields: [{ name: 'content-type' }], response_fields: [{ name: 'content-type' }] };
    assert.deepEqual(parsed(withParameters(parameters)).action_parameters, parameters);
  });

  it('ignores version, last_updated and categories that clients echo back', () => {
    const value = parsed(rule({ version: '3', last_updated: '2024-01-01T00:00:00.000000Z', categories: ['x'] }));
    assert.deepEqual(Object.keys(value).sort(), ['action', 'action_parameters', 'description', 'enabled', 'expression']);
  });

  it('treats optional keys set to null as absent', () => {
    const value = parsed(
      rule({
        id: null,
        ref: null,
        description: null,
        enabled: null,
        logging: null,
        action_parameters: { request_fields: [{ name: 'a' }], response_fields: null, cookie_fields: null },
      }),
    );
    assert.deepEqual(value, {
      description: '',
      enabled: true,
      action: 'log_custom_field',
      expression: 'true',
      action_parameters: { request_fields: [{ name: 'a' }] },
    });
  });

  it('measures the description in characters, not UTF-16 units', () => {
    const description = '😀'.repeat(ruleInputLimits.maxDescriptionLength);
    assert.equal(parsed(rule({ description })).description, description);
  });

  it('never throws on random values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        parseRuleInput(value, P);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on random rule-shaped objects, and an accepted rule has only valid names', () => {
    const name = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('host', 'Host', '__proto__', 'a b', ''), fc.jsonValue());
    const entry = fc.oneof(fc.record({ name }), fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue(), { maxKeys: 3 }), fc.jsonValue());
    const list = fc.oneof(fc.array(entry, { maxLength: 5 }), fc.jsonValue());
    const parameters = fc.oneof(
      fc.record(
        { request_fields: list, response_fields: list, cookie_fields: list, preserve_duplicates: fc.boolean() },
        { requiredKeys: [] },
      ),
      fc.jsonValue(),
    );
    const ruleArbitrary = fc.record(
      {
        id: fc.oneof(fc.constant('0123456789abcdef0123456789abcdef'), fc.jsonValue()),
        ref: fc.oneof(fc.string(), fc.jsonValue()),
        description: fc.oneof(fc.string(), fc.jsonValue()),
        enabled: fc.oneof(fc.boolean(), fc.jsonValue()),
        action: fc.oneof(fc.constant('log_custom_field'), fc.string()),
        expression: fc.oneof(fc.constant('true'), fc.string()),
        action_parameters: parameters,
        logging: fc.jsonValue(),
        version: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(ruleArbitrary, (value) => {
        const result = parseRuleInput(value, P);
        if (!result.ok) {
          assert.ok(result.error.length > 0);
          for (const detail of result.error) assert.ok(detail.pointer?.startsWith(P));
          return;
        }
        const lists = result.value.action_parameters;
        for (const headers of [lists.request_fields, lists.response_fields]) {
          for (const { name } of headers ?? []) assert.match(name, /^[!#$%&'*+\-.^_`|~0-9a-z]+$/);
        }
        for (const { name } of lists.cookie_fields ?? []) assert.match(name, /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('countCustomFields', () => {
  const fields = (request: string[], response: string[] = [], cookie: string[] = []) => ({
    action_parameters: {
      ...(request.length > 0 ? { request_fields: request.map((name) => ({ name })) } : {}),
      ...(response.length > 0 ? { response_fields: response.map((name) => ({ name })) } : {}),
      ...(cookie.length > 0 ? { cookie_fields: cookie.map((name) => ({ name })) } : {}),
    },
  });

  it('counts names across all three lists and all rules', () => {
    assert.equal(countCustomFields([fields(['a', 'b'], ['c']), fields([], [], ['d', 'e'])]), 5);
  });

  it('counts a name listed by two rules once', () => {
    assert.equal(countCustomFields([fields(['a']), fields(['a', 'b'])]), 2);
  });

  it('counts the same name in different lists separately', () => {
    assert.equal(countCustomFields([fields(['a'], ['a'], ['a'])]), 3);
  });

  it('counts cookies that differ only in case separately', () => {
    assert.equal(countCustomFields([fields([], [], ['sid', 'SID'])]), 2);
  });

  it('counts nothing for no rules', () => {
    assert.equal(countCustomFields([]), 0);
  });
});

describe('checkCustomFieldLimit', () => {
  const many = (count: number, prefix = 'h') => ({
    action_parameters: { request_fields: Array.from({ length: count }, (_, i) => ({ name: `${prefix}${i}` })) },
  });

  it('allows exactly the limit', () => {
    assert.equal(checkCustomFieldLimit([many(20), many(20, 'g')], defaultMaxCustomFields), undefined);
  });

  it('rejects one over the limit, naming the limit and the count', () => {
    const detail = checkCustomFieldLimit([many(20), many(21, 'g')], defaultMaxCustomFields, '/rules');
    assert.ok(detail);
    assert.equal(detail.pointer, '/rules');
    assert.match(detail.message, /at most 40 custom fields/);
    assert.match(detail.message, /configure 41/);
  });

  it('uses the configured limit', () => {
    assert.equal(checkCustomFieldLimit([many(3)], 2)?.message.includes('at most 2'), true);
    assert.equal(checkCustomFieldLimit([many(3)], 2)?.pointer, undefined);
  });
});
