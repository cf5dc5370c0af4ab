import type { Migration } from 'kysely';
import type { Engine } from '../database.ts';
import { foundation } from './0001-foundation.ts';
import { jobs } from './0002-jobs.ts';
import { hardening } from './0003-hardening.ts';
import { retention } from './0004-retention.ts';
import { tenancy } from './0005-tenancy.ts';
import { replayProgress } from './0006-replay-progress.ts';
import { explorerDatasets } from './0007-explorer-datasets.ts';

/** Every migration in order; names sort by their number, and a name never changes once released. */
export function migrations(engine: Engine): Record<string, Migration> {
  return {
    '0001-foundation': foundation(engine),
    '0002-jobs': jobs(engine),
    '0003-hardening': hardening(engine),
    '0004-retention': retention(engine),
    '0005-tenancy': tenancy(engine),
    '0006-replay-progress': replayProgress(engine),
    '0007-explorer-datasets': explorerDatasets(engine),
  };
}
