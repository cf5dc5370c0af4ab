/** The retention and replay settings: defaults, accepted values, and a clear refusal naming the variable. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, toConfig } from '../../src/config/config.ts';
import type { RawEnv } from '../../src/config/env.ts';

describe('the retention settings', () => {
  it('default to a quarter of a core for compaction after five minutes, replays as long as the retention and two per node', () => {
    const config = toConfig({ LOGEXPORT_DATA_DIR: '/var/lib/logexport' });
    assert.equal(config.retentionCompactBudget, 0.25);
    assert.equal(config.retentionCompactAfterMs, 300_000);
    assert.equal(config.replayMaxWindowMs, 7 * 86_400_000);
    assert.equal(config.replaysPerNode, 2);
    assert.deepEqual(config.retentionStorage, { kind: 'local', dir: '/var/lib/logexport/retained' });
    assert.equal(toConfig({ LOGEXPORT_RETENTION_DAYS: '30' }).replayMaxWindowMs, 30 * 86_400_000);
  });

  it('reads a budget from 0 (compact nothing) to a whole core, and the other limits', () => {
    assert.equal(toConfig({ LOGEXPORT_RETENTION_COMPACT_BUDGET: '0' }).retentionCompactBudget, 0);
    assert.equal(toConfig({ LOGEXPORT_RETENTION_COMPACT_BUDGET: '.5' }).retentionCompactBudget, 0.5);
    assert.equal(toConfig({ LOGEXPORT_RETENTION_COMPACT_BUDGET: '1' }).retentionCompactBudget, 1);
    assert.equal(toConfig({ LOGEXPORT_RETENTION_COMPACT_AFTER: '0s' }).retentionCompactAfterMs, 0);
    assert.equal(toConfig({ LOGEXPORT_REPLAY_MAX_WINDOW: '36h' }).replayMaxWindowMs, 36 * 3_600_000);
    assert.equal(toConfig({ LOGEXPORT_REPLAYS_PER_NODE: '8' }).replaysPerNode, 8);
  });

  it('parses an S3 retention URL with the grammar destinations use, without the domain rules', () => {
    const config = toConfig({ LOGEXPORT_RETENTION_URL: 's3://retained-logs/node%20a?region=eu-west-1&endpoint=http://127.0.0.1:9000&access-key-id=AK&secret-access-key=S%2Bx' });
    assert.deepEqual(config.retentionStorage, {
      kind: 's3',
      spec: { bucket: 'retained-logs', path: 'node a', region: 'eu-west-1', endpoint: 'http://127.0.0.1:9000', credentials: { accessKeyId: 'AK', secretAccessKey: 'S+x' }, sse: undefined },
    });
  });

  const refused: { env: RawEnv; names: string; says: string }[] = [
    { env: { LOGEXPORT_RETENTION_COMPACT_BUDGET: '1.5' }, names: 'LOGEXPORT_RETENTION_COMPACT_BUDGET', says: 'from 0 to 1' },
    { env: { LOGEXPORT_RETENTION_COMPACT_BUDGET: '-1' }, names: 'LOGEXPORT_RETENTION_COMPACT_BUDGET', says: 'from 0 to 1' },
    { env: { LOGEXPORT_RETENTION_COMPACT_BUDGET: 'quarter' }, names: 'LOGEXPORT_RETENTION_COMPACT_BUDGET', says: 'from 0 to 1' },
    { env: { LOGEXPORT_RETENTION_COMPACT_AFTER: 'soon' }, names: 'LOGEXPORT_RETENTION_COMPACT_AFTER', says: 'a duration' },
    { env: { LOGEXPORT_REPLAY_MAX_WINDOW: '10ms' }, names: 'LOGEXPORT_REPLAY_MAX_WINDOW', says: 'at least 1000 ms' },
    { env: { LOGEXPORT_REPLAYS_PER_NODE: '0' }, names: 'LOGEXPORT_REPLAYS_PER_NODE', says: 'from 1 to 64' },
    { env: { LOGEXPORT_RETENTION_URL: 's3://Bad_Bucket/x?region=eu-west-1' }, names: 'LOGEXPORT_RETENTION_URL', says: 'not a valid S3 bucket name' },
    { env: { LOGEXPORT_RETENTION_URL: 's3://bucket/x' }, names: 'LOGEXPORT_RETENTION_URL', says: 'region=' },
  ];
  for (const { env, names, says } of refused) {
    it(`refuses ${JSON.stringify(env)}, naming ${names}`, () => {
      assert.throws(
        () => toConfig(env),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith(names) && error.message.includes(says),
      );
    });
  }
});
