/** The only switch on where segments live; also chooses the writer's work directory for temporary files. */
import path from 'node:path';
import type { RetentionStorageConfig } from '../config/config.ts';
import { LocalSegmentStore } from './local-segment-store.ts';
import { S3SegmentStore } from './s3-segment-store.ts';
import type { SegmentStore } from './segment-store.ts';

/** A segment store and the directory its writer and readers keep temporary files in. */
export interface OpenedSegmentStore {
  readonly store: SegmentStore;
  readonly workDir: string;
}

export function openSegmentStore(config: RetentionStorageConfig, dataDir: string): OpenedSegmentStore {
  switch (config.kind) {
    case 'local': {
      // Under the same root, so a finished segment is renamed into place, never copied.
      const workDir = path.join(config.dir, '.work');
      return { store: new LocalSegmentStore(config.dir), workDir };
    }
    case 's3': {
      const workDir = path.join(dataDir, 'retention-work');
      return { store: new S3SegmentStore(config.spec, workDir), workDir };
    }
  }
}
