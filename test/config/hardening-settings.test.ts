import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, toConfig } from '../../src/config/config.ts';
import type { RawEnv } from '../../src/config/env.ts';

describe('the hardening settings', () => {
  it('default to an open /metrics, no trusted proxy, 10 failures a minute and 90 days of audit log', () => {
    const config = toConfig({});
    assert.equal(config.metricsToken, undefined);
    assert.equal(config.trustProxy, false);
    assert.equal(config.authFailuresPerMinute, 10);
    assert.equal(config.auditDays, 90);
  });

  const accepted: { env: RawEnv; trustProxy: unknown }[] = [
    { env: { LOGEXPORT_TRUST_PROXY: 'false' }, trustProxy: false },
    { env: { LOGEXPORT_TRUST_PROXY: '2' }, trustProxy: 2 },
    { env: { LOGEXPORT_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1' }, trustProxy: ['127.0.0.1', '10.0.0.0/8', '::1'] },
    { env: { LOGEXPORT_TRUST_PROXY: 'loopback' }, trustProxy: ['loopback'] },
  ];
  for (const { env, trustProxy } of accepted) {
    it(`reads LOGEXPORT_TRUST_PROXY=${env.LOGEXPORT_TRUST_PROXY ?? ''}`, () => {
      assert.deepEqual(toConfig(env).trustProxy, trustProxy);
    });
  }

  const refused: { env: RawEnv; names: string }[] = [
    { env: { LOGEXPORT_TRUST_PROXY: 'proxy.example.com' }, names: 'LOGEXPORT_TRUST_PROXY' },
    { env: { LOGEXPORT_TRUST_PROXY: 'true' }, names: 'LOGEXPORT_TRUST_PROXY=true is refused' },
    { env: { LOGEXPORT_METRICS_TOKEN: 'short' }, names: 'LOGEXPORT_METRICS_TOKEN' },
    { env: { LOGEXPORT_METRICS_TOKEN: 'has a space in it, sixteen+' }, names: 'LOGEXPORT_METRICS_TOKEN' },
    { env: { LOGEXPORT_AUTH_FAILURES_PER_MINUTE: '0' }, names: 'LOGEXPORT_AUTH_FAILURES_PER_MINUTE' },
    { env: { LOGEXPORT_AUDIT_DAYS: 'forever' }, names: 'LOGEXPORT_AUDIT_DAYS' },
  ];
  for (const { env, names } of refused) {
    it(`refuses ${JSON.stringify(env)} in one line naming ${names}, without echoing a token`, () => {
      assert.throws(
        () => toConfig(env),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith(names) && !error.message.includes('\n') && !error.message.includes('sixteen'),
      );
    });
  }
});
