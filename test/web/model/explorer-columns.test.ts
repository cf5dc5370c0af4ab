/** The columns beside Log Explorer's editor, and inserting one at the cursor. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnsFromCatalogue, columnsFromSchema, insertAt } from '../../../web/src/model/explorer-columns.ts';

describe('Log Explorer’s columns', () => {
  it('reads the names and types of a JSON schema, sorted', () => {
    const schema = {
      type: 'object',
      properties: {
        RayID: { type: 'string' },
        EdgeStartTimestamp: { type: 'string', format: 'date-time' },
        EdgeResponseStatus: { type: ['integer', 'null'] },
        RequestHeaders: { type: 'object' },
        Odd: true,
      },
    };
    assert.deepEqual(columnsFromSchema(schema), [
      { name: 'EdgeResponseStatus', type: 'integer' },
      { name: 'EdgeStartTimestamp', type: 'timestamp' },
      { name: 'Odd', type: undefined },
      { name: 'RayID', type: 'string' },
      { name: 'RequestHeaders', type: 'object' },
    ]);
  });

  for (const schema of [undefined, null, {}, { properties: {} }, { properties: 'x' }]) {
    it(`finds no columns in ${JSON.stringify(schema)}`, () => assert.equal(columnsFromSchema(schema), undefined));
  }

  it('falls back on the field catalogue', () => {
    assert.deepEqual(columnsFromCatalogue([{ name: 'b', type: 'int', description: '' }, { name: 'a', type: 'string', description: '' }]), [
      { name: 'a', type: 'string' },
      { name: 'b', type: 'int' },
    ]);
  });

  const inserts: readonly [string, string, number, number, { text: string; caret: number }][] = [
    ['at the cursor', 'SELECT  FROM t', 7, 7, { text: 'SELECT RayID FROM t', caret: 12 }],
    ['over the selection', 'SELECT * FROM t', 7, 8, { text: 'SELECT RayID FROM t', caret: 12 }],
    ['at the end for a cursor past it', 'SELECT * FROM t', 99, 99, { text: 'SELECT * FROM tRayID', caret: 20 }],
  ];
  for (const [what, text, start, end, expected] of inserts) {
    it(`inserts a column ${what}`, () => assert.deepEqual(insertAt(text, start, end, 'RayID'), expected));
  }
});
