import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../core/app-error.ts';
import { findDataset, httpRequests, type Dataset } from '../../../domain/datasets/http-requests.ts';
import { filterMessage } from '../../../ingest/job-plan.ts';
import { parseFilter } from '../../../domain/filters/parse-filter.ts';
import { parseDestinationConf, sameDestination } from '../../../domain/jobs/destination-conf.ts';
import { hasFieldNames, parseLogpullOptions, resolveOutputPlan } from '../../../domain/jobs/output-options.ts';
import { createDestination } from '../../../destinations/create-destination.ts';
import { checkDestinationAddress } from '../../../destinations/private-address.ts';
import { success } from '../../envelope.ts';
import { bodyObject, destinationOf, rejectUnknownKeys } from '../../request-input.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';

/** The dataset a body names (`http_requests` when it names none); an unknown one is a 400 pointing at it. */
function datasetOf(body: Readonly<Record<string, unknown>>): Dataset {
  const datasetId = body.dataset ?? 'http_requests';
  const dataset = typeof datasetId === 'string' ? findDataset(datasetId) : undefined;
  if (dataset === undefined) throw new AppError('jobInvalid', { message: `dataset ${JSON.stringify(datasetId)} is not served; logexport exports ${httpRequests.id}`, pointer: '/dataset' });
  return dataset;
}

/** validate/destination (a real test write), validate/destination/exists, validate/origin, validate/filter. */
export function validateRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.post('/validate/destination', async (request) => {
    zoneOf(request);
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['destination_conf']);
    const { spec } = destinationOf(body);
    const address = await checkDestinationAddress(spec, deps.config.allowPrivateDestinations);
    if (address !== undefined) return success({ valid: false, message: address.message });
    const destination = createDestination(spec, { exportRoot: deps.config.exportRoot, allowPrivate: deps.config.allowPrivateDestinations, timeoutMs: deps.config.deliveryTimeoutMs });
    try {
      const outcome = await destination.validate();
      return success(outcome.kind === 'delivered' ? { valid: true, message: '' } : { valid: false, message: `error validating destination: ${outcome.reason}` });
    } finally {
      await destination.close();
    }
  });

  app.post('/validate/destination/exists', async (request) => {
    const zone = zoneOf(request);
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['destination_conf']);
    const { spec } = destinationOf(body);
    const jobs = await deps.store.listJobs(zone.id);
    const exists = jobs.some((job) => {
      const other = parseDestinationConf(job.destinationConf);
      return other.ok && sameDestination(other.value, spec);
    });
    return success({ exists });
  });

  // Checks a job filter exactly as job create would (same limits, same messages), without a job: the
  // dashboard's filter builder calls it as the user types.
  app.post('/validate/filter', { config: { access: 'read' } }, async (request) => {
    zoneOf(request);
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['filter', 'dataset']);
    const dataset = datasetOf(body);
    if (body.filter !== null && typeof body.filter !== 'string') throw new AppError('jobInvalid', { message: 'filter must be a string holding JSON such as {"where":{…}}, or null', pointer: '/filter' });
    const parsed = parseFilter(body.filter, dataset, { maxOperators: deps.config.filterMaxOperators, maxBytes: deps.config.filterMaxBytes });
    return success(parsed.ok ? { valid: true, message: '' } : { valid: false, message: filterMessage(parsed.error) });
  });

  app.post('/validate/origin', async (request) => {
    zoneOf(request);
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['logpull_options', 'dataset']);
    const parsed = parseLogpullOptions(body.logpull_options, datasetOf(body));
    if (!parsed.ok) return success({ valid: false, message: parsed.error.map((e) => e.message).join('; ') });
    if (!hasFieldNames(resolveOutputPlan(null, parsed.value))) return success({ valid: false, message: 'logpull_options must name fields (fields=RayID,ClientIP,…)' });
    return success({ valid: true, message: '' });
  });
}
