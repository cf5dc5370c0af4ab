/** Parsing the body of `POST …/edge/jobs`: the accepted forms, and no input that throws. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpRequests } from '../../src/domain/datasets/http-requests.ts';
import { defaultFilterLimits } from '../../src/domain/filters/parse-filter.ts';
import { parseLiveSessionInput } from '../../src/live/live-session.ts';

const parse = (body: unknown) => parseLiveSessionInput(body, httpRequests, defaultFilterLimits);

describe('an Instant Logs session body', () => {
  it('takes custom-field fields, spaces around names, a filter and a sample', () => {
    const r = parse({ fields: 'RayID, RequestHeaders ,Cookies', filter: '{"where":{"key":"ClientCountry","operator":"eq","value":"ca"}}', sample: 100 });
    assert.ok(r.ok);
    assert.deepEqual(r.value.fieldNames, ['RayID', 'RequestHeaders', 'Cookies']);
    assert.equal(r.value.fields, 'RayID, RequestHeaders ,Cookies');
    assert.equal(r.value.sample, 100);
  });

  it('treats null, "" and a missing filter as no filter, and null sample as 1', () => {
    for (const filter of [null, undefined, '']) {
      const r = parse({ fields: 'RayID', filter, sample: null });
      assert.ok(r.ok);
      assert.equal(r.value.sample, 1);
    }
  });

  it('refuses the filter limits a job has, with the job pointer', () => {
    const leaves = Array.from({ length: 31 }, () => ({ key: 'EdgeResponseStatus', operator: 'eq', value: 1 }));
    const r = parse({ filter: JSON.stringify({ where: { and: leaves } }) });
    assert.ok(!r.ok);
    assert.equal(r.error[0]?.pointer, '/filter');
  });

  it('answers every body with a session or with problems that each carry a pointer, never a throw', () => {
    fc.assert(
      fc.property(fc.anything(), (body) => {
        const r = parse(body);
        if (!r.ok) assert.ok(r.error.length > 0);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.record({ fields: fc.oneof(fc.string(), fc.constantFrom('RayID', 'RayID,ClientIP')), filter: fc.option(fc.string()), sample: fc.oneof(fc.integer(), fc.double()) }, { requiredKeys: [] }), (body) => {
        const r = parse(body);
        if (!r.ok) for (const problem of r.error) assert.match(problem.pointer ?? '', /^\/(fields|filter|sample)$/);
      }),
      { numRuns: 500 },
    );
  });
});
