import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError, appError } from '../../../core/app-error.ts';
import { datasetIds, findDataset, type Dataset, type FieldType } from '../../../domain/datasets/http-requests.ts';
import {
  explorerDatasetAnswer,
  explorerTimestampField,
  parseExplorerDatasetCreate,
  parseExplorerDatasetUpdate,
  type ExplorerDataset,
} from '../../../domain/explorer/explorer-dataset.ts';
import { UniqueViolation } from '../../../store/store.ts';
import { auditZoneChange, zoneAuditOf, type ZoneAudit } from '../../audit-actor.ts';
import { success } from '../../envelope.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';
import { bodyObject, pathId } from '../../request-input.ts';
import { retainsWith } from '../../zone-retention.ts';

/** A JSON Schema of one field type. */
function schemaOf(type: FieldType, description: string): Record<string, unknown> {
  switch (type) {
    case 'string':
      return { type: 'string', description };
    case 'int':
      return { type: 'integer', description };
    case 'float':
      return { type: 'number', description };
    case 'bool':
      return { type: 'boolean', description };
    case 'timestamp':
      return { type: 'string', format: 'date-time', description };
    case 'string[]':
      return { type: 'array', items: { type: 'string' }, description };
    case 'int[]':
      return { type: 'array', items: { type: 'integer' }, description };
    case 'object':
      return { type: 'object', additionalProperties: { type: 'string' }, description };
  }
}

/** One dataset type as `datasets/available` lists it: its JSON Schema (from the field catalogue) and timestamp field. */
function availableOf(dataset: Dataset): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const field of dataset.fields) properties[field.name] = schemaOf(field.type, field.description);
  return { dataset: dataset.id, object_type: 'zone', schema: { type: 'object', properties }, timestamp_field: explorerTimestampField };
}

/** The dataset id from the path (32 hex digits), or the product's 7003 answer. */
function datasetIdOf(params: unknown): string {
  return pathId((params as { dataset_id?: string }).dataset_id, 'dataset');
}

/**
 * Runs a change of a zone's datasets, keeping the zone's retention in step: when the change makes the zone
 * retain (it had neither the flag nor an enabled dataset), its retention consumer starts at the end of its
 * stream before the change is stored; when it stops the zone retaining, the consumer goes after.
 */
async function changeDatasets(deps: ApiDeps, zoneId: string, after: (datasets: readonly ExplorerDataset[]) => readonly ExplorerDataset[], write: () => Promise<void>): Promise<void> {
  const [flag, datasets] = await Promise.all([deps.store.getRetentionFlag(zoneId), deps.store.listExplorerDatasets(zoneId)]);
  const before = retainsWith(flag, datasets);
  const now = retainsWith(flag, after(datasets));
  if (now && !before) await deps.retention.beforeEnable(zoneId);
  try {
    await write();
  } catch (error) {
    if (now && !before) await deps.retention.afterDisable(zoneId).catch(() => {});
    throw error;
  }
  deps.changes.zoneChanged(zoneId);
  if (before && !now) await deps.retention.afterDisable(zoneId);
}

function audited(deps: ApiDeps, audit: ZoneAudit, action: 'explorer_dataset.create' | 'explorer_dataset.update' | 'explorer_dataset.delete', id: string, oldValue: unknown, newValue: unknown) {
  return (tx: Parameters<typeof auditZoneChange>[0]) => auditZoneChange(tx, deps.clock, audit, { action, resource: { type: 'logs.explorer_dataset', id }, oldValue, newValue });
}

/**
 * `logs/explorer/datasets`: a zone's Log Explorer datasets, as the official client calls them
 * (`client.logs.logExplorer.datasets.{create,list,get,update,delete,available.list}`). An enabled
 * `http_requests` dataset makes the zone keep its events for SQL — the events its filter passes, with
 * its enabled fields — unless the zone's retention flag keeps every event whole already.
 */
export function explorerDatasetRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const filterLimits = { maxOperators: deps.config.filterMaxOperators, maxBytes: deps.config.filterMaxBytes };

  app.get('/logs/explorer/datasets/available', async () => success(datasetIds.flatMap((id) => findDataset(id) ?? []).map(availableOf)));

  app.get('/logs/explorer/datasets', async (request) => {
    const zone = zoneOf(request);
    const datasets = await deps.store.listExplorerDatasets(zone.id);
    return success(datasets.map((d) => explorerDatasetAnswer(d, false)));
  });

  app.get('/logs/explorer/datasets/:dataset_id', async (request) => {
    const zone = zoneOf(request);
    const dataset = await deps.store.getExplorerDataset(zone.id, datasetIdOf(request.params));
    if (dataset === undefined) throw appError('notFound', 'The zone has no Log Explorer dataset with this id');
    return success(explorerDatasetAnswer(dataset, true));
  });

  app.post('/logs/explorer/datasets', async (request) => {
    const zone = zoneOf(request);
    const parsed = parseExplorerDatasetCreate(bodyObject(request.body), filterLimits);
    if (!parsed.ok) throw new AppError('explorerDatasetInvalid', parsed.error);
    const now = new Date(deps.clock.now()).toISOString();
    const dataset: ExplorerDataset = {
      id: randomBytes(16).toString('hex'),
      zoneId: zone.id,
      dataset: parsed.value.dataset,
      enabled: parsed.value.enabled,
      fields: parsed.value.fields,
      filter: parsed.value.filter,
      deletionProtection: parsed.value.deletionProtection,
      createdAt: now,
      updatedAt: now,
    };
    const existing = await deps.store.listExplorerDatasets(zone.id);
    if (existing.some((d) => d.dataset === dataset.dataset)) throw new AppError('explorerDatasetExists');
    const audit = await zoneAuditOf(request, deps.store, zone);
    const answer = explorerDatasetAnswer(dataset, true);
    try {
      await changeDatasets(
        deps,
        zone.id,
        (datasets) => [...datasets, dataset],
        () =>
          deps.store.transaction(async (tx) => {
            await tx.createExplorerDataset(dataset);
            await audited(deps, audit, 'explorer_dataset.create', dataset.id, null, answer)(tx);
          }),
      );
    } catch (error) {
      // Two creates at once: the store's unique constraint keeps one.
      if (error instanceof UniqueViolation) throw new AppError('explorerDatasetExists');
      throw error;
    }
    return success(answer);
  });

  app.put('/logs/explorer/datasets/:dataset_id', async (request) => {
    const zone = zoneOf(request);
    const id = datasetIdOf(request.params);
    const current = await deps.store.getExplorerDataset(zone.id, id);
    if (current === undefined) throw appError('notFound', 'The zone has no Log Explorer dataset with this id');
    const type = findDataset(current.dataset);
    if (type === undefined) throw appError('notFound', `dataset ${current.dataset} is no longer served`);
    const parsed = parseExplorerDatasetUpdate(bodyObject(request.body), type, filterLimits);
    if (!parsed.ok) throw new AppError('explorerDatasetInvalid', parsed.error);
    const changes = parsed.value;
    const updated: ExplorerDataset = {
      ...current,
      enabled: changes.enabled ?? current.enabled,
      fields: changes.fields === undefined ? current.fields : changes.fields,
      filter: changes.filter === undefined ? current.filter : changes.filter,
      deletionProtection: changes.deletionProtection ?? current.deletionProtection,
      updatedAt: new Date(deps.clock.now()).toISOString(),
    };
    const audit = await zoneAuditOf(request, deps.store, zone);
    const answer = explorerDatasetAnswer(updated, true);
    await changeDatasets(
      deps,
      zone.id,
      (datasets) => datasets.map((d) => (d.id === id ? updated : d)),
      () =>
        deps.store.transaction(async (tx) => {
          if (!(await tx.updateExplorerDataset(updated))) throw appError('notFound', 'The zone has no Log Explorer dataset with this id');
          await audited(deps, audit, 'explorer_dataset.update', id, explorerDatasetAnswer(current, true), answer)(tx);
        }),
    );
    return success(answer);
  });

  app.delete('/logs/explorer/datasets/:dataset_id', async (request) => {
    const zone = zoneOf(request);
    const id = datasetIdOf(request.params);
    const current = await deps.store.getExplorerDataset(zone.id, id);
    if (current === undefined) throw appError('notFound', 'The zone has no Log Explorer dataset with this id');
    if (current.deletionProtection) throw new AppError('explorerDatasetProtected');
    const audit = await zoneAuditOf(request, deps.store, zone);
    const answer = explorerDatasetAnswer(current, true);
    await changeDatasets(
      deps,
      zone.id,
      (datasets) => datasets.filter((d) => d.id !== id),
      () =>
        deps.store.transaction(async (tx) => {
          if (!(await tx.deleteExplorerDataset(zone.id, id))) throw appError('notFound', 'The zone has no Log Explorer dataset with this id');
          await audited(deps, audit, 'explorer_dataset.delete', id, answer, null)(tx);
        }),
    );
    return success(answer);
  });
}

/** `accounts/{account_id}/logs/explorer/…`: logexport has zones, not accounts; every such call says where to go instead. */
export function explorerAccountRoutes(app: FastifyInstance): void {
  app.all('/accounts/:account_id/logs/explorer/*', async () => {
    throw new AppError('explorerAccountScope');
  });
}
