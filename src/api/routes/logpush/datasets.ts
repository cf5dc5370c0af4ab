import type { FastifyInstance } from 'fastify';
import { appError } from '../../../core/app-error.ts';
import { datasetIds, defaultFieldNames, findDataset, type Dataset } from '../../../domain/datasets/http-requests.ts';
import { success } from '../../envelope.ts';

function datasetOf(id: string | undefined): Dataset {
  const dataset = findDataset(id ?? '');
  if (dataset === undefined) throw appError('invalidInput', `dataset ${JSON.stringify(id)} is not served; logexport exports ${datasetIds.join(', ')}`, '/dataset');
  return dataset;
}

/** `datasets/{dataset}/fields` (name → description) and `…/fields/default`. */
export function datasetRoutes(app: FastifyInstance): void {
  app.get('/datasets/:dataset/fields', async (request) => {
    const dataset = datasetOf((request.params as { dataset?: string }).dataset);
    const fields: Record<string, string> = {};
    for (const field of dataset.fields) {
      fields[field.name] = `type: ${field.type}; ${field.description}${field.deprecated === true ? ' (deprecated)' : ''}`;
    }
    return success(fields);
  });

  app.get('/datasets/:dataset/fields/default', async (request) => {
    datasetOf((request.params as { dataset?: string }).dataset);
    return success(defaultFieldNames.join(','));
  });
}
