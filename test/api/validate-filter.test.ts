import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../support/test-app.ts';

describe('validate/filter', () => {
  let t: TestApp;
  let zone: string;

  before(async () => {
    t = await startTestApp({ LOGEXPORT_FILTER_MAX_OPERATORS: '2' });
    zone = await t.zone(await t.user());
  });
  after(async () => t.stop());

  for (const word of ['logexport', 'logpush']) {
    it(`says a filter is valid, under ${word}`, async () => {
      const res = await t.call('POST', `/zones/${zone}/${word}/validate/filter`, {
        body: { filter: '{"where":{"and":[{"key":"ClientCountry","operator":"eq","value":"ca"}]}}' },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.result, { valid: true, message: '' });
    });
  }

  it('answers the same message job create gives, with the configured limits', async () => {
    const typed = await t.call('POST', `/zones/${zone}/logexport/validate/filter`, {
      body: { dataset: 'http_requests', filter: '{"where":{"and":[{"key":"ClientCountry","operator":"lt","value":3}]}}' },
    });
    assert.equal(typed.body.result.valid, false);
    assert.match(typed.body.result.message, /^filter \/where\/and\/0: operator "lt"/);
    const many = await t.call('POST', `/zones/${zone}/logexport/validate/filter`, {
      body: { filter: JSON.stringify({ where: { and: [1, 2, 3].map((n) => ({ key: 'EdgeResponseStatus', operator: 'eq', value: n })) } }) },
    });
    assert.equal(many.body.result.valid, false);
    assert.match(many.body.result.message, /2/);
    const notJson = await t.call('POST', `/zones/${zone}/logexport/validate/filter`, { body: { filter: '{nope' } });
    assert.match(notJson.body.result.message, /^filter: /);
  });

  it('treats an empty or null filter as no filter, and refuses a bad body with a pointer', async () => {
    for (const filter of ['', null]) {
      const res = await t.call('POST', `/zones/${zone}/logexport/validate/filter`, { body: { filter } });
      assert.deepEqual(res.body.result, { valid: true, message: '' });
    }
    const bad = await t.call('POST', `/zones/${zone}/logexport/validate/filter`, { body: { filter: 5 } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].source.pointer, '/filter');
    const dataset = await t.call('POST', `/zones/${zone}/logexport/validate/filter`, { body: { filter: '', dataset: 'dns_logs' } });
    assert.equal(dataset.status, 400);
    assert.equal(dataset.body.errors[0].source.pointer, '/dataset');
  });
});
