import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { AppError, errorCatalogue } from '../../src/core/app-error.ts';

function documentedErrors(): Map<string, { code: number; status: number }> {
  const text = fs.readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map<string, { code: number; status: number }>();
  for (const line of text.split('\n')) {
    const m = /^\| (\w+) \| (\d+) \| (\d+) \|/.exec(line);
    if (m) rows.set(m[1] ?? '', { code: Number(m[2]), status: Number(m[3]) });
  }
  return rows;
}

describe('the error catalogue', () => {
  it('lists exactly the errors docs/errors.md documents, with the same codes and statuses', () => {
    const documented = documentedErrors();
    const inCode = new Map(Object.entries(errorCatalogue).map(([name, e]) => [name, { code: e.code, status: e.status }]));
    assert.deepEqual([...documented.keys()].sort(), [...inCode.keys()].sort());
    for (const [name, entry] of inCode) assert.deepEqual(documented.get(name), entry, name);
  });

  it('uses only 4xx and 5xx statuses, and 409 only for a conflict that retrying fixes', () => {
    for (const [name, entry] of Object.entries(errorCatalogue)) {
      assert.ok(entry.status >= 400 && entry.status < 600, name);
      if (entry.status === 409) assert.equal(name, 'concurrentChange');
    }
  });

  it('carries the catalogue code, status and every detail', () => {
    const error = new AppError('rulesetInvalid', [{ message: 'a', pointer: '/x' }, { message: 'b' }]);
    assert.equal(error.code, 20200);
    assert.equal(error.status, 400);
    assert.equal(error.details.length, 2);
    assert.equal(new AppError('internal').details[0]?.message, 'internal error');
  });
});
