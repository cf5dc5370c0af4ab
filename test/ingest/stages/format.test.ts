import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import type { FieldType } from '../../../src/domain/datasets/http-requests.ts';
import type { EventRecord } from '../../../src/domain/datasets/event-record.ts';
import { parseOutputOptions, resolveOutputPlan } from '../../../src/domain/jobs/output-options.ts';
import type { TimestampFormat } from '../../../src/domain/jobs/output-options.ts';
import { compileFormatter } from '../../../src/ingest/stages/format.ts';
import type { RecordFormatter } from '../../../src/ingest/stages/format.ts';

/** A formatter built the way a job builds one: from output_options as a client sends them. */
function formatterFor(outputOptions: Record<string, unknown>): RecordFormatter {
  const parsed = parseOutputOptions(outputOptions, httpRequests);
  if (!parsed.ok) assert.fail(JSON.stringify(parsed.error));
  return compileFormatter(resolveOutputPlan(parsed.value, null), httpRequests);
}

const record: EventRecord = {
  RayID: '3a6050bcbe121a87',
  ClientIP: '89.163.242.206',
  EdgeStartTimestamp: '1506702504433000200',
  EdgeEndTimestamp: '1506702504533000000',
  EdgeResponseStatus: 200,
  EdgeResponseCompressionRatio: 1.5,
  CacheTieredFill: false,
  BotTags: ['api', 'say "hi"'],
  BotDetectionIDs: [1, 2],
  RequestHeaders: { 'content-type': 'text/html', 'x-quote': 'a"b' },
  ClientRequestUserAgent: 'curl/8 "quoted", with comma\nand newline',
};

describe('compileFormatter, ndjson', () => {
  it('writes the default layout: {"Name":value,...}\\n in field_names order', () => {
    const f = formatterFor({ field_names: ['RayID', 'EdgeResponseStatus', 'ClientIP'] });
    assert.equal(f.format(record), '{"RayID":"3a6050bcbe121a87","EdgeResponseStatus":200,"ClientIP":"89.163.242.206"}\n');
    assert.equal(f.batchPrefix, '');
    assert.equal(f.batchSuffix, '');
    assert.equal(f.recordDelimiter, '');
  });

  it('writes each catalogue type as JSON: strings, ints, floats, bools, arrays, objects', () => {
    const f = formatterFor({
      field_names: ['ClientRequestUserAgent', 'EdgeResponseStatus', 'EdgeResponseCompressionRatio', 'CacheTieredFill', 'BotTags', 'BotDetectionIDs', 'RequestHeaders'],
    });
    const line = f.format(record);
    assert.equal(
      line,
      `{"ClientRequestUserAgent":${JSON.stringify(record['ClientRequestUserAgent'])},"EdgeResponseStatus":200,` +
        '"EdgeResponseCompressionRatio":1.5,"CacheTieredFill":false,"BotTags":["api","say \\"hi\\""],' +
        '"BotDetectionIDs":[1,2],"RequestHeaders":{"content-type":"text/html","x-quote":"a\\"b"}}\n',
    );
  });

  it('writes a field absent from the record, or null in it, as null', () => {
    const f = formatterFor({ field_names: ['RayID', 'Cookies', 'ClientCountry', 'EdgeStartTimestamp'] });
    assert.equal(f.format({ RayID: 'r', ClientCountry: null }), '{"RayID":"r","Cookies":null,"ClientCountry":null,"EdgeStartTimestamp":null}\n');
  });

  it('ignores record keys that field_names does not list', () => {
    const f = formatterFor({ field_names: ['RayID'] });
    assert.equal(f.format(record), '{"RayID":"3a6050bcbe121a87"}\n');
  });

  it('honours custom prefixes, suffixes and delimiters', () => {
    const f = formatterFor({
      field_names: ['RayID', 'EdgeResponseStatus'], batch_prefix: '[', batch_suffix: ']\n', record_prefix: '{"r":{',
      record_suffix: '}}', record_delimiter: ',\n', field_delimiter: ', ',
    });
    assert.equal(f.format(record), '{"r":{"RayID":"3a6050bcbe121a87", "EdgeResponseStatus":200}}');
    assert.equal(f.batchPrefix, '[');
    assert.equal(f.batchSuffix, ']\n');
    assert.equal(f.recordDelimiter, ',\n');
  });

  it('writes values of the wrong type faithfully instead of failing', () => {
    const f = formatterFor({ field_names: ['EdgeResponseStatus', 'RayID', 'CacheTieredFill', 'EdgeStartTimestamp', 'BotTags'] });
    const odd = { EdgeResponseStatus: '200', RayID: 7, CacheTieredFill: 'yes', EdgeStartTimestamp: 'soon', BotTags: 'x' };
    assert.equal(f.format(odd), '{"EdgeResponseStatus":"200","RayID":7,"CacheTieredFill":"yes","EdgeStartTimestamp":null,"BotTags":"x"}\n');
  });

  it('writes non-finite numbers as null, as JSON.stringify does', () => {
    const f = formatterFor({ field_names: ['EdgeResponseCompressionRatio'] });
    assert.equal(f.format({ EdgeResponseCompressionRatio: Number.NaN }), '{"EdgeResponseCompressionRatio":null}\n');
  });
});

describe('compileFormatter, csv', () => {
  it('writes values only: strings quoted, numbers and booleans bare, with the csv defaults', () => {
    const f = formatterFor({ field_names: ['ClientIP', 'EdgeStartTimestamp', 'RayID', 'EdgeResponseStatus', 'CacheTieredFill'], output_type: 'csv' });
    assert.equal(f.format(record), '"89.163.242.206",1506702504433000200,"3a6050bcbe121a87",200,false\n');
  });

  it('doubles inner quotes and keeps delimiters and newlines inside the quotes', () => {
    const f = formatterFor({ field_names: ['ClientRequestUserAgent'], output_type: 'csv' });
    assert.equal(f.format(record), '"curl/8 ""quoted"", with comma\nand newline"\n');
  });

  it('writes arrays and objects as their JSON text, quoted', () => {
    const f = formatterFor({ field_names: ['BotTags', 'BotDetectionIDs', 'RequestHeaders'], output_type: 'csv' });
    assert.equal(
      f.format(record),
      '"[""api"",""say \\""hi\\""""]","[1,2]","{""content-type"":""text/html"",""x-quote"":""a\\""b""}"\n',
    );
  });

  it('writes a field absent from the record as an empty cell', () => {
    const f = formatterFor({ field_names: ['RayID', 'ClientCountry', 'EdgeStartTimestamp', 'Cookies'], output_type: 'csv' });
    assert.equal(f.format({ RayID: 'r', ClientCountry: null }), '"r",,,\n');
  });

  it('joins cells with a custom field_delimiter', () => {
    const f = formatterFor({ field_names: ['RayID', 'EdgeResponseStatus'], output_type: 'csv', field_delimiter: '\t', batch_prefix: 'RayID\tEdgeResponseStatus\n' });
    assert.equal(f.format(record), '"3a6050bcbe121a87"\t200\n');
    assert.equal(f.batchPrefix, 'RayID\tEdgeResponseStatus\n');
  });
});

describe('compileFormatter, record_template', () => {
  it('replaces the field list with the template, keeping prefix and suffix (ndjson encodes values as JSON)', () => {
    const f = formatterFor({ field_names: ['RayID', 'EdgeResponseStatus'], record_template: '"ray":{{ .RayID }},"status":{{ .EdgeResponseStatus }}' });
    const line = f.format(record);
    assert.equal(line, '{"ray":"3a6050bcbe121a87","status":200}\n');
    assert.deepEqual(JSON.parse(line), { ray: '3a6050bcbe121a87', status: 200 });
  });

  it('encodes values as csv cells for output_type csv', () => {
    const f = formatterFor({ field_names: ['RayID', 'ClientRequestUserAgent', 'EdgeResponseStatus'], output_type: 'csv', record_template: '{{.RayID}};{{.EdgeResponseStatus}};{{.ClientRequestUserAgent}}' });
    assert.equal(f.format(record), '"3a6050bcbe121a87";200;"curl/8 ""quoted"", with comma\nand newline"\n');
  });

  it('ignores field_delimiter when a template is set', () => {
    const f = formatterFor({ field_names: ['RayID', 'ClientIP'], field_delimiter: '|', record_prefix: '', record_suffix: '\n', record_template: '{{.RayID}} {{.ClientIP}}' });
    assert.equal(f.format(record), '"3a6050bcbe121a87" "89.163.242.206"\n');
  });

  it('writes a template field that field_names does not list as null (ndjson) or empty (csv)', () => {
    const template = 'a={{.RayID}} b={{.ClientIP}}';
    const ndjson = formatterFor({ field_names: ['RayID'], record_prefix: '', record_suffix: '', record_template: template });
    assert.equal(ndjson.format(record), 'a="3a6050bcbe121a87" b=null');
    const csv = formatterFor({ field_names: ['RayID'], output_type: 'csv', record_suffix: '', record_template: template });
    assert.equal(csv.format(record), 'a="3a6050bcbe121a87" b=');
  });

  it('writes literal braces and text after the last field', () => {
    const f = formatterFor({ field_names: ['RayID'], record_prefix: '', record_suffix: '\n', record_template: '{{`{{`}} {{.RayID}} {{`}}`}}!' });
    assert.equal(f.format(record), '{{ "3a6050bcbe121a87" }}!\n');
  });

  it('writes a template without fields as constant text', () => {
    const f = formatterFor({ field_names: ['RayID'], record_prefix: '<', record_suffix: '>', record_template: 'x{{/* c */}}y' });
    assert.equal(f.format(record), '<xy>');
  });
});

describe('compileFormatter, timestamps', () => {
  const expected: Readonly<Record<TimestampFormat, string>> = {
    unixnano: '1506702504433000200',
    unix: '1506702504',
    rfc3339: '"2017-09-29T16:28:24Z"',
    rfc3339ms: '"2017-09-29T16:28:24.433Z"',
    rfc3339ns: '"2017-09-29T16:28:24.433000200Z"',
  };
  for (const [format, text] of Object.entries(expected) as [TimestampFormat, string][]) {
    it(`writes ${format} in ndjson as ${text}`, () => {
      const f = formatterFor({ field_names: ['EdgeStartTimestamp', 'RayID'], timestamp_format: format });
      assert.equal(f.format(record), `{"EdgeStartTimestamp":${text},"RayID":"3a6050bcbe121a87"}\n`);
    });
    it(`writes ${format} in csv as ${text}`, () => {
      const f = formatterFor({ field_names: ['RayID', 'EdgeStartTimestamp'], timestamp_format: format, output_type: 'csv' });
      assert.equal(f.format(record), `"3a6050bcbe121a87",${text}\n`);
    });
    it(`writes ${format} in a template as ${text}`, () => {
      const f = formatterFor({ field_names: ['EdgeStartTimestamp'], timestamp_format: format, record_prefix: '', record_suffix: '', record_template: 't={{ .EdgeStartTimestamp }}' });
      assert.equal(f.format(record), `t=${text}`);
    });
    it(`writes an absent timestamp as null / an empty cell in ${format}`, () => {
      assert.equal(formatterFor({ field_names: ['EdgeEndTimestamp'], timestamp_format: format }).format({}), '{"EdgeEndTimestamp":null}\n');
      assert.equal(formatterFor({ field_names: ['EdgeEndTimestamp'], timestamp_format: format, output_type: 'csv' }).format({}), '\n');
    });
  }

  it('applies the format to both timestamp fields', () => {
    const f = formatterFor({ field_names: ['EdgeStartTimestamp', 'EdgeEndTimestamp'], timestamp_format: 'rfc3339ms' });
    assert.equal(f.format(record), '{"EdgeStartTimestamp":"2017-09-29T16:28:24.433Z","EdgeEndTimestamp":"2017-09-29T16:28:24.533Z"}\n');
  });

  it('writes unixnano beyond 2^53 without losing a digit', () => {
    const f = formatterFor({ field_names: ['EdgeStartTimestamp'] });
    assert.equal(f.format({ EdgeStartTimestamp: '9007199254740993123' }), '{"EdgeStartTimestamp":9007199254740993123}\n');
  });
});

describe('compileFormatter, CVE-2021-44228', () => {
  const hostile: EventRecord = {
    RayID: '${jndi:ldap://x}',
    ClientRequestUserAgent: '$${lower:j}${',
    RequestHeaders: { 'x-a': '${env:SECRET}' },
    BotTags: ['${a}'],
  };

  it('replaces every ${ with x{ in values, prefixes and suffixes (ndjson)', () => {
    const f = formatterFor({
      field_names: ['RayID', 'ClientRequestUserAgent', 'RequestHeaders', 'BotTags'], 'CVE-2021-44228': true,
      record_prefix: '${{', record_suffix: '}${\n', batch_prefix: '${batch', batch_suffix: 'end${', record_delimiter: '${',
    });
    const line = f.format(hostile);
    assert.equal(
      line,
      'x{{"RayID":"x{jndi:ldap://x}","ClientRequestUserAgent":"$x{lower:j}x{","RequestHeaders":{"x-a":"x{env:SECRET}"},"BotTags":["x{a}"]}x{\n',
    );
    assert.equal(f.batchPrefix, 'x{batch');
    assert.equal(f.batchSuffix, 'endx{');
    assert.equal(f.recordDelimiter, 'x{');
  });

  it('replaces ${ in csv output', () => {
    const f = formatterFor({ field_names: ['RayID', 'BotTags'], output_type: 'csv', 'CVE-2021-4428': true });
    assert.equal(f.format(hostile), '"x{jndi:ldap://x}","[""x{a}""]"\n');
  });

  it('replaces a ${ formed where template text meets a value', () => {
    const f = formatterFor({ field_names: ['RequestHeaders'], record_prefix: '', record_suffix: '', record_template: '${{.RequestHeaders}}', 'CVE-2021-44228': true });
    assert.equal(f.format({ RequestHeaders: { a: '1' } }), 'x{"a":"1"}');
  });

  it('leaves ${ alone when the option is off', () => {
    const f = formatterFor({ field_names: ['RayID'], 'CVE-2021-44228': false });
    assert.equal(f.format(hostile), '{"RayID":"${jndi:ldap://x}"}\n');
  });

  it('leaves no ${ anywhere in redacted output', () => {
    const f = formatterFor({ field_names: ['RayID', 'ClientRequestUserAgent'], 'CVE-2021-44228': true, output_type: 'csv' });
    const dollarsAndBraces = fc.string({ unit: fc.constantFrom('$', '{', '}', 'a', '"') });
    fc.assert(
      fc.property(dollarsAndBraces, dollarsAndBraces, (a, b) => {
        assert.ok(!f.format({ RayID: a, ClientRequestUserAgent: b }).includes('${'));
      }),
    );
  });
});

/** A value a record may hold for a field of this catalogue type (canonical form). */
function valueOf(type: FieldType): fc.Arbitrary<unknown> {
  const text = fc.string({ unit: 'binary', maxLength: 20 });
  switch (type) {
    case 'string':
      return text;
    case 'int':
      return fc.integer();
    case 'float':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'bool':
      return fc.boolean();
    case 'timestamp':
      return fc.bigInt({ min: 0n, max: 4_102_444_800_000_000_000n }).map((n) => n.toString());
    case 'string[]':
      return fc.array(text, { maxLength: 4 });
    case 'int[]':
      return fc.array(fc.integer(), { maxLength: 4 });
    case 'object':
      return fc.dictionary(text, text, { maxKeys: 4, noNullPrototype: true });
  }
}

/** A random record: each catalogue field missing, null, or holding a value of its type. */
const records: fc.Arbitrary<EventRecord> = fc.record(
  Object.fromEntries(httpRequests.fields.map((f) => [f.name, fc.option(valueOf(f.type), { nil: undefined })])),
  { requiredKeys: [] },
);
const fieldNameLists = fc.shuffledSubarray(httpRequests.fields.map((f) => f.name), { minLength: 1 });
const timestampFormats = fc.constantFrom<TimestampFormat>('unixnano', 'unix', 'rfc3339', 'rfc3339ms', 'rfc3339ns');

/** Splits one csv record (RFC 4180 quoting, `,` between cells) into raw cells. */
function csvCells(line: string): string[] {
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    let cell = '';
    if (line[i] === '"') {
      i += 1;
      for (;;) {
        const q = line.indexOf('"', i);
        assert.ok(q !== -1, 'unterminated quoted cell');
        cell += line.slice(i, q);
        i = q + 1;
        if (line[i] === '"') {
          cell += '"';
          i += 1;
        } else {
          break;
        }
      }
      cell = `"${cell}`;
    } else {
      const comma = line.indexOf(',', i);
      const end = comma === -1 ? line.length : comma;
      cell = line.slice(i, end);
      i = end;
    }
    cells.push(cell);
    if (i >= line.length) return cells;
    assert.equal(line[i], ',');
    i += 1;
  }
}

describe('compileFormatter, properties', () => {
  it('writes every ndjson record as one valid JSON object with exactly the field_names keys, in order', () => {
    fc.assert(
      fc.property(records, fieldNameLists, timestampFormats, (rec, names, format) => {
        const f = formatterFor({ field_names: names, timestamp_format: format });
        const line = f.format(rec);
        assert.ok(line.endsWith('}\n'));
        assert.ok(!line.slice(0, -1).includes('\n'), 'one line per record');
        const parsed: unknown = JSON.parse(line);
        assert.ok(typeof parsed === 'object' && parsed !== null);
        assert.deepEqual(Object.keys(parsed), names);
      }),
    );
  });

  it('writes non-timestamp values that JSON.parse reads back unchanged', () => {
    fc.assert(
      fc.property(records, fieldNameLists, (rec, names) => {
        const parsed = JSON.parse(formatterFor({ field_names: names }).format(rec)) as Record<string, unknown>;
        for (const name of names) {
          if (httpRequests.field(name)?.type === 'timestamp') continue;
          const value = rec[name] ?? null;
          assert.deepEqual(parsed[name], value === null ? null : JSON.parse(JSON.stringify(value)));
        }
      }),
    );
  });

  it('writes one csv cell per field, whose content decodes to the value', () => {
    fc.assert(
      fc.property(records, fieldNameLists, (rec, names) => {
        const line = formatterFor({ field_names: names, output_type: 'csv' }).format(rec);
        assert.ok(line.endsWith('\n'));
        const cells = csvCells(line.slice(0, -1));
        assert.equal(cells.length, names.length);
        names.forEach((name, i) => {
          const value = rec[name];
          const cell = cells[i] ?? '';
          const type = httpRequests.field(name)?.type;
          if (value === undefined || value === null) assert.equal(cell, '');
          else if (type === 'timestamp') assert.equal(cell, value);
          else if (typeof value === 'string') assert.equal(cell, `"${value}`);
          else if (typeof value === 'object') assert.deepEqual(JSON.parse(cell.slice(1)), value);
          else assert.equal(cell, String(value));
        });
      }),
    );
  });

  it('writes the same bytes for the same record, whatever order its keys were set in', () => {
    fc.assert(
      fc.property(records, fieldNameLists, fc.constantFrom('ndjson', 'csv'), (rec, names, type) => {
        const f = formatterFor({ field_names: names, output_type: type, timestamp_format: 'rfc3339ns' });
        const reversed = Object.fromEntries(Object.entries(rec).reverse());
        assert.equal(f.format(reversed), f.format(rec));
        assert.equal(f.format(rec), formatterFor({ field_names: names, output_type: type, timestamp_format: 'rfc3339ns' }).format(rec));
      }),
    );
  });
});
