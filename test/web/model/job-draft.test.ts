import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job } from '../../../web/src/api/job.ts';
import { jobBody, jobDraftOf, needsOwnership, newJobDraft } from '../../../web/src/model/job-draft.ts';

const stored: Job = {
  id: 3,
  dataset: 'http_requests',
  enabled: true,
  name: 'www',
  destination_conf: 's3://bucket/logs?region=us-east-1&access-key-id=AK&secret-access-key=REDACTED',
  filter: '{"where":{"key":"ClientCountry","operator":"eq","value":"ca"}}',
  output_options: { field_names: ['RayID', 'ClientIP'], timestamp_format: 'unix', sample_rate: 0.25, record_prefix: '{', 'CVE-2021-4428': true },
  logpull_options: null,
  last_complete: null,
  last_error: null,
  error_message: null,
};

describe('the job wizard draft', () => {
  it('asks for an ownership proof for files and for S3 without its own keys only', () => {
    const cases: readonly [string, boolean][] = [
      ['file:///acme/logs', true],
      ['s3://bucket/logs?region=us-east-1', true],
      ['s3://bucket/logs?region=us-east-1&access-key-id=A&secret-access-key=S', false],
      ['r2://bucket/p?account-id=0&access-key-id=A&secret-access-key=S', false],
      ['https://logs.example.com/in', false],
    ];
    for (const [conf, expected] of cases) assert.equal(needsOwnership(conf), expected, conf);
  });

  it('creates a job with the dataset, the destination and the ownership token', () => {
    const draft = { ...newJobDraft(['RayID']), name: ' errors ', destinationConf: 'file:///x', ownershipChallenge: ' tok ' };
    assert.deepEqual(jobBody(draft, null, undefined), {
      name: 'errors',
      dataset: 'http_requests',
      filter: null,
      destination_conf: 'file:///x',
      ownership_challenge: 'tok',
      enabled: true,
      output_options: { field_names: ['RayID'], output_type: 'ndjson', timestamp_format: 'rfc3339', sample_rate: 1, 'CVE-2021-44228': false },
    });
  });

  it('edits a job without resending its masked destination or its untouched filter, keeping other output options', () => {
    const draft = { ...jobDraftOf(stored), enabled: false };
    assert.equal(draft.timestampFormat, 'unix');
    assert.equal(draft.sampleRate, '0.25');
    assert.equal(draft.cve202144228, true);
    const body = jobBody(draft, '{"where":{"and":[{"key":"ClientCountry","operator":"eq","value":"ca"}]}}', stored);
    assert.equal(body.destination_conf, undefined);
    assert.equal(body.dataset, undefined);
    assert.equal(body.filter, stored.filter);
    assert.equal(body.enabled, false);
    assert.deepEqual(body.output_options, {
      field_names: ['RayID', 'ClientIP'],
      timestamp_format: 'unix',
      sample_rate: 0.25,
      record_prefix: '{',
      output_type: 'ndjson',
      'CVE-2021-44228': true,
    });
  });

  it('sends the builder’s filter once it was used, and a changed destination', () => {
    const draft = { ...jobDraftOf(stored), filterEdited: true, destinationConf: 'file:///new' };
    const body = jobBody(draft, null, stored);
    assert.equal(body.filter, null);
    assert.equal(body.destination_conf, 'file:///new');
  });

  it("starts a new job with the default fields and the fields holding the zone's custom fields", () => {
    assert.deepEqual(newJobDraft(['RayID', 'ClientIP'], ['RequestHeaders', 'Cookies']).fieldNames, ['RayID', 'ClientIP', 'RequestHeaders', 'Cookies']);
    assert.deepEqual(newJobDraft(['RayID', 'Cookies'], ['Cookies']).fieldNames, ['RayID', 'Cookies'], 'each once');
    assert.deepEqual(newJobDraft(['RayID']).fieldNames, ['RayID']);
  });
});
