import type { FastifyInstance } from 'fastify';
import { jobDisabledBy } from '../../../audit/job-disabled-by.ts';
import { appError } from '../../../core/app-error.ts';
import { success } from '../../envelope.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';
import { jobIdOf } from '../../request-input.ts';

/**
 * `jobs/{job_id}/stats`: the job's counters summed over every node, delivered records per minute, and
 * what its health is read from besides the job's own fields: since when it has been failing (and when
 * logexport will disable it unless a delivery succeeds first), or who disabled it and when.
 */
export function statsRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/jobs/:job_id/stats', async (request) => {
    const zone = zoneOf(request);
    const jobId = jobIdOf((request.params as { job_id?: string }).job_id);
    const job = await deps.store.getJob(zone.id, jobId);
    if (job === undefined) throw appError('notFound', `could not find job ${jobId}`);
    const total = await deps.dataPlane.counters.total(jobId);
    const failingSince = job.enabled ? job.failingSince : null;
    const status = {
      failing_since: failingSince,
      disables_at: failingSince === null ? null : new Date(Date.parse(failingSince) + deps.config.disableFailingJobsAfterMs).toISOString(),
      disabled: job.enabled ? null : await jobDisabledBy(deps.store, zone.userId, job.id),
    };
    return success({ job_id: jobId, counters: total.counters, series: total.series, status });
  });
}
