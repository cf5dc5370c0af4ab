import type { FastifyInstance } from 'fastify';
import { AppError, appError, type ErrorDetail } from '../../../core/app-error.ts';
import { compileJobPlan } from '../../../ingest/job-plan.ts';
import { parseLogpullTime } from '../../../retention/logpull-query.ts';
import { auditZoneChange, zoneAuditOf } from '../../audit-actor.ts';
import { success } from '../../envelope.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';
import { bodyObject, jobIdOf, rejectUnknownKeys } from '../../request-input.ts';

/** A replay time: Unix seconds, Unix nanoseconds (as a number or digits) or RFC 3339. */
function timeOf(value: unknown, name: string, problems: ErrorDetail[]): bigint | undefined {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value : undefined;
  const ns = text === undefined ? undefined : parseLogpullTime(text);
  if (ns === undefined) problems.push({ message: `${name} must be Unix seconds, Unix nanoseconds or an RFC 3339 time`, pointer: `/${name}` });
  return ns;
}

/**
 * `jobs/{job_id}/replay` (logexport's own): `POST {start, end}` exports the job's retained events of that
 * window to its destination through its current settings; `GET` shows how the latest replay on this node
 * stands.
 */
export function replayRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.post('/jobs/:job_id/replay', async (request) => {
    const zone = zoneOf(request);
    const jobId = jobIdOf((request.params as { job_id?: string }).job_id);
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['start', 'end']);
    const job = await deps.store.getJob(zone.id, jobId);
    if (job === undefined) throw appError('notFound', `job ${jobId} does not exist in this zone`);
    const problems: ErrorDetail[] = [];
    const start = timeOf(body.start, 'start', problems);
    const end = timeOf(body.end, 'end', problems);
    if (start !== undefined && end !== undefined) {
      if (end <= start) problems.push({ message: 'end must be later than start', pointer: '/end' });
      const oldest = BigInt(deps.clock.now() - deps.retention.retentionMs) * 1_000_000n;
      if (start < oldest) problems.push({ message: `start is older than the retention (the earliest start now is ${new Date(deps.clock.now() - deps.retention.retentionMs).toISOString()})`, pointer: '/start' });
    }
    if (problems.length > 0 || start === undefined || end === undefined) throw new AppError('replayInvalid', problems);
    const plan = compileJobPlan(job, { maxOperators: deps.config.filterMaxOperators, maxBytes: deps.config.filterMaxBytes });
    if (!plan.ok) throw new AppError('replayInvalid', plan.error);
    if (deps.retention.replays.isRunning(job.id)) throw new AppError('replayRunning', undefined, 5);
    // A replay runs in memory: its entry is written first, so none runs unrecorded.
    await auditZoneChange(deps.store, deps.clock, await zoneAuditOf(request, deps.store, zone), {
      action: 'job.replay',
      resource: { type: 'logexport.job', id: String(job.id) },
      newValue: { start: String(body.start), end: String(body.end), destination_conf: job.destinationConf },
    });
    return success(deps.retention.replays.start(job, plan.value, { startNs: start, endNs: end }));
  });

  app.get('/jobs/:job_id/replay', async (request) => {
    const zone = zoneOf(request);
    const jobId = jobIdOf((request.params as { job_id?: string }).job_id);
    const job = await deps.store.getJob(zone.id, jobId);
    if (job === undefined) throw appError('notFound', `job ${jobId} does not exist in this zone`);
    const progress = deps.retention.replays.get(job.id);
    if (progress === undefined) throw appError('notFound', `job ${jobId} has no replay on this node`);
    return success(progress);
  });
}
