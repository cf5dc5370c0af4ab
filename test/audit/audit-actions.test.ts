/**
 * The audit log's catalogue of actions is one list (src/audit/audit-action.ts, which every entry's type
 * must come from, and which the dashboard's Action filter offers); docs/security.md describes each.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { auditActions } from '../../src/audit/audit-action.ts';

describe('the audit actions', () => {
  it('are each described in docs/security.md', () => {
    const doc = fs.readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const missing = auditActions.filter((action) => !doc.includes(`\`${action}\``));
    assert.deepEqual(missing, []);
  });
});
