/**
 * A job's health at a glance, from what the API says of it: `enabled`, `last_error` and `error_message`
 * (the job), `failing_since`, `disables_at` and who disabled it (the stats route's status), and the
 * counters. Pure, so it is tested without a browser.
 *
 * - Healthy: enabled, and its last delivery attempt succeeded (or it has not needed one yet).
 * - Retrying: enabled, its last attempt failed, and it has been failing for less than `failingAfterMs`
 *   (a destination that hiccups); logexport keeps trying.
 * - Failing: enabled and nothing delivered for `failingAfterMs` or more; logexport keeps trying until the
 *   job is disabled (`disables_at`).
 * - Disabled: by a user (or an API token), or by logexport after failing too long, since a time.
 */
import type { Job } from '../api/job.ts';
import type { JobDisabledBy, JobStats } from '../api/job-stats.ts';

/** How long a job retries before it is shown as failing. */
export const failingAfterMs = 5 * 60_000;

/** The health kinds, worst first: the order "Sort by health" lists jobs in. */
export const jobHealthKinds = ['failing', 'retrying', 'disabled', 'healthy'] as const;

export type JobHealthKind = (typeof jobHealthKinds)[number];

/** A job's health. */
export type JobHealth =
  | { readonly kind: 'healthy' }
  | {
      readonly kind: 'retrying' | 'failing';
      /** Since when it has not delivered. */
      readonly since: string;
      readonly lastErrorAt: string;
      readonly error: string | null;
      readonly failures: number | undefined;
      /** Records waiting in batches not delivered yet. */
      readonly pending: number | undefined;
      readonly disablesAt: string | null;
    }
  | ({ readonly kind: 'disabled' } & JobDisabledBy);

/** The label of each kind, as the badge shows it. */
export const jobHealthLabels: Readonly<Record<JobHealthKind, string>> = {
  healthy: 'Healthy',
  retrying: 'Retrying',
  failing: 'Failing',
  disabled: 'Disabled',
};

const unknownDisable: JobDisabledBy = { at: null, by: null, email: null, reason: null };

/** The health of `job`, with its stats when they are known, at `nowMs`. */
export function jobHealth(job: Pick<Job, 'enabled' | 'last_error' | 'error_message'>, stats: JobStats | undefined, nowMs: number): JobHealth {
  if (!job.enabled) return { kind: 'disabled', ...(stats?.status?.disabled ?? unknownDisable) };
  if (job.last_error === null) return { kind: 'healthy' };
  // A job enabled again after failing counts from then (the server says so); older servers only give the last error.
  const since = stats?.status?.failing_since ?? job.last_error;
  const sinceMs = Date.parse(since);
  const kind = !Number.isNaN(sinceMs) && nowMs - sinceMs >= failingAfterMs ? 'failing' : 'retrying';
  return {
    kind,
    since,
    lastErrorAt: job.last_error,
    error: job.error_message,
    failures: stats?.counters.failures,
    pending: stats?.counters.pending,
    disablesAt: stats?.status?.disables_at ?? null,
  };
}

/** Who disabled a job, as a sentence's subject: "ada@example.com", "ada@example.com (API token)", "logexport". */
export function disabledByText(disabled: JobDisabledBy): string | undefined {
  switch (disabled.by) {
    case 'logexport':
      return 'logexport';
    case 'user':
      return disabled.email ?? 'a user';
    case 'token':
      return `${disabled.email ?? 'a user'} (API token)`;
    case null:
      return undefined;
  }
}

/** Which jobs a list shows: every one, or those of one health. */
export type HealthFilter = 'all' | JobHealthKind;

/** How a list is ordered. */
export type JobOrder = 'id' | 'name' | 'health';

/** The jobs to list, with their health: those the filter keeps, in the order asked (ties by id). */
export function listJobsByHealth<T extends { readonly id: number; readonly name: string | null }>(
  jobs: readonly { readonly job: T; readonly health: JobHealth }[],
  filter: HealthFilter,
  order: JobOrder,
): { readonly job: T; readonly health: JobHealth }[] {
  const rank = (h: JobHealth) => jobHealthKinds.indexOf(h.kind);
  const name = (job: T) => (job.name === null || job.name === '' ? `Job ${job.id}` : job.name);
  const compare = {
    id: () => 0,
    name: (a: { job: T }, b: { job: T }) => name(a.job).localeCompare(name(b.job)),
    health: (a: { health: JobHealth }, b: { health: JobHealth }) => rank(a.health) - rank(b.health),
  }[order];
  return jobs.filter((j) => filter === 'all' || j.health.kind === filter).sort((a, b) => compare(a, b) || a.job.id - b.job.id);
}
