import type { FastifyInstance } from 'fastify';
import { appError } from '../../../core/app-error.ts';
import { success } from '../../envelope.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';
import { jobIdOf } from '../../request-input.ts';

/** `jobs/{job_id}/stats`: the job's counters summed over every node, and delivered records per minute. */
export function statsRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/jobs/:job_id/stats', async (request) => {
    const zone = zoneOf(request);
    const jobId = jobIdOf((request.params as { job_id?: string }).job_id);
    const job = await deps.store.getJob(zone.id, jobId);
    if (job === undefined) throw appError('notFound', `could not find job ${jobId}`);
    const total = await deps.dataPlane.counters.total(jobId);
    return success({ job_id: jobId, counters: total.counters, series: total.series });
  });
}
