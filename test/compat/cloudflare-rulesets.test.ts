import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Cloudflare from 'cloudflare';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const phase = 'http_log_custom_fields';

/** The client types these answers as `Ruleset | unknown`; this is the part the test reads. */
interface RulesetShape {
  id: string;
  version: string;
  rules: { id: string; version: string; enabled: boolean; action_parameters: unknown }[];
}
const asRuleset = (value: unknown): RulesetShape => value as RulesetShape;

/** Drives the custom-fields workflow with the official `cloudflare` npm client pointed at logexport. */
async function customFieldsWorkflow(client: Cloudflare, zoneId: string): Promise<void> {
  // 1. find the zone ruleset of the phase
  const found = [];
  for await (const ruleset of client.rulesets.list({ zone_id: zoneId })) found.push(ruleset);
  assert.deepEqual(found, []);

  // 2. none, so create it
  const created = asRuleset(await client.rulesets.create({
    zone_id: zoneId,
    name: 'Zone-level phase entry point',
    kind: 'zone',
    description: '',
    phase,
  }));
  assert.match(created.id, /^[0-9a-f]{32}$/);
  assert.equal(created.version, '1');

  // 3. put the one rule
  const updated = asRuleset(await client.rulesets.update(created.id, {
    zone_id: zoneId,
    rules: [
      {
        action: 'log_custom_field',
        expression: 'true',
        description: 'Set Logpush custom fields for HTTP requests',
        action_parameters: {
          request_fields: [{ name: 'content-type' }, { name: 'x-forwarded-for' }, { name: 'host' }],
          response_fields: [{ name: 'server' }, { name: 'content-type' }, { name: 'allow' }],
          cookie_fields: [{ name: '__ga' }, { name: 'accountNumber' }, { name: '__cfruid' }],
        },
      },
    ],
  }));
  assert.equal(updated.version, '2');
  assert.equal(updated.rules.length, 1);
  const ruleId = updated.rules[0]?.id ?? '';
  assert.equal(updated.rules[0]?.version, '1');
  assert.equal(updated.rules[0]?.enabled, true);

  const listed = [];
  for await (const ruleset of client.rulesets.list({ zone_id: zoneId })) listed.push(ruleset);
  assert.deepEqual(listed.map((r) => [r.id, r.kind, r.phase]), [[created.id, 'zone', phase]]);

  const got = asRuleset(await client.rulesets.get(created.id, { zone_id: zoneId }));
  assert.deepEqual(got.rules[0]?.action_parameters, updated.rules[0]?.action_parameters);

  const entry = asRuleset(await client.rulesets.phases.get(phase, { zone_id: zoneId }));
  assert.equal(entry.id, created.id);
  const entryUpdated = asRuleset(await client.rulesets.phases.update(phase, {
    zone_id: zoneId,
    rules: [{ id: ruleId, action: 'log_custom_field', expression: 'true', action_parameters: { cookie_fields: [{ name: 'session' }] } }],
  }));
  assert.equal(entryUpdated.version, '3');
  assert.equal(entryUpdated.rules[0]?.id, ruleId);
  assert.equal(entryUpdated.rules[0]?.version, '2');

  const added = asRuleset(await client.rulesets.rules.create(created.id, {
    zone_id: zoneId,
    action: 'log_custom_field',
    expression: 'true',
    action_parameters: { request_fields: [{ name: 'user-agent' }] },
    position: { before: '' },
  }));
  assert.equal(added.rules.length, 2);
  const addedId = added.rules[0]?.id ?? '';
  assert.notEqual(addedId, ruleId);

  const edited = asRuleset(await client.rulesets.rules.edit(addedId, {
    zone_id: zoneId,
    ruleset_id: created.id,
    action: 'log_custom_field',
    expression: 'true',
    action_parameters: { request_fields: [{ name: 'referer' }] },
  }));
  const editedRule = edited.rules.find((r) => r.id === addedId);
  assert.equal(editedRule?.version, '2');

  const deleted = asRuleset(await client.rulesets.rules.delete(addedId, { zone_id: zoneId, ruleset_id: created.id }));
  assert.deepEqual(deleted.rules.map((r) => r.id), [ruleId]);

  const versions = [];
  for await (const v of client.rulesets.versions.list(created.id, { zone_id: zoneId })) versions.push(v.version);
  assert.deepEqual(versions, ['6', '5', '4', '3', '2', '1']);
  const v2 = asRuleset(await client.rulesets.versions.get('2', { zone_id: zoneId, ruleset_id: created.id }));
  assert.equal(v2.rules[0]?.id, ruleId);

  const phaseVersions = [];
  for await (const v of client.rulesets.phases.versions.list(phase, { zone_id: zoneId })) phaseVersions.push(v.version);
  assert.equal(phaseVersions.length, 6);
  const pv = asRuleset(await client.rulesets.phases.versions.get('3', { zone_id: zoneId, ruleset_phase: phase }));
  assert.equal(pv.version, '3');

  await client.rulesets.versions.delete('1', { zone_id: zoneId, ruleset_id: created.id });
  await client.rulesets.delete(created.id, { zone_id: zoneId });
  const after: unknown[] = [];
  for await (const r of client.rulesets.list({ zone_id: zoneId })) after.push(r);
  assert.deepEqual(after, []);
}

describe('the official cloudflare npm client', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };

  before(async () => {
    t = await startTestApp();
    owner = await t.user();
  });
  after(async () => t.stop());

  it('runs the custom-fields workflow with the global API key', async () => {
    const zoneId = await t.zone(owner);
    const client = new Cloudflare({ baseURL: t.baseUrl, apiEmail: owner.email, apiKey: owner.key, maxRetries: 0 });
    await customFieldsWorkflow(client, zoneId);
  });

  it('runs the custom-fields workflow with an API token', async () => {
    const zoneId = await t.zone(owner);
    const token = await t.token(owner, [zoneId], ['logs:edit']);
    const client = new Cloudflare({ baseURL: t.baseUrl, apiToken: token, maxRetries: 0 });
    await customFieldsWorkflow(client, zoneId);
  });

  it('surfaces the API errors as typed client errors', async () => {
    const zoneId = await t.zone(owner);
    const client = new Cloudflare({ baseURL: t.baseUrl, apiEmail: owner.email, apiKey: owner.key, maxRetries: 0 });
    await assert.rejects(client.rulesets.phases.get(phase, { zone_id: zoneId }), (error: unknown) => {
      assert.ok(error instanceof Cloudflare.NotFoundError);
      assert.match(String(error.message), /10003/);
      return true;
    });
    const ruleset = asRuleset(await client.rulesets.create({ zone_id: zoneId, name: 'x', kind: 'zone', phase }));
    await assert.rejects(
      client.rulesets.update(ruleset.id, {
        zone_id: zoneId,
        rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'X-Upper' }] } }],
      }),
      (error: unknown) => {
        assert.ok(error instanceof Cloudflare.BadRequestError);
        assert.match(String(error.message), /lower case/);
        return true;
      },
    );
    const stranger = new Cloudflare({ baseURL: t.baseUrl, apiEmail: owner.email, apiKey: 'b'.repeat(37), maxRetries: 0 });
    await assert.rejects(stranger.rulesets.get(ruleset.id, { zone_id: zoneId }), Cloudflare.PermissionDeniedError);
  });
});
