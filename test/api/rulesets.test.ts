import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const phase = 'http_log_custom_fields';
const rule = (fields: Record<string, unknown> = { request_fields: [{ name: 'content-type' }] }, extra: Record<string, unknown> = {}) => ({
  action: 'log_custom_field',
  expression: 'true',
  description: 'custom fields',
  action_parameters: fields,
  ...extra,
});

describe('the Rulesets API', () => {
  let t: TestApp;
  let zone: string;
  let base: string;
  let owner: { email: string; userId: string };

  before(async () => {
    t = await startTestApp();
    owner = await t.user();
    zone = await t.zone(owner);
    base = `/zones/${zone}/rulesets`;
  });
  after(async () => t.stop());

  const freshZone = (): Promise<string> => t.zone(owner);

  describe('the custom-fields workflow of the service spec', () => {
    let rulesetId: string;

    it('lists no rulesets for a new zone', async () => {
      const res = await t.call('GET', base);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.result, []);
      assert.equal(res.body.success, true);
      assert.deepEqual(res.body.errors, []);
      assert.deepEqual(res.body.messages, []);
      assert.equal(res.body.result_info.total_count, 0);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    });

    it('creates the zone ruleset of the phase as version 1 without rules', async () => {
      const res = await t.call('POST', base, {
        body: { name: 'Zone-level phase entry point', kind: 'zone', description: '', phase },
      });
      assert.equal(res.status, 200);
      const rs = res.body.result;
      assert.match(rs.id, /^[0-9a-f]{32}$/);
      assert.equal(rs.version, '1');
      assert.equal(rs.kind, 'zone');
      assert.equal(rs.phase, phase);
      assert.deepEqual(rs.rules, []);
      assert.match(rs.last_updated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      rulesetId = rs.id;
    });

    it('refuses a second zone ruleset for the phase with 400 / 20217', async () => {
      const res = await t.call('POST', base, { body: { name: 'again', kind: 'zone', phase } });
      assert.equal(res.status, 400);
      assert.equal(res.body.errors[0].code, 20217);
      assert.match(res.body.errors[0].message, /exceeded maximum number of zone rulesets for phase http_log_custom_fields/);
      assert.equal(res.body.result, null);
    });

    it('replaces the rules with PUT and returns the populated rule with a new ruleset version', async () => {
      const res = await t.call('PUT', `${base}/${rulesetId}`, {
        body: { rules: [rule({ request_fields: [{ name: 'content-type' }, { name: 'x-forwarded-for' }], response_fields: [{ name: 'server' }], cookie_fields: [{ name: '__ga' }, { name: 'accountNumber' }] })] },
      });
      assert.equal(res.status, 200);
      const rs = res.body.result;
      assert.equal(rs.version, '2');
      assert.equal(rs.rules.length, 1);
      const r = rs.rules[0];
      assert.match(r.id, /^[0-9a-f]{32}$/);
      assert.equal(r.version, '1');
      assert.equal(r.ref, r.id);
      assert.equal(r.enabled, true);
      assert.equal(r.action, 'log_custom_field');
      assert.equal(r.expression, 'true');
      assert.match(r.last_updated, /\.\d{6}Z$/);
      assert.deepEqual(r.action_parameters.cookie_fields, [{ name: '__ga' }, { name: 'accountNumber' }]);
    });

    it('lists the ruleset without its rules and gets it with them', async () => {
      const list = await t.call('GET', base);
      assert.equal(list.body.result.length, 1);
      assert.equal(list.body.result[0].id, rulesetId);
      assert.equal(list.body.result[0].rules, undefined);
      const got = await t.call('GET', `${base}/${rulesetId}`);
      assert.equal(got.body.result.version, '2');
      assert.equal(got.body.result.rules.length, 1);
    });
  });

  describe('versions', () => {
    it('bumps a rule version only when the rule itself changes', async () => {
      const z = await freshZone();
      const b = `/zones/${z}/rulesets`;
      const created = await t.call('POST', b, { body: { name: 'x', kind: 'zone', phase, rules: [rule(), rule({ cookie_fields: [{ name: 'a' }] })] } });
      assert.equal(created.status, 200);
      const [r1, r2] = created.body.result.rules;
      // same first rule, changed second rule
      const put = await t.call('PUT', `${b}/${created.body.result.id}`, {
        body: { rules: [{ ...rule(), id: r1.id }, { ...rule({ cookie_fields: [{ name: 'b' }] }), id: r2.id }] },
      });
      assert.equal(put.status, 200);
      const [n1, n2] = put.body.result.rules;
      assert.equal(put.body.result.version, '2');
      assert.equal(n1.id, r1.id);
      assert.equal(n1.version, '1');
      assert.equal(n1.last_updated, r1.last_updated);
      assert.equal(n2.id, r2.id);
      assert.equal(n2.version, '2');
      // the same content again still makes a new ruleset version
      const again = await t.call('PUT', `${b}/${created.body.result.id}`, { body: { rules: put.body.result.rules.map((r: { id: string }) => ({ ...rule(), id: r.id })).slice(0, 1) } });
      assert.equal(again.body.result.version, '3');
    });

    it('keeps every version and serves each one', async () => {
      const z = await freshZone();
      const b = `/zones/${z}/rulesets`;
      const created = await t.call('POST', b, { body: { name: 'x', kind: 'zone', phase } });
      const id = created.body.result.id;
      await t.call('PUT', `${b}/${id}`, { body: { rules: [rule()] } });
      await t.call('PUT', `${b}/${id}`, { body: { rules: [rule({ response_fields: [{ name: 'server' }] })] } });
      const versions = await t.call('GET', `${b}/${id}/versions`);
      assert.deepEqual(versions.body.result.map((v: { version: string }) => v.version), ['3', '2', '1']);
      assert.equal(versions.body.result[0].rules, undefined);
      const v2 = await t.call('GET', `${b}/${id}/versions/2`);
      assert.deepEqual(v2.body.result.rules[0].action_parameters, { request_fields: [{ name: 'content-type' }] });
      const del = await t.call('DELETE', `${b}/${id}/versions/2`);
      assert.equal(del.status, 204);
      assert.equal(del.text, '');
      assert.equal((await t.call('GET', `${b}/${id}/versions/2`)).status, 404);
      const current = await t.call('DELETE', `${b}/${id}/versions/3`);
      assert.equal(current.status, 400);
      assert.match(current.body.errors[0].message, /current version/);
      // a deleted version number is never reused
      const next = await t.call('PUT', `${b}/${id}`, { body: { rules: [] } });
      assert.equal(next.body.result.version, '4');
      assert.equal((await t.call('GET', `${b}/${id}/versions/abc`)).status, 400);
    });
  });

  describe('the phase entry point', () => {
    it('answers 404 / 10003 while there is none, and an empty versions list', async () => {
      const z = await freshZone();
      const res = await t.call('GET', `/zones/${z}/rulesets/phases/${phase}/entrypoint`);
      assert.equal(res.status, 404);
      assert.equal(res.body.errors[0].code, 10003);
      assert.match(res.body.errors[0].message, /could not find entrypoint ruleset in the http_log_custom_fields phase/);
      const versions = await t.call('GET', `/zones/${z}/rulesets/phases/${phase}/entrypoint/versions`);
      assert.deepEqual(versions.body.result, []);
      assert.equal((await t.call('GET', `/zones/${z}/rulesets/phases/${phase}/entrypoint/versions/1`)).status, 404);
    });

    it('is created by PUT when missing, then updated by PUT', async () => {
      const z = await freshZone();
      const path = `/zones/${z}/rulesets/phases/${phase}/entrypoint`;
      const created = await t.call('PUT', path, { body: { rules: [rule()] } });
      assert.equal(created.status, 200);
      assert.equal(created.body.result.name, 'default');
      assert.equal(created.body.result.version, '1');
      const updated = await t.call('PUT', path, { body: { rules: [rule({ cookie_fields: [{ name: 'session' }] })], description: 'd' } });
      assert.equal(updated.body.result.version, '2');
      assert.equal(updated.body.result.id, created.body.result.id);
      assert.equal(updated.body.result.description, 'd');
      const got = await t.call('GET', path);
      assert.equal(got.body.result.version, '2');
      const versions = await t.call('GET', `${path}/versions`);
      assert.equal(versions.body.result.length, 2);
      const v1 = await t.call('GET', `${path}/versions/1`);
      assert.deepEqual(v1.body.result.rules[0].action_parameters, { request_fields: [{ name: 'content-type' }] });
    });

    it('refuses any other phase with a clear 400', async () => {
      const res = await t.call('GET', `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`);
      assert.equal(res.status, 400);
      assert.match(res.body.errors[0].message, /serves only the http_log_custom_fields phase/);
      const post = await t.call('POST', base, { body: { name: 'x', kind: 'zone', phase: 'http_request_firewall_custom' } });
      assert.equal(post.status, 400);
      assert.equal(post.body.errors[0].source.pointer, '/phase');
    });
  });

  describe('single rules', () => {
    let b: string;
    let id: string;
    const ids: string[] = [];

    before(async () => {
      const z = await freshZone();
      b = `/zones/${z}/rulesets`;
      const created = await t.call('POST', b, { body: { name: 'x', kind: 'zone', phase, rules: [rule()] } });
      id = created.body.result.id;
      ids.push(created.body.result.rules[0].id);
    });

    it('adds a rule at the bottom by default and returns the whole ruleset', async () => {
      const res = await t.call('POST', `${b}/${id}/rules`, { body: rule({ cookie_fields: [{ name: 'b' }] }) });
      assert.equal(res.status, 200);
      assert.equal(res.body.result.version, '2');
      assert.equal(res.body.result.rules.length, 2);
      assert.equal(res.body.result.rules[0].id, ids[0]);
      ids.push(res.body.result.rules[1].id);
    });

    it('adds a rule before another, at the top, and at an index', async () => {
      const top = await t.call('POST', `${b}/${id}/rules`, { body: { ...rule({ cookie_fields: [{ name: 'top' }] }), position: { before: '' } } });
      assert.deepEqual(top.body.result.rules[0].action_parameters, { cookie_fields: [{ name: 'top' }] });
      const before2 = await t.call('POST', `${b}/${id}/rules`, { body: { ...rule({ cookie_fields: [{ name: 'mid' }] }), position: { before: ids[1] } } });
      const names = before2.body.result.rules.map((r: { action_parameters: { cookie_fields?: { name: string }[] } }) => r.action_parameters.cookie_fields?.[0]?.name ?? 'req');
      assert.deepEqual(names, ['top', 'req', 'mid', 'b']);
      const at = await t.call('POST', `${b}/${id}/rules`, { body: { ...rule({ cookie_fields: [{ name: 'second' }] }), position: { index: 2 } } });
      assert.equal(at.body.result.rules[1].action_parameters.cookie_fields[0].name, 'second');
    });

    it('moves a rule with a position-only PATCH without bumping its version', async () => {
      const res = await t.call('PATCH', `${b}/${id}/rules/${ids[0]}`, { body: { position: { after: '' } } });
      assert.equal(res.status, 200);
      const last = res.body.result.rules.at(-1);
      assert.equal(last.id, ids[0]);
      assert.equal(last.version, '1');
    });

    it('redefines a rule with PATCH and bumps its version', async () => {
      const res = await t.call('PATCH', `${b}/${id}/rules/${ids[0]}`, { body: rule({ response_fields: [{ name: 'server' }] }) });
      const edited = res.body.result.rules.find((r: { id: string }) => r.id === ids[0]);
      assert.equal(edited.version, '2');
      assert.deepEqual(edited.action_parameters, { response_fields: [{ name: 'server' }] });
      assert.equal(res.body.result.rules.at(-1).id, ids[0], 'position kept');
    });

    it('deletes a rule and answers 200 with the ruleset', async () => {
      const before = await t.call('GET', `${b}/${id}`);
      const res = await t.call('DELETE', `${b}/${id}/rules/${ids[1]}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.result.rules.length, before.body.result.rules.length - 1);
      assert.ok(!res.body.result.rules.some((r: { id: string }) => r.id === ids[1]));
      assert.equal(Number(res.body.result.version), Number(before.body.result.version) + 1);
    });

    it('answers 404 for a rule that is not there and 400 for a bad position', async () => {
      assert.equal((await t.call('DELETE', `${b}/${id}/rules/${'f'.repeat(32)}`)).status, 404);
      assert.equal((await t.call('PATCH', `${b}/${id}/rules/${'f'.repeat(32)}`, { body: rule() })).status, 404);
      const bad = await t.call('POST', `${b}/${id}/rules`, { body: { ...rule(), position: { before: ids[0], after: '' } } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].source.pointer, '/position');
      const missing = await t.call('POST', `${b}/${id}/rules`, { body: { ...rule(), position: { after: 'e'.repeat(32) } } });
      assert.equal(missing.status, 400);
      assert.match(missing.body.errors[0].message, /not in this ruleset/);
    });
  });

  describe('dry_run', () => {
    it('validates and answers without storing anything on every mutation', async () => {
      const z = await freshZone();
      const b = `/zones/${z}/rulesets`;
      const dry = await t.call('POST', `${b}?dry_run=true`, { body: { name: 'x', kind: 'zone', phase } });
      assert.equal(dry.status, 200);
      assert.equal(dry.body.result, null);
      assert.deepEqual((await t.call('GET', b)).body.result, []);
      const invalid = await t.call('POST', `${b}?dry_run=true`, { body: { name: 'x', kind: 'zone', phase, rules: [rule({ request_fields: [{ name: 'Bad' }] })] } });
      assert.equal(invalid.status, 400);
      const created = await t.call('POST', b, { body: { name: 'x', kind: 'zone', phase, rules: [rule()] } });
      const id = created.body.result.id;
      const ruleId = created.body.result.rules[0].id;
      const calls: [string, string, unknown, number][] = [
        ['PUT', `${b}/${id}`, { rules: [] }, 200],
        ['POST', `${b}/${id}/rules`, rule({ cookie_fields: [{ name: 'c' }] }), 200],
        ['PATCH', `${b}/${id}/rules/${ruleId}`, rule({ cookie_fields: [{ name: 'd' }] }), 200],
        ['DELETE', `${b}/${id}/rules/${ruleId}`, undefined, 200],
        ['PUT', `/zones/${z}/rulesets/phases/${phase}/entrypoint`, { rules: [] }, 200],
        ['DELETE', `${b}/${id}`, undefined, 204],
      ];
      for (const [method, path, body, status] of calls) {
        const res = await t.call(method, `${path}?dry_run=true`, body === undefined ? {} : { body });
        assert.equal(res.status, status, `${method} ${path}`);
        if (status === 200) assert.equal(res.body.result, null, `${method} ${path}`);
      }
      const after = await t.call('GET', `${b}/${id}`);
      assert.equal(after.body.result.version, '1');
      assert.equal(after.body.result.rules.length, 1);
      const bad = await t.call('PUT', `${b}/${id}?dry_run=yes`, { body: { rules: [] } });
      assert.equal(bad.status, 400);
      assert.match(bad.body.errors[0].message, /dry_run must be true or false/);
    });
  });

  describe('deleting', () => {
    it('answers 204 with an empty body and then 404', async () => {
      const z = await freshZone();
      const b = `/zones/${z}/rulesets`;
      const created = await t.call('POST', b, { body: { name: 'x', kind: 'zone', phase } });
      const res = await t.call('DELETE', `${b}/${created.body.result.id}`);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.equal((await t.call('GET', `${b}/${created.body.result.id}`)).status, 404);
      assert.equal((await t.call('DELETE', `${b}/${created.body.result.id}`)).status, 404);
      // the phase is free again
      assert.equal((await t.call('POST', b, { body: { name: 'y', kind: 'zone', phase } })).status, 200);
    });
  });

  describe('validation', () => {
    let id: string;
    before(async () => {
      const z = await freshZone();
      const created = await t.call('POST', `/zones/${z}/rulesets`, { body: { name: 'x', kind: 'zone', phase } });
      id = created.body.result.id;
      base = `/zones/${z}/rulesets`;
    });

    const cases: { name: string; rules: unknown; pointer: string; message: RegExp }[] = [
      { name: 'another action', rules: [{ ...rule(), action: 'block' }], pointer: '/rules/0/action', message: /log_custom_field/ },
      { name: 'an expression other than true', rules: [{ ...rule(), expression: 'http.host eq "a"' }], pointer: '/rules/0/expression', message: /true/ },
      { name: 'no field arrays', rules: [rule({})], pointer: '/rules/0/action_parameters', message: /at least one/i },
      { name: 'an empty array', rules: [rule({ request_fields: [] })], pointer: '/rules/0/action_parameters/request_fields', message: /empty|at least one/i },
      { name: 'an upper-case header name', rules: [rule({ request_fields: [{ name: 'X-Custom' }] })], pointer: '/rules/0/action_parameters/request_fields/0/name', message: /lower case/ },
      { name: 'an upper-case response header', rules: [rule({ response_fields: [{ name: 'ok' }, { name: 'Server' }] })], pointer: '/rules/0/action_parameters/response_fields/1/name', message: /lower case/ },
      { name: 'a header name that is not a token', rules: [rule({ request_fields: [{ name: 'a b' }] })], pointer: '/rules/0/action_parameters/request_fields/0/name', message: /./ },
      { name: 'a bad cookie name', rules: [rule({ cookie_fields: [{ name: 'a;b' }] })], pointer: '/rules/0/action_parameters/cookie_fields/0/name', message: /./ },
      { name: 'a duplicate name', rules: [rule({ cookie_fields: [{ name: 'a' }, { name: 'a' }] })], pointer: '/rules/0/action_parameters/cookie_fields/1/name', message: /more than once/ },
      { name: 'an unknown rule key', rules: [{ ...rule(), color: 'red' }], pointer: '/rules/0/color', message: /color/ },
      { name: 'an unknown parameter key', rules: [rule({ request_fields: [{ name: 'a' }], header_fields: [] })], pointer: '/rules/0/action_parameters/header_fields', message: /header_fields/ },
      { name: 'an item with an extra key', rules: [rule({ request_fields: [{ name: 'a', x: 1 }] })], pointer: '/rules/0/action_parameters/request_fields/0/x', message: /x/ },
      { name: 'rules that are not an array', rules: { a: 1 }, pointer: '/rules', message: /array/ },
      { name: 'a rule that is not an object', rules: ['x'], pointer: '/rules/0', message: /object/ },
    ];
    for (const c of cases) {
      it(`refuses ${c.name} with a pointer to it, and changes nothing`, async () => {
        const res = await t.call('PUT', `${base}/${id}`, { body: { rules: c.rules } });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.success, false);
        assert.equal(res.body.result, null);
        const error = res.body.errors.find((e: { source?: { pointer: string } }) => e.source?.pointer === c.pointer);
        assert.ok(error, `expected an error at ${c.pointer}, got ${res.text}`);
        assert.match(error.message, c.message);
        assert.equal((await t.call('GET', `${base}/${id}`)).body.result.version, '1');
      });
    }

    it('refuses the 41st custom field of the zone, counted across rules and arrays', async () => {
      const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}` }));
      const forty = [rule({ request_fields: names('req', 20), response_fields: names('res', 10) }), rule({ cookie_fields: names('c', 10) })];
      const ok = await t.call('PUT', `${base}/${id}`, { body: { rules: forty } });
      assert.equal(ok.status, 200, ok.text);
      const res = await t.call('POST', `${base}/${id}/rules`, { body: rule({ cookie_fields: [{ name: 'one-more' }] }) });
      assert.equal(res.status, 400);
      assert.match(res.body.errors[0].message, /at most 40 custom fields/);
      assert.match(res.body.errors[0].message, /41/);
    });

    it('refuses changes to name, kind and phase', async () => {
      const res = await t.call('PUT', `${base}/${id}`, { body: { rules: [], name: 'other' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.errors[0].source.pointer, '/name');
    });

    it('refuses a kind other than zone, a missing name and unknown top-level keys', async () => {
      const z = await freshZone();
      const b = `/zones/${z}/rulesets`;
      assert.equal((await t.call('POST', b, { body: { name: 'x', kind: 'custom', phase } })).body.errors[0].source.pointer, '/kind');
      assert.equal((await t.call('POST', b, { body: { kind: 'zone', phase } })).body.errors[0].source.pointer, '/name');
      assert.equal((await t.call('POST', b, { body: { name: 'x', kind: 'zone', phase, extra: 1 } })).body.errors[0].source.pointer, '/extra');
      assert.deepEqual((await t.call('GET', b)).body.result, []);
    });
  });

  describe('bad requests', () => {
    it('answers malformed JSON with 400 / 6007', async () => {
      const res = await t.call('POST', base, { raw: '{"name":', headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.errors[0].code, 6007);
    });

    it('answers a body that is not an object with 400', async () => {
      const res = await t.call('POST', base, { body: [1, 2] });
      assert.equal(res.status, 400);
    });

    it('answers a body over the limit with 413', async () => {
      const res = await t.call('POST', base, { body: { name: 'x'.repeat(2 * 1024 * 1024), kind: 'zone', phase } });
      assert.equal(res.status, 413);
      assert.equal(res.body.success, false);
    });

    it('answers bad ids in the path with 400 / 7003 and unknown routes with 404 / 7000', async () => {
      assert.equal((await t.call('GET', `${base}/not-an-id`)).body.errors[0].code, 7003);
      assert.equal((await t.call('GET', `/zones/XYZ/rulesets`)).body.errors[0].code, 7003);
      const unknown = await t.call('GET', `/zones/${zone}/nothing-here`);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.errors[0].code, 7000);
    });

    it('refuses over-long strings', async () => {
      const res = await t.call('PUT', `${base}`.replace(/rulesets$/, `rulesets/phases/${phase}/entrypoint`), {
        body: { rules: [rule({ request_fields: [{ name: 'a'.repeat(300) }] })] },
      });
      assert.equal(res.status, 400);
      assert.match(res.body.errors[0].message, /at most/);
    });
  });
});
