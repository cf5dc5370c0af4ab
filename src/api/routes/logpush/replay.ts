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

/** A duration in words: `7 days`, `36 hours`, `90 minutes`. */
function durationText(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} day${ms === 86_400_000 ? '' : 's'}`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} hours`;
  return `${Math.round(ms / 60_000)} minutes`;
}

/**
 * `jobs/{job_id}/replay` (logexport's own): `POST {start, end}` exports the job's retained events of that
 * window to its destination through its current settings (queued when the node runs its most replays
 * already); `GET` shows how the job's latest replay stands, from any node; `DELETE` cancels it.
 */
export function replayRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const jobOf = async (zoneId: string, raw: string | undefined) => {
    const jobId = jobIdOf(raw);
    const job = await deps.store.getJob(zoneId, jobId);
    if (job === undefined) throw appError('notFound', `job ${jobId} does not exist in this zone`);
    return job;
  };

  app.post('/jobs/:job_id/replay', async (request) => {
    const zone = zoneOf(request);
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['start', 'end']);
    const job = await jobOf(zone.id, (request.params as { job_id?: string }).job_id);
    const problems: ErrorDetail[] = [];
    const start = timeOf(body.start, 'start', problems);
    const end = timeOf(body.end, 'end', problems);
    const nowMs = deps.clock.now();
    if (start !== undefined && end !== undefined) {
      const maxWindowMs = deps.config.replayMaxWindowMs;
      if (end <= start) problems.push({ message: 'end must be later than start', pointer: '/end' });
      else if (end - start > BigInt(maxWindowMs) * 1_000_000n) problems.push({ message: `the window must be at most ${durationText(maxWindowMs)} long (LOGEXPORT_REPLAY_MAX_WINDOW)`, pointer: '/end' });
      if (end > BigInt(nowMs) * 1_000_000n) problems.push({ message: `end must not be in the future (it is ${new Date(nowMs).toISOString()} now): a replay reads what was retained`, pointer: '/end' });
      const oldest = BigInt(nowMs - deps.retention.retentionMs) * 1_000_000n;
      if (start < oldest) problems.push({ message: `start is older than the retention (the earliest start now is ${new Date(nowMs - deps.retention.retentionMs).toISOString()})`, pointer: '/start' });
    }
    if (problems.length > 0 || start === undefined || end === undefined) throw new AppError('replayInvalid', problems);
    const plan = compileJobPlan(job, { maxOperators: deps.config.filterMaxOperators, maxBytes: deps.config.filterMaxBytes });
    if (!plan.ok) throw new AppError('replayInvalid', plan.error);
    const progress = await deps.retention.replays.start(job, { startNs: start, endNs: end });
    if (progress === undefined) throw new AppError('replayRunning', undefined, 5);
    try {
      await auditZoneChange(deps.store, deps.clock, await zoneAuditOf(request, deps.store, zone), {
        action: 'job.replay',
        resource: { type: 'logexport.job', id: String(job.id) },
        newValue: { start: String(body.start), end: String(body.end), destination_conf: job.destinationConf },
      });
    } catch (error) {
      // None runs unrecorded.
      await deps.retention.replays.cancel(job.id).catch(() => {});
      throw error;
    }
    return success(progress);
  });

  app.get('/jobs/:job_id/replay', async (request) => {
    const job = await jobOf(zoneOf(request).id, (request.params as { job_id?: string }).job_id);
    const progress = await deps.retention.replays.get(job.id);
    if (progress === undefined) throw appError('notFound', `job ${job.id} has no replay`);
    return success(progress);
  });

  app.delete('/jobs/:job_id/replay', async (request) => {
    const zone = zoneOf(request);
    const job = await jobOf(zone.id, (request.params as { job_id?: string }).job_id);
    const progress = await deps.retention.replays.cancel(job.id);
    if (progress === undefined) throw appError('notFound', `job ${job.id} has no replay`);
    if (progress.status === 'cancelled') {
      await auditZoneChange(deps.store, deps.clock, await zoneAuditOf(request, deps.store, zone), {
        action: 'job.replay.cancel',
        resource: { type: 'logexport.job', id: String(job.id) },
        oldValue: { start: progress.start, end: progress.end },
      });
    }
    return success(progress);
  });
}
