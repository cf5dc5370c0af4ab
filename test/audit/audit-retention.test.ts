/** Audit entries are kept LOGEXPORT_AUDIT_DAYS: a node forgets older ones when it starts (and every hour). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startApp } from '../../src/app.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { startTestApp } from '../support/test-app.ts';

const day = 86_400_000;

describe('the audit log’s retention', () => {
  it('forgets entries older than LOGEXPORT_AUDIT_DAYS and keeps the younger ones', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const t = await startTestApp({ LOGEXPORT_AUDIT_DAYS: '30' }, { clock });
    const owner = await t.user();
    const zone = await t.zone(owner); // zone.create, on day 0
    clock.advance(20 * day);
    const flag = await t.call('POST', `/zones/${zone}/logs/control/retention/flag`, { body: { flag: true } }); // day 20
    assert.equal(flag.status, 200, flag.text);
    await t.app.stop();

    clock.advance(15 * day); // day 35: the zone's entry is 35 days old, the flag's 15
    const app = await startApp(t.config, { clock });
    try {
      const { entries } = await app.store.listAudit({ ownerId: owner.userId, direction: 'asc', page: 1, perPage: 10 });
      assert.deepEqual(entries.map((e) => e.action.type), ['retention.update']);
    } finally {
      await app.stop();
      fs.rmSync(t.dataDir, { recursive: true, force: true });
    }
  });
});
