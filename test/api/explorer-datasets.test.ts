/**
 * Log Explorer datasets refuse every bad body with a 400 pointing at the value, and change nothing: an
 * unknown dataset, an unknown or repeated field, no field kept, a filter that does not parse, wrong
 * types, unknown keys; a second dataset of a type; unknown ids. Table-driven, through HTTP.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/test-app.ts';

describe('Log Explorer dataset validation', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };
  let zoneId: string;
  let datasetId: string;
  const base = () => `/zones/${zoneId}/logs/explorer/datasets`;

  before(async () => {
    t = await startTestApp();
    owner = await t.user();
    zoneId = await t.zone(owner, 'datasets.example');
  });
  after(async () => t.stop());

  const badCreates: readonly (readonly [string, unknown, string])[] = [
    ['no dataset', {}, '/dataset'],
    ['an unknown dataset', { dataset: 'firewall_events' }, '/dataset'],
    ['a dataset that is not a string', { dataset: 7 }, '/dataset'],
    ['an unknown field', { dataset: 'http_requests', fields: [{ name: 'nosuchfield', enabled: true }] }, '/fields/0/name'],
    ['a field named twice', { dataset: 'http_requests', fields: [{ name: 'rayid', enabled: true }, { name: 'RayID', enabled: false }] }, '/fields/1/name'],
    ['a field without enabled', { dataset: 'http_requests', fields: [{ name: 'rayid' }] }, '/fields/0'],
    ['fields that are not an array', { dataset: 'http_requests', fields: 'rayid' }, '/fields'],
    ['a filter that is not JSON', { dataset: 'http_requests', filter: '{where' }, '/filter'],
    ['a filter on an unknown field', { dataset: 'http_requests', filter: '{"where":{"key":"Nope","operator":"eq","value":1}}' }, '/filter'],
    ['a filter that is not a string', { dataset: 'http_requests', filter: { where: {} } }, '/filter'],
    ['enabled that is not a boolean', { dataset: 'http_requests', enabled: 'yes' }, '/enabled'],
    ['an unknown key', { dataset: 'http_requests', name: 'x' }, '/name'],
  ];
  for (const [what, body, pointer] of badCreates) {
    it(`refuses to create a dataset with ${what}`, async () => {
      const answer = await t.call('POST', base(), { body, auth: owner });
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.body.errors[0].code, 14400);
      assert.ok(
        answer.body.errors.some((e: { source?: { pointer: string } }) => e.source?.pointer === pointer),
        answer.text,
      );
      assert.deepEqual((await t.call('GET', base(), { auth: owner })).body.result, []);
    });
  }

  it('refuses a dataset that keeps no field', async () => {
    const { httpRequests } = await import('../../src/domain/datasets/http-requests.ts');
    const answer = await t.call('POST', base(), { body: { dataset: 'http_requests', fields: httpRequests.fields.map((f) => ({ name: f.name, enabled: false })) }, auth: owner });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.errors[0].source.pointer, '/fields');
  });

  it('creates one dataset of a type, and refuses a second', async () => {
    const created = await t.call('POST', base(), { body: { dataset: 'http_requests', enabled: false, fields: [{ name: 'RayID', enabled: true }, { name: 'clientip', enabled: false }] }, auth: owner });
    assert.equal(created.status, 200, created.text);
    datasetId = created.body.result.dataset_id;
    assert.equal(created.body.result.enabled, false);
    const second = await t.call('POST', base(), { body: { dataset: 'http_requests' }, auth: owner });
    assert.equal(second.status, 400);
    assert.equal(second.body.errors[0].code, 14401);
  });

  const badUpdates: readonly (readonly [string, unknown, string])[] = [
    ['no enabled', { fields: [] }, '/enabled'],
    ['an unknown field', { enabled: true, fields: [{ name: 'nope', enabled: true }] }, '/fields/0/name'],
    ['a bad filter', { enabled: true, filter: '{"where":{"key":"RayID","operator":"gt","value":"x"}}' }, '/filter'],
    ['the dataset type', { enabled: true, dataset: 'http_requests' }, '/dataset'],
    ['deletion_protection that is not a boolean', { enabled: true, deletion_protection: 1 }, '/deletion_protection'],
  ];
  for (const [what, body, pointer] of badUpdates) {
    it(`refuses to update a dataset with ${what}, changing nothing`, async () => {
      const before = (await t.call('GET', `${base()}/${datasetId}`, { auth: owner })).body.result;
      const answer = await t.call('PUT', `${base()}/${datasetId}`, { body, auth: owner });
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.body.errors[0].code, 14400);
      assert.ok(
        answer.body.errors.some((e: { source?: { pointer: string } }) => e.source?.pointer === pointer),
        answer.text,
      );
      assert.deepEqual((await t.call('GET', `${base()}/${datasetId}`, { auth: owner })).body.result, before);
    });
  }

  it('answers unknown and malformed dataset ids', async () => {
    const unknown = await t.call('GET', `${base()}/${'f'.repeat(32)}`, { auth: owner });
    assert.equal(unknown.status, 404);
    const malformed = await t.call('DELETE', `${base()}/not-an-id`, { auth: owner });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.errors[0].code, 7003);
  });

  it('lets a read-only token list datasets but not change them', async () => {
    const reader = await t.token(owner, [zoneId], ['logs:read']);
    assert.equal((await t.call('GET', base(), { auth: { token: reader } })).status, 200);
    const refused = await t.call('PUT', `${base()}/${datasetId}`, { body: { enabled: true }, auth: { token: reader } });
    assert.equal(refused.status, 403);
  });
});
