import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JobSettings } from '../../src/domain/jobs/job-settings.ts';
import { UniqueViolation, type AuditEntry, type RulesetSnapshot, type Store } from '../../src/store/store.ts';
import { availableStoreEngines } from '../support/stores.ts';

const engines = await availableStoreEngines();

const now = '2026-01-01T00:00:00.000000Z';

function ruleset(zoneId: string, overrides: Partial<RulesetSnapshot> = {}): RulesetSnapshot {
  return {
    id: 'a'.repeat(32),
    zoneId,
    kind: 'zone',
    phase: 'http_log_custom_fields',
    name: 'default',
    description: '',
    version: 1,
    lastUpdated: now,
    rules: [],
    ...overrides,
  };
}

for (const engine of engines) {
  describe(`store contract on ${engine.name}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;

    before(async () => {
      ({ store, dispose } = await engine.open());
      await store.createUser({ id: 'u1', email: 'a@example.com', passwordHash: null, apiKeyHash: 'k1', createdAt: now });
      await store.createUser({ id: 'u2', email: 'b@example.com', passwordHash: 'p', apiKeyHash: 'k2', createdAt: now });
      await store.createZone({ id: 'z1'.padEnd(32, '0'), name: 'one.example', userId: 'u1', createdAt: now, status: 'active', verificationToken: null });
      await store.createZone({ id: 'z2'.padEnd(32, '0'), name: 'two.example', userId: 'u2', createdAt: now, status: 'active', verificationToken: null });
    });
    after(async () => dispose());

    const z1 = 'z1'.padEnd(32, '0');
    const z2 = 'z2'.padEnd(32, '0');

    it('finds users by e-mail, id and api key hash', async () => {
      assert.equal((await store.findUserByEmail('a@example.com'))?.id, 'u1');
      assert.equal((await store.findUserById('u2'))?.passwordHash, 'p');
      assert.equal((await store.findUserByApiKeyHash('k2'))?.email, 'b@example.com');
      assert.equal(await store.findUserByEmail('nobody@example.com'), undefined);
    });

    it('refuses a second user with the same e-mail', async () => {
      await assert.rejects(
        store.createUser({ id: 'u3', email: 'a@example.com', passwordHash: null, apiKeyHash: 'k3', createdAt: now }),
        UniqueViolation,
      );
    });

    it('refuses a second zone with the same name and lists zones per user', async () => {
      assert.equal(await store.createZone({ id: 'z3'.padEnd(32, '0'), name: 'one.example', userId: 'u2', createdAt: now, status: 'active', verificationToken: null }), 'taken');
      assert.deepEqual((await store.listZones('u1')).map((z) => z.name), ['one.example']);
      assert.deepEqual((await store.listAllZones()).map((z) => z.name), ['one.example', 'two.example']);
      assert.equal((await store.findZoneByName('two.example'))?.id, z2);
    });

    it("refuses a zone above or beneath another user's zone, and allows one beneath the user's own", async () => {
      const zone = (id: string, name: string, userId: string) => ({ id: id.padEnd(32, '0'), name, userId, createdAt: now, status: 'active' as const, verificationToken: null });
      assert.equal(await store.createZone(zone('e1', 'www.one.example', 'u2')), 'taken');
      assert.equal(await store.createZone(zone('e2', 'example', 'u2')), 'taken');
      assert.equal(await store.createZone(zone('e3', 'a.b.two.example', 'u1')), 'taken');
      // A name that merely ends the same way is not beneath: a label boundary is needed.
      assert.equal(await store.createZone(zone('e4', 'xone.example', 'u2')), 'created');
      assert.equal(await store.createZone(zone('e5', 'www.one.example', 'u1')), 'created');
      assert.deepEqual((await store.listZones('u1')).map((z) => z.name), ['one.example', 'www.one.example']);
    });

    it('refuses a zone past the per-user limit, and makes a pending zone active', async () => {
      const zone = (id: string, name: string) => ({ id: id.padEnd(32, '0'), name, userId: 'u2', createdAt: now, status: 'pending' as const, verificationToken: 'v'.repeat(32) });
      const count = (await store.listZones('u2')).length;
      assert.equal(await store.createZone(zone('f1', 'limit.example'), { maxZonesPerUser: count }), 'limitReached');
      assert.equal(await store.createZone(zone('f1', 'limit.example'), { maxZonesPerUser: count + 1 }), 'created');
      assert.equal((await store.findZone('f1'.padEnd(32, '0')))?.status, 'pending');
      assert.equal(await store.activateZone('f1'.padEnd(32, '0')), true);
      assert.equal(await store.activateZone('f1'.padEnd(32, '0')), false);
      assert.equal((await store.findZone('f1'.padEnd(32, '0')))?.status, 'active');
    });

    it('keeps tokens with their grants, and lists, updates and deletes them with a token change each', async () => {
      const token = {
        id: 't1',
        userId: 'u1',
        tokenHash: 'h1',
        name: 'ci',
        status: 'active' as const,
        policies: [{ id: 'p1', zoneIds: [z1], permissions: ['logs:edit', 'logs:ingest'] as const }],
        expiresOn: null,
        notBefore: null,
        createdAt: now,
        modifiedOn: now,
      };
      await store.createToken(token);
      assert.deepEqual(await store.findTokenByHash('h1'), token);
      assert.equal(await store.findTokenByHash('nope'), undefined);
      assert.deepEqual(await store.findToken('u1', 't1'), token);
      assert.equal(await store.findToken('u2', 't1'), undefined, "another user's token is not found");
      assert.deepEqual((await store.listTokens('u1')).map((t) => t.id), ['t1']);
      const before = await store.latestConfigChange();
      const changed = { ...token, status: 'disabled' as const, expiresOn: '2030-01-01T00:00:00Z', tokenHash: 'h2' };
      assert.equal(await store.updateToken(changed), true);
      assert.deepEqual(await store.findTokenByHash('h2'), changed);
      assert.equal(await store.findTokenByHash('h1'), undefined);
      assert.equal(await store.deleteToken('u2', 't1'), false);
      assert.equal(await store.deleteToken('u1', 't1'), true);
      assert.deepEqual((await store.configChangesSince(before)).map((c) => (c.kind === 'token' ? c.tokenId : c.zoneId)), ['t1', 't1']);
      assert.deepEqual(await store.listTokens('u1'), []);
    });

    it('keeps a setting that was put first', async () => {
      assert.equal(await store.putSettingIfAbsent('secret', 'first'), 'first');
      assert.equal(await store.putSettingIfAbsent('secret', 'second'), 'first');
      assert.equal(await store.getSetting('secret'), 'first');
    });

    it('replaces and deletes a setting', async () => {
      await store.putSetting('replaced', 'one');
      await store.putSetting('replaced', 'two');
      assert.equal(await store.getSetting('replaced'), 'two');
      await store.deleteSetting('replaced');
      assert.equal(await store.getSetting('replaced'), undefined);
    });

    it('stores sessions and forgets expired ones', async () => {
      await store.createSession({ idHash: 's1', userId: 'u1', csrfToken: 'c', expiresAt: '2026-01-01T00:00:00.000Z' });
      await store.createSession({ idHash: 's2', userId: 'u1', csrfToken: 'c', expiresAt: '2027-01-01T00:00:00.000Z' });
      await store.deleteExpiredSessions('2026-06-01T00:00:00.000Z');
      assert.equal(await store.findSession('s1'), undefined);
      assert.equal((await store.findSession('s2'))?.userId, 'u1');
      await store.deleteSession('s2');
      assert.equal(await store.findSession('s2'), undefined);
    });

    it('keeps one ruleset per zone and phase, and every version of it', async () => {
      const first = ruleset(z1);
      await store.insertRuleset(first);
      await assert.rejects(store.insertRuleset(ruleset(z1, { id: 'b'.repeat(32) })), UniqueViolation);
      const rule = {
        id: 'c'.repeat(32),
        version: 1,
        ref: 'c'.repeat(32),
        description: '',
        enabled: true,
        action: 'log_custom_field',
        expression: 'true',
        action_parameters: { request_fields: [{ name: 'x-a' }] },
        last_updated: now,
      };
      assert.equal(await store.updateRuleset({ ...first, version: 2, rules: [rule] }, 1), true);
      assert.equal(await store.updateRuleset({ ...first, version: 3, rules: [] }, 1), false, 'a stale expected version loses');
      assert.deepEqual((await store.getRuleset(z1, first.id))?.rules, [rule]);
      assert.equal((await store.findRulesetByPhase(z1, 'http_log_custom_fields'))?.version, 2);
      assert.deepEqual((await store.listRulesetVersions(z1, first.id)).map((v) => v.version), [2, 1]);
      assert.deepEqual((await store.getRulesetVersion(z1, first.id, 1))?.rules, []);
      assert.equal(await store.deleteRulesetVersion(z1, first.id, 1), true);
      assert.equal(await store.getRulesetVersion(z1, first.id, 1), undefined);
      assert.equal(await store.deleteRulesetVersion(z1, first.id, 1), false);
    });

    it('never shows one zone the rulesets of another', async () => {
      const id = 'a'.repeat(32);
      assert.equal(await store.getRuleset(z2, id), undefined);
      assert.deepEqual(await store.listRulesets(z2), []);
      assert.deepEqual(await store.listRulesetVersions(z2, id), []);
      assert.equal(await store.deleteRuleset(z2, id), false);
    });

    it('deletes a ruleset with all its versions', async () => {
      const id = 'a'.repeat(32);
      assert.equal(await store.deleteRuleset(z1, id), true);
      assert.equal(await store.getRuleset(z1, id), undefined);
      assert.deepEqual(await store.listRulesetVersions(z1, id), []);
      await store.insertRuleset(ruleset(z1, { id: 'd'.repeat(32) }));
      assert.equal((await store.listRulesets(z1)).length, 1);
    });

    const settings: JobSettings = {
      dataset: 'http_requests',
      kind: '',
      enabled: false,
      name: 'job',
      destinationConf: 'file:///logs',
      filter: null,
      outputOptions: '{"field_names":["RayID"]}',
      logpullOptions: null,
      frequency: null,
      maxUploadBytes: null,
      maxUploadRecords: 0,
      maxUploadIntervalSeconds: null,
    };

    it('creates jobs with increasing integer ids and keeps option texts exactly', async () => {
      const a = await store.createJob(z1, settings, now, 4);
      const b = await store.createJob(z1, { ...settings, enabled: true, filter: '{"where":{"key":"RayID","operator":"eq","value":"x"}}' }, now, 4);
      assert.ok(a && b);
      assert.ok(Number.isInteger(a.id) && b.id > a.id);
      assert.equal(a.outputOptions, settings.outputOptions);
      assert.equal(a.maxUploadRecords, 0);
      assert.equal(a.maxUploadBytes, null);
      assert.equal(a.enabled, false);
      assert.equal(b.enabled, true);
      assert.equal(a.lastComplete, null);
      assert.deepEqual((await store.listJobs(z1)).map((j) => j.id), [a.id, b.id]);
      assert.deepEqual((await store.listEnabledJobs()).map((j) => j.id), [b.id]);
    });

    it('refuses a job over the zone limit, also when creates race', async () => {
      const results = await Promise.all([1, 2, 3, 4].map(() => store.createJob(z1, settings, now, 4)));
      assert.equal(results.filter((r) => r !== undefined).length, 2);
      assert.equal((await store.listJobs(z1)).length, 4);
    });

    it('updates, reports status on and deletes jobs of the zone only', async () => {
      const [job] = await store.listJobs(z1);
      assert.ok(job);
      assert.equal(await store.updateJob(z2, job.id, { name: 'x' }, now), undefined);
      assert.equal(await store.getJob(z2, job.id), undefined);
      const updated = await store.updateJob(z1, job.id, { name: 'renamed', filter: null }, '2026-02-01T00:00:00.000Z');
      assert.equal(updated?.name, 'renamed');
      assert.equal(updated?.destinationConf, settings.destinationConf);
      assert.equal(updated?.updatedAt, '2026-02-01T00:00:00.000Z');
      await store.setJobStatus(job.id, { lastError: now, errorMessage: 'boom', failingSince: now });
      const failing = await store.getJob(z1, job.id);
      assert.equal(failing?.errorMessage, 'boom');
      await store.setJobStatus(job.id, { lastComplete: now, lastError: null, errorMessage: null, failingSince: null });
      assert.equal((await store.getJob(z1, job.id))?.errorMessage, null);
      assert.equal(await store.deleteJob(z2, job.id), false);
      assert.equal(await store.deleteJob(z1, job.id), true);
      assert.equal(await store.getJob(z1, job.id), undefined);
    });

    it('lists every job and rewrites a stored destination_conf without recording a configuration change', async () => {
      const before = await store.latestConfigChange();
      const all = await store.listAllJobs();
      assert.ok(all.length > 0);
      const first = all[0];
      assert.ok(first !== undefined);
      await store.setJobDestinationConf(first.id, 'file:///rewritten');
      assert.equal((await store.getJob(first.zoneId, first.id))?.destinationConf, 'file:///rewritten');
      assert.equal(await store.latestConfigChange(), before);
    });

    it('keeps per-node job counters', async () => {
      await store.putJobCounters({ jobId: 7, node: 'a', counters: '{"x":1}', updatedAt: now });
      await store.putJobCounters({ jobId: 7, node: 'a', counters: '{"x":2}', updatedAt: now });
      await store.putJobCounters({ jobId: 7, node: 'b', counters: '{"x":5}', updatedAt: now });
      assert.deepEqual((await store.listJobCounters(7)).map((r) => [r.node, r.counters]), [['a', '{"x":2}'], ['b', '{"x":5}']]);
    });

    it('records a configuration change with every ruleset and job change', async () => {
      const before = await store.latestConfigChange();
      await store.createJob(z2, settings, now, 4);
      const changes = await store.configChangesSince(before);
      assert.deepEqual(changes.map((c) => (c.kind === 'zone' ? c.zoneId : c.tokenId)), [z2]);
      assert.ok((await store.latestConfigChange()) > before);
    });

    it('prunes old configuration changes but keeps the newest', async () => {
      const latest = await store.latestConfigChange();
      await store.pruneConfigChanges('2999-01-01T00:00:00.000Z');
      assert.equal(await store.latestConfigChange(), latest);
      assert.deepEqual((await store.configChangesSince(0)).map((c) => c.seq), [latest]);
    });

    it('keeps the retention flag per zone, off by default, and records the change', async () => {
      assert.equal(await store.getRetentionFlag(z1), false);
      const before = await store.latestConfigChange();
      await store.setRetentionFlag(z1, true, now);
      assert.equal(await store.getRetentionFlag(z1), true);
      assert.equal(await store.getRetentionFlag(z2), false);
      assert.deepEqual(await store.listRetentionZones(), [z1]);
      assert.ok((await store.latestConfigChange()) > before);
      await store.setRetentionFlag(z1, false, now);
      assert.equal(await store.getRetentionFlag(z1), false);
      assert.deepEqual(await store.listRetentionZones(), []);
    });

    it('knows since when a zone keeps its events: the time the flag was turned on, kept while it is set on again', async () => {
      assert.equal(await store.getRetentionSince(z2), undefined);
      await store.setRetentionFlag(z2, true, '2026-05-01T00:00:00.000Z');
      await store.setRetentionFlag(z2, true, '2026-05-03T00:00:00.000Z');
      assert.equal(await store.getRetentionSince(z2), '2026-05-01T00:00:00.000Z');
      await store.setRetentionFlag(z2, false, '2026-05-04T00:00:00.000Z');
      assert.equal(await store.getRetentionSince(z2), undefined);
      await store.setRetentionFlag(z2, true, '2026-05-05T00:00:00.000Z');
      assert.equal(await store.getRetentionSince(z2), '2026-05-05T00:00:00.000Z');
      await store.setRetentionFlag(z2, false, now);
    });

    it('keeps Log Explorer datasets per zone, one of each type, and counts an enabled http_requests one as retaining', async () => {
      const dataset = {
        id: 'd1'.padEnd(32, '0'),
        zoneId: z2,
        dataset: 'http_requests',
        enabled: true,
        fields: ['RayID', 'EdgeResponseStatus'],
        filter: '{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}',
        deletionProtection: false,
        createdAt: now,
        updatedAt: now,
      };
      const before = await store.latestConfigChange();
      await store.createExplorerDataset(dataset);
      assert.ok((await store.latestConfigChange()) > before);
      assert.deepEqual(await store.getExplorerDataset(z2, dataset.id), dataset);
      assert.equal(await store.getExplorerDataset(z1, dataset.id), undefined);
      assert.deepEqual(await store.listExplorerDatasets(z2), [dataset]);
      assert.deepEqual(await store.listExplorerDatasets(z1), []);
      await assert.rejects(store.createExplorerDataset({ ...dataset, id: 'd2'.padEnd(32, '0') }), UniqueViolation);
      assert.deepEqual(await store.listRetentionZones(), [z2]);
      const disabled = { ...dataset, enabled: false, fields: null, filter: null, deletionProtection: true, updatedAt: '2026-02-01T00:00:00.000Z' };
      assert.equal(await store.updateExplorerDataset(disabled), true);
      assert.deepEqual(await store.getExplorerDataset(z2, dataset.id), disabled);
      assert.deepEqual(await store.listRetentionZones(), []);
      assert.equal(await store.updateExplorerDataset({ ...disabled, zoneId: z1 }), false);
      assert.equal(await store.deleteExplorerDataset(z1, dataset.id), false);
      assert.equal(await store.deleteExplorerDataset(z2, dataset.id), true);
      assert.deepEqual(await store.listExplorerDatasets(z2), []);
    });

    it("keeps each job's latest replay, replacing the one before, and lists a node's by state", async () => {
      const job = await store.createJob(z1, settings, now, 1000);
      assert.ok(job !== undefined);
      assert.equal(await store.getReplay(job.id), undefined);
      const progress = {
        job_id: job.id,
        start: '2026-05-02T10:00:00.000Z',
        end: '2026-05-02T11:00:00.000Z',
        status: 'running' as const,
        events_read: 5_000_000_000,
        exported: 12,
        objects_written: 1,
        error: null,
        message: null,
        started_at: now,
        finished_at: null,
      };
      const replay = { progress, zoneId: z1, startNs: '1777716000000000000', endNs: '1777719600000000001', nodeId: 'node-a', updatedAt: now };
      await store.saveReplay(replay);
      assert.deepEqual(await store.getReplay(job.id), replay);
      assert.deepEqual(await store.listReplays('node-a', ['queued', 'running']), [replay]);
      assert.deepEqual(await store.listReplays('node-b', ['queued', 'running']), []);
      const done = { ...replay, progress: { ...progress, status: 'done' as const, message: 'nothing', finished_at: now } };
      await store.saveReplay(done);
      assert.deepEqual(await store.getReplay(job.id), done);
      assert.deepEqual(await store.listReplays('node-a', ['queued', 'running']), []);
      await store.deleteJob(z1, job.id);
      assert.equal(await store.getReplay(job.id), undefined);
    });

    it('rolls back a transaction that throws', async () => {
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.createZone({ id: 'z9'.padEnd(32, '0'), name: 'nine.example', userId: 'u1', createdAt: now, status: 'active', verificationToken: null });
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(await store.findZoneByName('nine.example'), undefined);
    });

    it('counts failed credential checks per key in windows, restarting an expired window, takes one back, and clears them', async () => {
      const t0 = Date.UTC(2026, 0, 1);
      const window = 60_000;
      assert.deepEqual(await store.recordAuthFailure('account:a', t0, window), { failures: 1, windowStartMs: t0 });
      assert.deepEqual(await store.recordAuthFailure('account:a', t0 + 1000, window), { failures: 2, windowStartMs: t0 });
      assert.deepEqual(await store.recordAuthFailure('ip:1', t0 + 2000, window), { failures: 1, windowStartMs: t0 + 2000 }, 'each key has its own count');
      // An attempt counted before it was checked, that succeeded, is taken back; a count never goes below zero.
      await store.releaseAuthFailure('ip:1', t0 + 3000, window);
      await store.releaseAuthFailure('ip:1', t0 + 3000, window);
      assert.deepEqual(await store.recordAuthFailure('ip:1', t0 + 3000, window), { failures: 1, windowStartMs: t0 + 2000 });
      // A window that has ended restarts at the next failure.
      assert.deepEqual(await store.recordAuthFailure('account:a', t0 + window, window), { failures: 1, windowStartMs: t0 + window });
      await store.clearAuthFailures(['account:a']);
      assert.deepEqual(await store.recordAuthFailure('account:a', t0 + window + 1, window), { failures: 1, windowStartMs: t0 + window + 1 }, 'cleared');
      await store.pruneAuthFailures(t0 + 10 * window);
      assert.deepEqual(await store.recordAuthFailure('ip:1', t0 + 3001, window), { failures: 1, windowStartMs: t0 + 3001 }, 'pruned');
    });

    it('keeps audit entries per owner, filters them (by resource too), pages, orders them, and prunes old ones', async () => {
      const entry = (n: number, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
        id: `e${n}`,
        when: `2026-02-0${n}T00:00:00.000Z`,
        action: { type: n % 2 === 0 ? 'job.create' : 'job.update', result: true },
        actor: { type: 'user', id: 'u1', email: 'a@example.com', ip: `10.0.0.${n}` },
        ownerId: 'u1',
        resource: { type: 'logexport.job', id: String(n) },
        zone: { id: z1, name: 'one.example' },
        oldValue: null,
        newValue: JSON.stringify({ n }),
        metadata: null,
        ...overrides,
      });
      for (let n = 1; n <= 5; n++) await store.appendAudit(entry(n));
      await store.appendAudit(entry(6, { ownerId: 'u2', zone: { id: 'z2'.padEnd(32, '0'), name: 'two.example' } }));
      const base = { ownerId: 'u1', direction: 'desc', page: 1, perPage: 50 } as const;
      const all = await store.listAudit(base);
      assert.equal(all.total, 5);
      assert.deepEqual(all.entries.map((e) => e.id), ['e5', 'e4', 'e3', 'e2', 'e1']);
      assert.deepEqual(all.entries[0], entry(5));
      assert.deepEqual((await store.listAudit({ ...base, direction: 'asc', page: 2, perPage: 2 })).entries.map((e) => e.id), ['e3', 'e4']);
      assert.deepEqual((await store.listAudit({ ...base, actionType: 'job.create' })).entries.map((e) => e.id), ['e4', 'e2']);
      assert.deepEqual((await store.listAudit({ ...base, since: '2026-02-02T00:00:00.000Z', before: '2026-02-04T00:00:00.000Z' })).entries.map((e) => e.id), ['e3', 'e2']);
      assert.deepEqual((await store.listAudit({ ...base, actorIp: '10.0.0.3' })).entries.map((e) => e.id), ['e3']);
      assert.deepEqual((await store.listAudit({ ...base, resource: { type: 'logexport.job', id: '4' } })).entries.map((e) => e.id), ['e4']);
      assert.equal((await store.listAudit({ ...base, resource: { type: 'ruleset', id: '4' } })).total, 0, 'the type must match too');
      const inRange = await store.listAudit({ ...base, actorIp: '10.0.0.0/30', perPage: 2 });
      assert.deepEqual([inRange.total, inRange.entries.map((e) => e.id)], [3, ['e3', 'e2']], '10.0.0.1–3 are in the range, newest first');
      assert.deepEqual((await store.listAudit({ ...base, actorIp: '10.0.0.0/30', perPage: 2, page: 2 })).entries.map((e) => e.id), ['e1']);
      assert.equal((await store.listAudit({ ...base, actorIp: '192.168.0.0/16' })).total, 0);
      assert.equal((await store.listAudit({ ...base, zoneName: 'two.example' })).total, 0);
      assert.equal((await store.listAudit({ ...base, zoneIds: [] })).total, 0);
      assert.equal((await store.listAudit({ ...base, zoneIds: [z1], actorEmail: 'a@example.com' })).total, 5);
      assert.equal(await store.pruneAudit('2026-02-03T00:00:00.000Z'), 2);
      assert.equal((await store.listAudit(base)).total, 3);
    });

    it('keeps an audit entry written in a transaction only when the transaction commits', async () => {
      const entry: AuditEntry = {
        id: 'rolled-back',
        when: '2026-03-01T00:00:00.000Z',
        action: { type: 'zone.create', result: true },
        actor: { type: 'system', id: null, email: null, ip: null },
        ownerId: 'u1',
        resource: { type: 'zone', id: null },
        zone: null,
        oldValue: null,
        newValue: null,
        metadata: null,
      };
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.appendAudit(entry);
          throw new Error('boom');
        }),
      );
      assert.equal((await store.listAudit({ ownerId: 'u1', id: 'rolled-back', direction: 'desc', page: 1, perPage: 5 })).total, 0);
    });
  });
}
