/**
 * The parts of a Log Explorer answer that need no DuckDB: timestamps as RFC 3339 in UTC with the fraction
 * digits they need, keys in lower case and unique, and DuckDB's errors made readable with where they point.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rfc3339OfNanos } from '../../src/explorer/json-value.ts';
import { answerKeys } from '../../src/explorer/sandbox-query.ts';
import { readableSqlError } from '../../src/explorer/sql-error.ts';

describe('Log Explorer answer values', () => {
  it('writes timestamps as RFC 3339 in UTC with as many fraction digits as they need', () => {
    const cases: [bigint, string][] = [
      [0n, '1970-01-01T00:00:00Z'],
      [1_764_172_800_000_000_000n, '2025-11-26T16:00:00Z'],
      [1_764_172_800_123_000_000n, '2025-11-26T16:00:00.123Z'],
      [1_764_172_800_123_456_000n, '2025-11-26T16:00:00.123456Z'],
      [1_764_172_800_123_456_789n, '2025-11-26T16:00:00.123456789Z'],
      [-1_000_000n, '1969-12-31T23:59:59.999Z'],
    ];
    for (const [nanos, text] of cases) assert.equal(rfc3339OfNanos(nanos), text);
  });

  it('answers keys in lower case, telling apart names equal but for case', () => {
    assert.deepEqual(answerKeys(['EdgeResponseStatus', 'Requests', 'requests', 'REQUESTS']), ['edgeresponsestatus', 'requests', 'requests_2', 'requests_3']);
  });

  it("makes DuckDB's errors readable, with the line, column and fragment they point at", () => {
    const sql = 'SELECT RayID\nFROM http_requests\nWHERE NoSuchField = 1';
    const binder = readableSqlError('Binder Error: Referenced column "NoSuchField" not found in FROM clause!\nCandidate bindings: "RayID"\n\nLINE 3: WHERE NoSuchField = 1\n              ^', sql);
    assert.equal(binder.kind, 'sqlInvalid');
    assert.equal(binder.message, 'Binder Error: Referenced column "NoSuchField" not found in FROM clause! Candidate bindings: "RayID" (line 3, column 7, at "NoSuchField")');
    assert.equal(readableSqlError('Permission Error: Cannot access file "/etc/passwd" - file system operations are disabled by configuration', '').kind, 'sqlForbidden');
    const memory = readableSqlError('Out of Memory Error: failed to allocate data of size 32.0 MiB (0 bytes/16.0 MiB used) Database is launched in in-memory mode and no temporary directory is specified.', '');
    assert.deepEqual(memory, { kind: 'sqlTooCostly', message: 'Out of Memory Error: failed to allocate data of size 32.0 MiB (0 bytes/16.0 MiB used)' });
    assert.equal(readableSqlError('INTERRUPT Error: Interrupted!', '').kind, 'sqlTimeout');
  });
});
