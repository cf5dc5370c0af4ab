/** A Log Explorer result as CSV and NDJSON downloads, and a row copied as JSON. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rowJson, rowsToCsv, rowsToNdjson } from '../../../web/src/model/result-export.ts';

describe('exporting a result', () => {
  const columns = ['host', 'requests', 'headers'];
  const rows = [
    { host: 'a.example', requests: 3, headers: { 'x-custom': 'hi' } },
    { HOST: 'say "hi", then\nleave', requests: null },
  ];

  it('writes CSV with a header row, quoting what needs it and maps as JSON', () => {
    assert.equal(rowsToCsv(columns, rows), 'host,requests,headers\r\na.example,3,"{""x-custom"":""hi""}"\r\n"say ""hi"", then\nleave",,\r\n');
  });

  it('writes a header row alone for no rows', () => {
    assert.equal(rowsToCsv(['a,b'], []), '"a,b"\r\n');
  });

  it('writes NDJSON with the columns in order and a missing value as null', () => {
    assert.equal(rowsToNdjson(columns, rows), '{"host":"a.example","requests":3,"headers":{"x-custom":"hi"}}\n{"host":"say \\"hi\\", then\\nleave","requests":null,"headers":null}\n');
    assert.equal(rowsToNdjson(columns, []), '');
  });

  it('copies one row as indented JSON', () => {
    assert.equal(rowJson(['a', 'b'], { b: 2, a: '1' }, 2), '{\n  "a": "1",\n  "b": 2\n}');
  });
});
