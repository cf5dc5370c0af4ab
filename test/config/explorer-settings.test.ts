/** Log Explorer's SQL settings: defaults, accepted values, and a clear refusal naming the variable. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, toConfig } from '../../src/config/config.ts';
import type { RawEnv } from '../../src/config/env.ts';

describe('the Log Explorer settings', () => {
  it('default to 30 s, 512 MiB, 10,000 rows and two queries per node', () => {
    const config = toConfig({});
    assert.equal(config.sqlTimeoutMs, 30_000);
    assert.equal(config.sqlMemoryBytes, 512 * 1024 ** 2);
    assert.equal(config.sqlMaxRows, 10_000);
    assert.equal(config.sqlConcurrency, 2);
  });

  it('reads durations, sizes and counts', () => {
    const config = toConfig({ LOGEXPORT_SQL_TIMEOUT: '500ms', LOGEXPORT_SQL_MEMORY: '2GiB', LOGEXPORT_SQL_MAX_ROWS: '100', LOGEXPORT_SQL_CONCURRENCY: '8' });
    assert.deepEqual([config.sqlTimeoutMs, config.sqlMemoryBytes, config.sqlMaxRows, config.sqlConcurrency], [500, 2 * 1024 ** 3, 100, 8]);
  });

  const refused: { env: RawEnv; says: string }[] = [
    { env: { LOGEXPORT_SQL_TIMEOUT: 'forever' }, says: 'a duration' },
    { env: { LOGEXPORT_SQL_MEMORY: '64MiB' }, says: 'at least 134217728 bytes' },
    { env: { LOGEXPORT_SQL_MAX_ROWS: '0' }, says: 'from 1 to 1000000' },
    { env: { LOGEXPORT_SQL_CONCURRENCY: '100' }, says: 'from 1 to 64' },
  ];
  for (const { env, says } of refused) {
    const name = Object.keys(env)[0] ?? '';
    it(`refuses ${JSON.stringify(env)}, naming ${name}`, () => {
      assert.throws(
        () => toConfig(env),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith(name) && error.message.includes(says),
      );
    });
  }
});
