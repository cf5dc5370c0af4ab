import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import {
  hasFieldNames,
  outputOptionLimits,
  parseLogpullOptions,
  parseOutputOptions,
  resolveOutputPlan,
} from '../../../src/domain/jobs/output-options.ts';
import type { OutputOptions } from '../../../src/domain/jobs/output-options.ts';

const fields = ['RayID', 'ClientIP', 'EdgeStartTimestamp'];

function accepted(value: unknown): OutputOptions | null {
  const result = parseOutputOptions(value, httpRequests);
  if (!result.ok) assert.fail(`expected acceptance, got ${JSON.stringify(result.error)}`);
  return result.value;
}

function rejected(value: unknown): readonly { message: string; pointer?: string }[] {
  const result = parseOutputOptions(value, httpRequests);
  if (result.ok) assert.fail(`expected rejection of ${JSON.stringify(value)}`);
  return result.error;
}

describe('parseOutputOptions', () => {
  it('treats null and undefined as unset', () => {
    assert.equal(accepted(null), null);
    assert.equal(accepted(undefined), null);
  });

  const valid: readonly [string, Record<string, unknown>, OutputOptions][] = [
    ['field_names alone', { field_names: fields }, { fieldNames: fields }],
    ['output_type ndjson', { field_names: fields, output_type: 'ndjson' }, { fieldNames: fields, outputType: 'ndjson' }],
    ['output_type csv', { field_names: fields, output_type: 'csv' }, { fieldNames: fields, outputType: 'csv' }],
    ['batch_prefix', { field_names: fields, batch_prefix: 'a,b\n' }, { fieldNames: fields, batchPrefix: 'a,b\n' }],
    ['batch_suffix', { field_names: fields, batch_suffix: ']' }, { fieldNames: fields, batchSuffix: ']' }],
    ['record_prefix', { field_names: fields, record_prefix: '' }, { fieldNames: fields, recordPrefix: '' }],
    ['record_suffix', { field_names: fields, record_suffix: '}' }, { fieldNames: fields, recordSuffix: '}' }],
    ['record_delimiter', { field_names: fields, record_delimiter: ',\n' }, { fieldNames: fields, recordDelimiter: ',\n' }],
    ['field_delimiter', { field_names: fields, field_delimiter: '\t' }, { fieldNames: fields, fieldDelimiter: '\t' }],
    ['timestamp_format unixnano', { field_names: fields, timestamp_format: 'unixnano' }, { fieldNames: fields, timestampFormat: 'unixnano' }],
    ['timestamp_format unix', { field_names: fields, timestamp_format: 'unix' }, { fieldNames: fields, timestampFormat: 'unix' }],
    ['timestamp_format rfc3339', { field_names: fields, timestamp_format: 'rfc3339' }, { fieldNames: fields, timestampFormat: 'rfc3339' }],
    ['timestamp_format rfc3339ms', { field_names: fields, timestamp_format: 'rfc3339ms' }, { fieldNames: fields, timestampFormat: 'rfc3339ms' }],
    ['timestamp_format rfc3339ns', { field_names: fields, timestamp_format: 'rfc3339ns' }, { fieldNames: fields, timestampFormat: 'rfc3339ns' }],
    ['sample_rate 1', { field_names: fields, sample_rate: 1 }, { fieldNames: fields, sampleRate: 1 }],
    ['sample_rate 0.001', { field_names: fields, sample_rate: 0.001 }, { fieldNames: fields, sampleRate: 0.001 }],
    ['CVE-2021-44228 true', { field_names: fields, 'CVE-2021-44228': true }, { fieldNames: fields, redactCve202144228: true }],
    ['CVE-2021-44228 false', { field_names: fields, 'CVE-2021-44228': false }, { fieldNames: fields, redactCve202144228: false }],
    ['CVE-2021-4428 (typo spelling) true', { field_names: fields, 'CVE-2021-4428': true }, { fieldNames: fields, redactCve202144228: true }],
    ['both CVE spellings agreeing', { field_names: fields, 'CVE-2021-44228': true, 'CVE-2021-4428': true }, { fieldNames: fields, redactCve202144228: true }],
    ['CVE-2021-44228 as the string "true"', { field_names: fields, 'CVE-2021-44228': 'true' }, { fieldNames: fields, redactCve202144228: true }],
    ['merge_subrequests false', { field_names: fields, merge_subrequests: false }, { fieldNames: fields }],
    ['custom-field objects in field_names', { field_names: ['Cookies', 'RequestHeaders', 'ResponseHeaders'] }, { fieldNames: ['Cookies', 'RequestHeaders', 'ResponseHeaders'] }],
  ];
  for (const [name, input, expected] of valid) {
    it(`accepts ${name}`, () => {
      assert.deepEqual(accepted(input), expected);
    });
  }

  it('accepts a record_template and keeps it parsed', () => {
    const options = accepted({ field_names: fields, record_template: '{{ .RayID }} {{"x"}}' });
    assert.deepEqual(options?.recordTemplate?.parts, [
      { kind: 'field', name: 'RayID' },
      { kind: 'text', text: ' x' },
    ]);
    assert.equal(options?.recordTemplate?.source, '{{ .RayID }} {{"x"}}');
  });

  it('treats every null-valued known key (as Terraform sends them) as unset', () => {
    const terraform = {
      field_names: fields, output_type: null, batch_prefix: null, batch_suffix: null, record_prefix: null,
      record_suffix: null, record_delimiter: null, field_delimiter: null, record_template: null,
      timestamp_format: null, sample_rate: null, 'CVE-2021-44228': null, 'CVE-2021-4428': null, merge_subrequests: null,
    };
    assert.deepEqual(accepted(terraform), { fieldNames: fields });
  });

  it('accepts the defaults Terraform plans written out explicitly', () => {
    const options = accepted({
      field_names: fields, output_type: 'ndjson', batch_prefix: '', batch_suffix: '', record_prefix: '{',
      record_suffix: '}\n', record_delimiter: '', field_delimiter: ',', timestamp_format: 'unixnano', sample_rate: 1,
      'CVE-2021-44228': false,
    });
    assert.equal(options?.recordPrefix, '{');
    assert.equal(options?.redactCve202144228, false);
  });

  const invalid: readonly [string, unknown, string, RegExp][] = [
    ['a non-object', 'fields=RayID', '/output_options', /must be an object/],
    ['an array', [fields], '/output_options', /must be an object/],
    ['an unknown key, by name', { field_names: fields, stringify_object: true }, '/output_options/stringify_object', /unknown key "stringify_object"/],
    ['a key with a slash, pointer-escaped', { field_names: fields, 'a/b~c': 1 }, '/output_options/a~1b~0c', /unknown key "a\/b~c"/],
    ['a missing field_names', { output_type: 'csv' }, '/output_options/field_names', /field_names is required/],
    ['a null field_names', { field_names: null }, '/output_options/field_names', /field_names is required/],
    ['an empty field_names', { field_names: [] }, '/output_options/field_names', /at least one field/],
    ['a string field_names', { field_names: 'RayID' }, '/output_options/field_names', /must be an array/],
    ['an unknown field, by name', { field_names: ['RayID', 'ClientIP', 'Nope', 'NotAField'] }, '/output_options/field_names/2', /unknown field "Nope"/],
    ['a lower-cased field name', { field_names: ['rayid'] }, '/output_options/field_names/0', /unknown field "rayid"/],
    ['a duplicate field', { field_names: ['RayID', 'ClientIP', 'RayID'] }, '/output_options/field_names/2', /"RayID" is listed more than once/],
    ['a non-string field', { field_names: ['RayID', 7] }, '/output_options/field_names/1', /must be field names/],
    ['more fields than the catalogue has', { field_names: Array.from({ length: httpRequests.fields.length + 1 }, () => 'RayID') }, '/output_options/field_names', /has only/],
    ['an unknown output_type', { field_names: fields, output_type: 'json' }, '/output_options/output_type', /ndjson, csv/],
    ['an upper-case output_type', { field_names: fields, output_type: 'CSV' }, '/output_options/output_type', /ndjson, csv/],
    ['an unknown timestamp_format', { field_names: fields, timestamp_format: 'iso8601' }, '/output_options/timestamp_format', /unixnano, unix, rfc3339, rfc3339ms, rfc3339ns/],
    ['sample_rate 0', { field_names: fields, sample_rate: 0 }, '/output_options/sample_rate', /greater than 0 and at most 1/],
    ['sample_rate 1.5', { field_names: fields, sample_rate: 1.5 }, '/output_options/sample_rate', /greater than 0 and at most 1/],
    ['sample_rate -0.1', { field_names: fields, sample_rate: -0.1 }, '/output_options/sample_rate', /greater than 0/],
    ['sample_rate "0.5"', { field_names: fields, sample_rate: '0.5' }, '/output_options/sample_rate', /must be a number/],
    ['a non-string record_prefix', { field_names: fields, record_prefix: 1 }, '/output_options/record_prefix', /record_prefix must be a string/],
    ['an over-long batch_prefix', { field_names: fields, batch_prefix: 'x'.repeat(outputOptionLimits.stringLength + 1) }, '/output_options/batch_prefix', /longer than 4096/],
    ['an over-long record_template', { field_names: fields, record_template: 'x'.repeat(outputOptionLimits.stringLength + 1) }, '/output_options/record_template', /longer than 4096/],
    ['a record_template with a function', { field_names: fields, record_template: '{{ .RayID }}{{ printf "%s" .RayID }}' }, '/output_options/record_template', /functions are not supported.*offset 15/],
    ['a record_template with an unknown field', { field_names: fields, record_template: 'a {{ .Nope }}' }, '/output_options/record_template', /unknown field "Nope".*offset 5/],
    ['a non-boolean CVE option', { field_names: fields, 'CVE-2021-44228': 1 }, '/output_options/CVE-2021-44228', /true or false/],
    ['a non-boolean typo CVE option', { field_names: fields, 'CVE-2021-4428': 'yes' }, '/output_options/CVE-2021-4428', /true or false/],
    ['both CVE spellings disagreeing', { field_names: fields, 'CVE-2021-44228': true, 'CVE-2021-4428': false }, '/output_options/CVE-2021-4428', /two spellings of one option/],
    ['merge_subrequests true', { field_names: fields, merge_subrequests: true }, '/output_options/merge_subrequests', /not supported/],
    ['merge_subrequests as a string', { field_names: fields, merge_subrequests: 'false' }, '/output_options/merge_subrequests', /not supported/],
  ];
  for (const [name, input, pointer, message] of invalid) {
    it(`rejects ${name}`, () => {
      const errors = rejected(input);
      const match = errors.find((e) => e.pointer === pointer);
      assert.ok(match, `no error at ${pointer}: ${JSON.stringify(errors)}`);
      assert.match(match.message, message);
    });
  }

  it('reports every problem of one body, each at its own pointer', () => {
    const errors = rejected({ field_names: ['RayID', 'Nope'], output_type: 'xml', extra: 1 });
    assert.deepEqual(
      errors.map((e) => e.pointer),
      ['/output_options/field_names/1', '/output_options/output_type', '/output_options/extra'],
    );
  });

  it('caps the number of reported problems', () => {
    const body: Record<string, unknown> = { field_names: fields };
    for (let i = 0; i < 100; i++) body[`k${i}`] = i;
    const errors = rejected(body);
    assert.equal(errors.length, outputOptionLimits.reportedProblems + 1);
    assert.match(errors.at(-1)?.message ?? '', /and 80 more problems/);
  });

  it('cuts a huge unknown name short in the message', () => {
    const errors = rejected({ field_names: fields, ['k'.repeat(10_000)]: 1 });
    assert.ok((errors[0]?.message.length ?? 0) < 200);
  });

  it('accepts any non-empty set of distinct catalogue fields, in the order given', () => {
    const names = httpRequests.fields.map((f) => f.name);
    fc.assert(
      fc.property(fc.shuffledSubarray(names, { minLength: 1 }), (picked) => {
        assert.deepEqual(accepted({ field_names: picked })?.fieldNames, picked);
      }),
    );
  });

  it('accepts exactly the sample rates in (0, 1]', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (rate) => {
        const result = parseOutputOptions({ field_names: fields, sample_rate: rate }, httpRequests);
        assert.equal(result.ok, rate > 0 && rate <= 1);
      }),
    );
  });
});

describe('parseLogpullOptions', () => {
  function logpull(value: unknown): OutputOptions | null {
    const result = parseLogpullOptions(value, httpRequests);
    if (!result.ok) assert.fail(`expected acceptance, got ${JSON.stringify(result.error)}`);
    return result.value;
  }

  it('treats null, undefined and the empty string as unset', () => {
    assert.equal(logpull(null), null);
    assert.equal(logpull(undefined), null);
    assert.equal(logpull(''), null);
  });

  const valid: readonly [string, string, OutputOptions][] = [
    ['every key', 'fields=RayID,ClientIP&timestamps=rfc3339&sample=0.1&CVE-2021-44228=true',
      { fieldNames: ['RayID', 'ClientIP'], timestampFormat: 'rfc3339', sampleRate: 0.1, redactCve202144228: true }],
    ['fields alone', 'fields=EdgeStartTimestamp', { fieldNames: ['EdgeStartTimestamp'] }],
    ['timestamps unix without fields', 'timestamps=unix', { timestampFormat: 'unix' }],
    ['timestamps unixnano', 'fields=RayID&timestamps=unixnano', { fieldNames: ['RayID'], timestampFormat: 'unixnano' }],
    ['sample 1', 'fields=RayID&sample=1', { fieldNames: ['RayID'], sampleRate: 1 }],
    ['CVE false', 'fields=RayID&CVE-2021-44228=false', { fieldNames: ['RayID'], redactCve202144228: false }],
    ['percent-encoded commas and spaces', 'fields=RayID%2C%20ClientIP', { fieldNames: ['RayID', 'ClientIP'] }],
    ['a leading question mark', '?fields=RayID', { fieldNames: ['RayID'] }],
    ['a full Logpull URL with start and end',
      'https://api.cloudflare.com/client/v4/zones/0123/logs/received?start=2024-01-01T00:00:00Z&end=2024-01-01T00:01:00Z&fields=RayID',
      { fieldNames: ['RayID'] }],
  ];
  for (const [name, input, expected] of valid) {
    it(`accepts ${name}`, () => {
      assert.deepEqual(logpull(input), expected);
    });
  }

  const invalid: readonly [string, unknown, RegExp][] = [
    ['a non-string', { fields: ['RayID'] }, /must be a string/],
    ['an unknown key, by name', 'fields=RayID&count=10', /unknown key "count"/],
    ['an unknown field, by name', 'fields=RayID,Nope', /unknown field "Nope" in logpull_options fields/],
    ['a duplicate field', 'fields=RayID,RayID', /"RayID" is listed more than once/],
    ['an empty field entry', 'fields=RayID,', /without empty entries/],
    ['an empty fields value', 'fields=', /without empty entries/],
    ['a repeated key', 'fields=RayID&fields=ClientIP', /"fields" more than once/],
    ['a timestamps value only output_options knows', 'fields=RayID&timestamps=rfc3339ms', /unixnano, unix, rfc3339$/],
    ['sample 0', 'fields=RayID&sample=0', /greater than 0/],
    ['sample 1.5', 'fields=RayID&sample=1.5', /at most 1/],
    ['sample that is not a number', 'fields=RayID&sample=half', /sample must be a number/],
    ['sample in exponent form', 'fields=RayID&sample=1e-1', /sample must be a number/],
    ['a non-boolean CVE value', 'fields=RayID&CVE-2021-44228=1', /true or false/],
    ['an over-long string', `fields=${'RayID,'.repeat(1000)}`, /longer than 4096/],
  ];
  for (const [name, input, message] of invalid) {
    it(`rejects ${name} at /logpull_options`, () => {
      const result = parseLogpullOptions(input, httpRequests);
      if (result.ok) assert.fail('expected rejection');
      assert.ok(result.error.every((e) => e.pointer === '/logpull_options'));
      assert.ok(result.error.some((e) => message.test(e.message)), JSON.stringify(result.error));
    });
  }
});

describe('resolveOutputPlan', () => {
  it('applies the ndjson defaults when nothing else is set', () => {
    assert.deepEqual(resolveOutputPlan({ fieldNames: ['RayID'] }, null), {
      fieldNames: ['RayID'], outputType: 'ndjson', batchPrefix: '', batchSuffix: '', recordPrefix: '{',
      recordSuffix: '}\n', recordDelimiter: '', fieldDelimiter: ',', recordTemplate: null,
      timestampFormat: 'unixnano', sampleRate: 1, redactCve202144228: false,
    });
  });

  it('applies the csv defaults for output_type csv', () => {
    const plan = resolveOutputPlan({ fieldNames: ['RayID'], outputType: 'csv' }, null);
    assert.equal(plan.recordPrefix, '');
    assert.equal(plan.recordSuffix, '\n');
    assert.equal(plan.fieldDelimiter, ',');
  });

  it('keeps values the client set over the type defaults', () => {
    const plan = resolveOutputPlan({ fieldNames: ['RayID'], outputType: 'csv', recordSuffix: '\r\n', fieldDelimiter: '\t' }, null);
    assert.equal(plan.recordSuffix, '\r\n');
    assert.equal(plan.fieldDelimiter, '\t');
  });

  it('prefers output_options over logpull_options', () => {
    const plan = resolveOutputPlan({ fieldNames: ['RayID'] }, { fieldNames: ['ClientIP'], timestampFormat: 'rfc3339' });
    assert.deepEqual(plan.fieldNames, ['RayID']);
    assert.equal(plan.timestampFormat, 'unixnano');
  });

  it('falls back to logpull_options when output_options is unset', () => {
    const plan = resolveOutputPlan(null, { fieldNames: ['ClientIP'], timestampFormat: 'rfc3339', sampleRate: 0.5, redactCve202144228: true });
    assert.deepEqual(plan.fieldNames, ['ClientIP']);
    assert.equal(plan.timestampFormat, 'rfc3339');
    assert.equal(plan.sampleRate, 0.5);
    assert.equal(plan.redactCve202144228, true);
    assert.equal(plan.recordPrefix, '{');
  });

  it('treats an empty record_template as no template', () => {
    const options = accepted({ field_names: ['RayID'], record_template: '' });
    assert.equal(resolveOutputPlan(options, null).recordTemplate, null);
  });

  it('reports through hasFieldNames whether a plan can run', () => {
    assert.equal(hasFieldNames(resolveOutputPlan(null, null)), false);
    assert.equal(hasFieldNames(resolveOutputPlan(null, { timestampFormat: 'unix' })), false);
    assert.equal(hasFieldNames(resolveOutputPlan({ fieldNames: ['RayID'] }, null)), true);
  });
});
