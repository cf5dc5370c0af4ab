import type { FastifyInstance } from 'fastify';
import { AppError, appError, type ErrorDetail } from '../../../core/app-error.ts';
import { findDataset } from '../../../domain/datasets/http-requests.ts';
import { maskDestinationConf, ownershipRequired } from '../../../domain/jobs/destination-conf.ts';
import type { DestinationSpec } from '../../../domain/jobs/destination-spec.ts';
import { parseJobInput } from '../../../domain/jobs/job-input.ts';
import { ownershipFailureMessage, verifyOwnershipToken } from '../../../domain/jobs/ownership.ts';
import { checkDestinationAddress } from '../../../destinations/private-address.ts';
import { createDestination } from '../../../destinations/create-destination.ts';
import { compileJobPlan } from '../../../ingest/job-plan.ts';
import type { JobSettings } from '../../../domain/jobs/job-settings.ts';
import type { Job } from '../../../store/store.ts';
import { auditZoneChange, zoneAuditOf } from '../../audit-actor.ts';
import { page, success } from '../../envelope.ts';
import { jobIdOf } from '../../request-input.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';

/** A job as the API shows it: settings exactly as stored, secrets in the destination masked. */
function buildJobView(job: Job) {
  return {
    id: job.id,
    dataset: job.dataset,
    kind: job.kind,
    enabled: job.enabled,
    name: job.name,
    destination_conf: maskDestinationConf(job.destinationConf),
    filter: job.filter,
    output_options: job.outputOptions === null ? null : (JSON.parse(job.outputOptions) as unknown),
    logpull_options: job.logpullOptions,
    frequency: job.frequency,
    max_upload_bytes: job.maxUploadBytes,
    max_upload_records: job.maxUploadRecords,
    max_upload_interval_seconds: job.maxUploadIntervalSeconds,
    last_complete: job.lastComplete,
    last_error: job.lastError,
    error_message: job.errorMessage,
  };
}

/** Views of jobs read from the store's cache are built once per job object. */
const views = new WeakMap<Job, ReturnType<typeof buildJobView>>();

/** A job as the API shows it: settings exactly as stored, secrets in the destination masked. */
export function jobView(job: Job): ReturnType<typeof buildJobView> {
  let view = views.get(job);
  if (view === undefined) {
    view = buildJobView(job);
    views.set(job, view);
  }
  return view;
}

/** A job as the audit log names it. */
function jobResource(jobId: number) {
  return { type: 'logexport.job', id: String(jobId) };
}

function invalid(problems: readonly ErrorDetail[]): AppError {
  return new AppError('jobInvalid', problems);
}

/** Jobs of a zone: list, create, get, update, delete, and the jobs of one dataset. */
export function jobRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const filterLimits = { maxOperators: deps.config.filterMaxOperators, maxBytes: deps.config.filterMaxBytes };

  /**
   * Refuses a destination the server may not use, or whose ownership is not proven. A destination that
   * needs no challenge proves itself instead with a test write (HTTP: the gzip test body; S3 with keys
   * and R2: a probe object, written and removed), so a typo in a URL, a bucket or a key fails now, not
   * at the first delivery.
   */
  async function checkDestination(zoneId: string, conf: string, spec: DestinationSpec, challenge: string | undefined): Promise<void> {
    const address = await checkDestinationAddress(spec, deps.config.allowPrivateDestinations);
    if (address !== undefined) throw invalid([address]);
    if (ownershipRequired(spec)) {
      if (challenge === undefined) {
        throw invalid([{ message: 'ownership_challenge is required for this destination: POST …/ownership with the destination_conf, then send the token from the challenge file', pointer: '/ownership_challenge' }]);
      }
      const verdict = verifyOwnershipToken({ secret: deps.secret, zoneId, destinationConf: conf, token: challenge, nowMs: deps.clock.now() });
      if (!verdict.valid) throw invalid([{ message: ownershipFailureMessage(verdict.reason), pointer: '/ownership_challenge' }]);
      return;
    }
    const destination = createDestination(spec, { exportRoot: deps.config.exportRoot, allowPrivate: deps.config.allowPrivateDestinations, timeoutMs: deps.config.deliveryTimeoutMs });
    try {
      const outcome = await destination.validate();
      if (outcome.kind !== 'delivered') {
        throw invalid([{ message: `error validating destination: ${outcome.reason}`, pointer: '/destination_conf' }]);
      }
    } finally {
      await destination.close();
    }
  }

  function jobLimitReached(dataset: string): AppError {
    return new AppError('jobLimitReached', `creating a new job (for ${dataset} dataset) is not allowed: exceeded max jobs allowed`);
  }

  function compile(settings: JobSettings) {
    const plan = compileJobPlan(settings, filterLimits);
    if (!plan.ok) throw invalid(plan.error);
    return plan.value;
  }

  const params = (request: { params: unknown }) => request.params as Record<string, string | undefined>;

  app.get('/jobs', async (request) => page((await deps.store.listJobs(zoneOf(request).id)).map(jobView)));

  app.get('/datasets/:dataset/jobs', async (request) => {
    const dataset = params(request).dataset ?? '';
    if (findDataset(dataset) === undefined) throw appError('invalidInput', `dataset ${JSON.stringify(dataset)} is not served; logexport exports http_requests`, '/dataset');
    const jobs = await deps.store.listJobs(zoneOf(request).id);
    return page(jobs.filter((j) => j.dataset === dataset).map(jobView));
  });

  app.post('/jobs', async (request) => {
    const zone = zoneOf(request);
    const input = parseJobInput(request.body, 'create');
    if (!input.ok) throw invalid(input.error);
    // parseJobInput sets dataset, kind, enabled and destination_conf on create; the rest default to unset.
    const full = {
      filter: null,
      outputOptions: null,
      logpullOptions: null,
      frequency: null,
      maxUploadBytes: null,
      maxUploadRecords: null,
      maxUploadIntervalSeconds: null,
      name: null,
      ...input.value.settings,
    } as JobSettings;
    const plan = compile(full);
    // Checked before the destination is contacted, so a zone at its limit causes no test upload; the
    // transaction below checks again, so two concurrent creates cannot both pass.
    if ((await deps.store.listJobs(zone.id)).length >= deps.config.maxJobsPerZone) throw jobLimitReached(full.dataset);
    await checkDestination(zone.id, full.destinationConf, plan.destination, input.value.ownershipChallenge);
    const now = new Date(deps.clock.now()).toISOString();
    const audit = await zoneAuditOf(request, deps.store, zone);
    const job = await deps.store.transaction(async (tx) => {
      const created = await tx.createJob(zone.id, full, now, deps.config.maxJobsPerZone);
      if (created === undefined) throw jobLimitReached(full.dataset);
      if (created.enabled) await deps.jobs.beforeEnable(created);
      await auditZoneChange(tx, deps.clock, audit, { action: 'job.create', resource: jobResource(created.id), newValue: buildJobView(created) });
      return created;
    });
    deps.changes.zoneChanged(zone.id);
    return success(jobView(job));
  });

  app.get('/jobs/:job_id', async (request) => {
    const zone = zoneOf(request);
    const jobId = jobIdOf(params(request).job_id);
    const job = await deps.store.getJob(zone.id, jobId);
    if (job === undefined) throw appError('notFound', `could not find job ${jobId}`);
    return success(jobView(job));
  });

  app.put('/jobs/:job_id', async (request) => {
    const zone = zoneOf(request);
    const jobId = jobIdOf(params(request).job_id);
    const existing = await deps.store.getJob(zone.id, jobId);
    if (existing === undefined) throw appError('notFound', `could not find job ${jobId}`);
    const input = parseJobInput(request.body, 'update');
    if (!input.ok) throw invalid(input.error);
    const changes = { ...input.value.settings };
    // A client that read the job back sends the masked destination; that is not a change.
    if (changes.destinationConf !== undefined && (changes.destinationConf === existing.destinationConf || changes.destinationConf === maskDestinationConf(existing.destinationConf))) {
      delete changes.destinationConf;
    }
    if (changes.dataset !== undefined && changes.dataset !== existing.dataset) {
      throw invalid([{ message: `dataset cannot be changed after the job is created (it is ${existing.dataset}); create a new job instead`, pointer: '/dataset' }]);
    }
    if (changes.kind !== undefined && changes.kind !== existing.kind) {
      throw invalid([{ message: 'kind cannot be changed after the job is created', pointer: '/kind' }]);
    }
    const merged: JobSettings = { ...existing, ...changes };
    const plan = compile(merged);
    if (changes.destinationConf !== undefined) {
      await checkDestination(zone.id, merged.destinationConf, plan.destination, input.value.ownershipChallenge);
    }
    const now = new Date(deps.clock.now()).toISOString();
    const audit = await zoneAuditOf(request, deps.store, zone);
    const job = await deps.store.transaction(async (tx) => {
      const updated = await tx.updateJob(zone.id, jobId, changes, now);
      if (updated === undefined) throw appError('notFound', `could not find job ${jobId}`);
      const action = updated.enabled === existing.enabled ? 'job.update' : updated.enabled ? 'job.enable' : 'job.disable';
      await auditZoneChange(tx, deps.clock, audit, { action, resource: jobResource(jobId), oldValue: buildJobView(existing), newValue: buildJobView(updated) });
      if (!updated.enabled || existing.enabled) return updated;
      await deps.jobs.beforeEnable(updated);
      if (updated.failingSince === null) return updated;
      // A job disabled for failing resumes where it stopped, with a full period to deliver before it is
      // disabled again (not just what was left of the last one).
      await tx.setJobStatus(updated.id, { failingSince: now });
      return { ...updated, failingSince: now };
    });
    if (!job.enabled && existing.enabled) await deps.jobs.afterDisable(job);
    deps.changes.zoneChanged(zone.id);
    return success(jobView(job));
  });

  app.delete('/jobs/:job_id', async (request) => {
    const zone = zoneOf(request);
    const jobId = jobIdOf(params(request).job_id);
    const existing = await deps.store.getJob(zone.id, jobId);
    if (existing === undefined) throw appError('notFound', `could not find job ${jobId}`);
    const audit = await zoneAuditOf(request, deps.store, zone);
    await deps.store.transaction(async (tx) => {
      if (!(await tx.deleteJob(zone.id, jobId))) throw appError('notFound', `could not find job ${jobId}`);
      await auditZoneChange(tx, deps.clock, audit, { action: 'job.delete', resource: jobResource(jobId), oldValue: buildJobView(existing) });
    });
    await deps.jobs.afterDisable(existing);
    deps.changes.zoneChanged(zone.id);
    return success({ id: jobId });
  });
}
