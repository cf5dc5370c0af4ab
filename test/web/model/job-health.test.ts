import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job } from '../../../web/src/api/job.ts';
import type { JobStats } from '../../../web/src/api/job-stats.ts';
import { disabledByText, failingAfterMs, jobHealth, listJobsByHealth, type JobHealth } from '../../../web/src/model/job-health.ts';

const now = Date.UTC(2026, 4, 2, 12, 0, 0);
const at = (msAgo: number) => new Date(now - msAgo).toISOString();

const job = (over: Partial<Job> = {}): Job => ({
  id: 1,
  dataset: 'http_requests',
  enabled: true,
  name: null,
  destination_conf: 'file:///a',
  filter: null,
  output_options: null,
  logpull_options: null,
  last_complete: null,
  last_error: null,
  error_message: null,
  ...over,
});

const stats = (status: Partial<NonNullable<JobStats['status']>>, counters: Partial<JobStats['counters']> = {}): JobStats => ({
  job_id: 1,
  series: [],
  counters: { received: 0, filtered_out: 0, sampled_out: 0, delivered_records: 0, delivered_bytes: 0, batches: 0, retries: 0, failures: 0, dropped: {}, ...counters },
  status: { failing_since: null, disables_at: null, disabled: null, ...status },
});

describe("a job's health", () => {
  it('is healthy while enabled with no failed attempt since its last delivery', () => {
    assert.deepEqual(jobHealth(job(), undefined, now), { kind: 'healthy' });
    assert.deepEqual(jobHealth(job({ last_complete: at(1000) }), stats({}), now), { kind: 'healthy' });
  });

  it('is retrying right after a failed attempt, and failing once nothing was delivered for five minutes', () => {
    const failed = job({ last_error: at(1000), error_message: 'a file stands where a directory is needed for blocked/logs' });
    const cases: readonly [number, JobHealth['kind']][] = [
      [0, 'retrying'],
      [failingAfterMs - 1, 'retrying'],
      [failingAfterMs, 'failing'],
      [24 * 3_600_000, 'failing'],
    ];
    for (const [failingFor, kind] of cases) {
      const health = jobHealth(failed, stats({ failing_since: at(failingFor), disables_at: at(failingFor - 86_400_000) }, { failures: 3, pending: 1000 }), now);
      assert.equal(health.kind, kind, `failing for ${failingFor} ms`);
      assert.ok(health.kind === 'retrying' || health.kind === 'failing');
      assert.equal(health.error, failed.error_message);
      assert.deepEqual([health.failures, health.pending, health.since], [3, 1000, at(failingFor)]);
    }
  });

  it('counts from the last error when the server gives no failing_since', () => {
    assert.equal(jobHealth(job({ last_error: at(failingAfterMs + 1) }), undefined, now).kind, 'failing');
    assert.equal(jobHealth(job({ last_error: at(10) }), undefined, now).kind, 'retrying');
  });

  it('is disabled, saying by whom and since when when the server knows', () => {
    const byLogexport = { at: at(5000), by: 'logexport', email: null, reason: 'no delivery for 1440 minutes' } as const;
    const health = jobHealth(job({ enabled: false, last_error: at(5000) }), stats({ disabled: byLogexport }), now);
    assert.deepEqual(health, { kind: 'disabled', ...byLogexport });
    assert.deepEqual(jobHealth(job({ enabled: false }), undefined, now), { kind: 'disabled', at: null, by: null, email: null, reason: null });
  });

  it('names who disabled a job', () => {
    const cases: readonly [Parameters<typeof disabledByText>[0], string | undefined][] = [
      [{ at: null, by: 'user', email: 'ada@example.com', reason: null }, 'ada@example.com'],
      [{ at: null, by: 'token', email: 'ada@example.com', reason: null }, 'ada@example.com (API token)'],
      [{ at: null, by: 'logexport', email: null, reason: 'x' }, 'logexport'],
      [{ at: null, by: null, email: null, reason: null }, undefined],
    ];
    for (const [disabled, text] of cases) assert.equal(disabledByText(disabled), text);
  });

  it('lists jobs filtered by health and sorted worst first, ties by id', () => {
    const listed: { job: { id: number; name: string | null }; health: JobHealth }[] = [
      { job: { id: 1, name: 'b' }, health: { kind: 'healthy' } as JobHealth },
      { job: { id: 2, name: null }, health: { kind: 'disabled', at: null, by: null, email: null, reason: null } as JobHealth },
      { job: { id: 3, name: 'a' }, health: { kind: 'failing' } as JobHealth },
      { job: { id: 4, name: 'c' }, health: { kind: 'retrying' } as JobHealth },
      { job: { id: 5, name: 'd' }, health: { kind: 'failing' } as JobHealth },
    ];
    const ids = (filter: Parameters<typeof listJobsByHealth>[1], order: Parameters<typeof listJobsByHealth>[2]) => listJobsByHealth(listed, filter, order).map((j) => j.job.id);
    assert.deepEqual(ids('all', 'health'), [3, 5, 4, 2, 1]);
    assert.deepEqual(ids('all', 'id'), [1, 2, 3, 4, 5]);
    assert.deepEqual(ids('all', 'name'), [3, 1, 4, 5, 2], '"Job 2" for the one without a name');
    assert.deepEqual(ids('failing', 'id'), [3, 5]);
    assert.deepEqual(ids('healthy', 'health'), [1]);
  });
});
