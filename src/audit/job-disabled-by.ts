/**
 * Who disabled a job, and when: read from the audit log, which records every switch of a job (created
 * disabled, disabled through the API or the dashboard, or disabled by logexport after failing too long).
 */
import type { Store } from '../store/store.ts';

/** How a disabled job came to be disabled; `at` and `by` are null when the audit log no longer says (pruned). */
export interface JobDisabledBy {
  readonly at: string | null;
  /** `user` (a global key or the dashboard), `token` (an API token), or `logexport` (after failing too long). */
  readonly by: 'user' | 'token' | 'logexport' | null;
  /** The e-mail of the user, or of the token's owner; null for logexport. */
  readonly email: string | null;
  /** Why logexport disabled it ("no delivery for 1440 minutes"); null otherwise. */
  readonly reason: string | null;
}

const switches = new Set(['job.create', 'job.enable', 'job.disable']);
const pageSize = 100;

function reasonOf(metadata: string | null): string | null {
  if (metadata === null) return null;
  try {
    const value = JSON.parse(metadata) as unknown;
    const reason = typeof value === 'object' && value !== null ? (value as { reason?: unknown }).reason : undefined;
    return typeof reason === 'string' ? reason : null;
  } catch {
    return null;
  }
}

/**
 * The newest entry that switched a disabled job (its creation, when it was created disabled), read newest
 * first through the job's own entries. `ownerId` is the zone owner's, whose audit log holds the job's entries.
 */
export async function jobDisabledBy(store: Store, ownerId: string, jobId: number): Promise<JobDisabledBy> {
  const resource = { type: 'logexport.job', id: String(jobId) };
  for (let page = 1; ; page++) {
    const { entries } = await store.listAudit({ ownerId, resource, direction: 'desc', page, perPage: pageSize });
    const entry = entries.find((e) => switches.has(e.action.type) && e.action.result);
    if (entry !== undefined) {
      if (entry.action.type === 'job.enable') break;
      const by = entry.actor.type === 'system' ? 'logexport' : entry.actor.type;
      return { at: entry.when, by, email: entry.actor.email, reason: by === 'logexport' ? reasonOf(entry.metadata) : null };
    }
    if (entries.length < pageSize) break;
  }
  return { at: null, by: null, email: null, reason: null };
}
