/**
 * Builds a runtime destination from a parsed spec: the only switch on the destination kind outside the
 * parser, so adding a destination means one parser branch, one builder and one line here.
 */
import type { Clock } from '../core/clock.ts';
import type { DestinationSpec } from '../domain/jobs/destination-spec.ts';
import type { Destination } from './destination.ts';
import { createFileDestination, type FileOps } from './file.ts';
import { createHttpDestination } from './http.ts';
import { createS3Destination } from './s3.ts';

/** The default deadline of one delivery request (HTTP POST or S3 PutObject). */
export const defaultDestinationTimeoutMs = 30_000;

/** What building a destination needs from the server's configuration. */
export interface DestinationDeps {
  /** Absolute `LOGEXPORT_EXPORT_ROOT`. */
  readonly exportRoot: string;
  /** `LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS`. */
  readonly allowPrivate: boolean;
  readonly timeoutMs?: number;
  /** Reads `Retry-After` dates against it; the system clock when absent. */
  readonly clock?: Clock;
  /** The file system `file://` destinations write through; node's own when absent (tests inject failures). */
  readonly fileOps?: FileOps;
}

/** Builds the destination a spec describes. */
export function createDestination(spec: DestinationSpec, deps: DestinationDeps): Destination {
  const timeoutMs = deps.timeoutMs ?? defaultDestinationTimeoutMs;
  switch (spec.kind) {
    case 'file':
      return createFileDestination(spec, { exportRoot: deps.exportRoot, fs: deps.fileOps });
    case 's3':
    case 'r2':
      return createS3Destination(spec, { allowPrivate: deps.allowPrivate, timeoutMs });
    case 'http':
      return createHttpDestination(spec, { allowPrivate: deps.allowPrivate, timeoutMs, clock: deps.clock });
  }
}
