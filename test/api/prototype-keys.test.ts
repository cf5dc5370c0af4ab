/**
 * No validator looks a client's key up on Object.prototype (issue 23): every JSON body the API and ingest
 * take, with `__proto__`, `constructor`, `toString`, `valueOf` or `hasOwnProperty` as a key at each level
 * where a client writes keys, is answered 400 in the v4 envelope with a string `message` (property test over
 * the values such a key carries). The keys are written into the JSON text itself: an object literal's
 * `__proto__` would set a prototype instead of making a key.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { permissionGroups } from '../../src/accounts/permission-groups.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const prototypeKeys = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'] as const;

/** Bodies with `@P` where a key and its value go (`"<key>": <value>`), each at one level of the body. */
function bodies(zoneId: string): { name: string; method: string; path: string; template: string; ingest?: true }[] {
  const rule = (params: string, entry = '{"name":"x-a"}') =>
    `{"action":"log_custom_field","expression":"true","action_parameters":{"request_fields":[${entry}]${params}}}`;
  const filterDoc = (extra: string) => JSON.stringify(`{"where":{"key":"ClientCountry","operator":"eq","value":"ca"${extra}}}`);
  const job = (extra: string, output = '') =>
    `{"destination_conf":"file:///proto","dataset":"http_requests","output_options":{"field_names":["RayID"]${output}}${extra}}`;
  const read = permissionGroups[0]?.id ?? '';
  const policy = (inPolicy: string, inResources = '') =>
    `{"name":"t","policies":[{"effect":"allow","permission_groups":[{"id":"${read}"}],"resources":{"com.cloudflare.api.account.zone.${zoneId}":"*"${inResources}}${inPolicy}}]}`;
  const zone = `/zones/${zoneId}`;
  return [
    { name: 'a zone', method: 'POST', path: '/zones', template: '{"name":"proto.example"@P}' },
    { name: 'a sign-in', method: 'POST', path: '/session', template: '{"email":"p@example.com","password":"x"@P}' },
    { name: 'a token', method: 'POST', path: '/user/tokens', template: policy('').replace(/}$/, '@P}') },
    { name: "a token's policy", method: 'POST', path: '/user/tokens', template: policy('@P') },
    { name: "a token's resources", method: 'POST', path: '/user/tokens', template: policy('', '@P') },
    { name: 'a ruleset', method: 'POST', path: `${zone}/rulesets`, template: `{"name":"r","kind":"zone","phase":"http_log_custom_fields","rules":[${rule('')}]@P}` },
    { name: 'a rule', method: 'POST', path: `${zone}/rulesets`, template: `{"name":"r","kind":"zone","phase":"http_log_custom_fields","rules":[${rule('').replace(/}$/, '@P}')}]}` },
    { name: 'action_parameters', method: 'PUT', path: `${zone}/rulesets/phases/http_log_custom_fields/entrypoint`, template: `{"rules":[${rule('@P')}]}` },
    { name: 'a custom-field entry', method: 'PUT', path: `${zone}/rulesets/phases/http_log_custom_fields/entrypoint`, template: `{"rules":[${rule('', '{"name":"x-a"@P}')}]}` },
    { name: 'a job', method: 'POST', path: `${zone}/logpush/jobs`, template: job('@P') },
    { name: 'output_options', method: 'POST', path: `${zone}/logpush/jobs`, template: job('', '@P') },
    { name: "a job's filter leaf", method: 'POST', path: `${zone}/logpush/jobs`, template: job(`,"filter":${filterDoc('@Q')}`) },
    { name: 'a filter check', method: 'POST', path: `${zone}/logpush/validate/filter`, template: `{"filter":${filterDoc('')}@P}` },
    { name: 'a live session', method: 'POST', path: `${zone}/logpush/edge/jobs`, template: '{"fields":"RayID"@P}' },
    { name: 'an ownership challenge', method: 'POST', path: `${zone}/logpush/ownership`, template: '{"destination_conf":"file:///proto"@P}' },
    { name: 'a destination check', method: 'POST', path: `${zone}/logpush/validate/destination`, template: '{"destination_conf":"file:///proto"@P}' },
    { name: 'the retention flag', method: 'POST', path: `${zone}/logs/control/retention/flag`, template: '{"flag":true@P}' },
    { name: 'an ingest line', method: 'POST', path: `/ingest/zones/${zoneId}/http_requests`, template: '{"RayID":"r1"@P}', ingest: true },
  ];
}

/** A JSON value a prototype key may carry: objects, arrays, strings, numbers, booleans, null. */
const jsonValue = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v));

describe('prototype keys in every validator', () => {
  let t: TestApp;
  let user: { email: string; key: string; userId: string };
  let zoneId: string;

  before(async () => {
    t = await startTestApp({ LOGEXPORT_WORKERS: '0' });
    user = await t.user();
    zoneId = await t.zone(user);
  });
  after(async () => t.stop());

  it('answers 400 with a string message for each key, at each level, whatever it holds', async () => {
    for (const body of bodies(zoneId)) {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...prototypeKeys), jsonValue, async (key, value) => {
          const pair = `${JSON.stringify(key)}:${value}`;
          // Inside the filter's JSON string the pair is escaped once more.
          const text = body.template.replace('@P', `,${pair}`).replace('@Q', `,${JSON.stringify(pair).slice(1, -1)}`);
          const url = body.ingest === true ? `${t.app.url}${body.path}` : body.path;
          const res = await t.call(body.method, url, { raw: text, headers: { 'content-type': 'application/json' }, auth: user });
          const where = `${body.name} with ${text}`;
          assert.equal(res.status, 400, `${where} → ${res.status} ${res.text}`);
          assert.equal(res.body?.success, false, where);
          assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0, where);
          for (const error of res.body.errors as { message: unknown }[]) {
            assert.equal(typeof error.message, 'string', `${where} → ${res.text}`);
            assert.ok((error.message as string).length > 0, where);
          }
        }),
        { numRuns: 15 },
      );
    }
  });

  it('changed nothing', async () => {
    assert.deepEqual((await t.call('GET', '/user/tokens', { auth: user })).body.result, []);
    assert.deepEqual((await t.call('GET', `/zones/${zoneId}/logpush/jobs`, { auth: user })).body.result, []);
    assert.deepEqual((await t.call('GET', '/zones?name=proto.example', { auth: user })).body.result, []);
  });
});
