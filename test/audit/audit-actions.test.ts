/**
 * The audit log's catalogue of actions is one list (src/audit/record-audit.ts, which every entry's type must
 * come from); the dashboard's Action filter and docs/security.md name the same actions.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { auditActions } from '../../src/audit/record-audit.ts';
import { auditActionTypes } from '../../web/src/api/audit-entry.ts';

describe('the audit actions', () => {
  it('are the ones the dashboard offers to filter by', () => {
    assert.deepEqual([...auditActionTypes].sort(), [...auditActions].sort());
  });

  it('are each described in docs/security.md', () => {
    const doc = fs.readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const missing = auditActions.filter((action) => !doc.includes(`\`${action}\``));
    assert.deepEqual(missing, []);
  });
});
