/**
 * The status of every tailed file as the data directory keeps it, for `logexport sources`: the checkpoints
 * (in the embedded queue's database, or beside it for JetStream), read without taking the queue, so it
 * answers for a running node as well as a stopped one, and the files measured now for the bytes behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { AppConfig } from '../../config/config.ts';
import { readSourceCheckpoints } from '../../queue/embedded/queue-db.ts';
import { fileIdOf } from './file-tail.ts';
import { tailSourceName } from './tail-spec.ts';
import { decodeTailState, emptyTailState, type TailState } from './tail-status.ts';

/** One tailed file as `logexport sources` prints it. */
export interface StoredTailStatus {
  readonly source: string;
  readonly format: string;
  readonly file: string;
  /** Whether LOGEXPORT_TAIL (as given to the command) lists it; a checkpoint of a file no longer tailed is shown too. */
  readonly configured: boolean;
  readonly identity: string;
  readonly offset: number;
  readonly bytes_behind: number | null;
  readonly lines_read: number;
  readonly lines_accepted: number;
  readonly lines_rejected: number;
  readonly lines_unknown_host: number;
  readonly last_error: string | null;
  readonly last_error_at: string | null;
}

function checkpointFile(config: AppConfig): string {
  switch (config.queue.kind) {
    case 'embedded':
      return config.queue.path;
    case 'nats':
      return config.queue.sourceCheckpointsPath;
  }
}

function readCheckpoints(file: string): Map<string, string> {
  if (!fs.existsSync(file)) return new Map();
  const db = new SqliteDatabase(file, { timeout: 5000 });
  try {
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'source_checkpoints'").pluck().get() !== undefined;
    return hasTable ? new Map(readSourceCheckpoints(db).map((c) => [c.source, c.state])) : new Map();
  } finally {
    db.close();
  }
}

/** Bytes of the file not read yet: of the file read (when the path still is it), else of the whole file at the path. */
function bytesBehind(file: string, state: TailState): number | null {
  try {
    const stat = fs.statSync(file);
    return fileIdOf(stat) === state.fileId ? Math.max(0, stat.size - state.offset) : stat.size;
  } catch {
    return null;
  }
}

/** The status of every configured or checkpointed tail. */
export function readStoredTailStatus(config: AppConfig): StoredTailStatus[] {
  const checkpoints = readCheckpoints(checkpointFile(config));
  const configured = new Map(config.tail.map((spec) => [tailSourceName(spec), spec]));
  const names = [...new Set([...configured.keys(), ...checkpoints.keys()])].sort();
  return names.map((source) => {
    const saved = checkpoints.get(source);
    const state = saved === undefined ? emptyTailState : decodeTailState(saved);
    const colon = source.indexOf(':');
    const file = path.resolve(source.slice(colon + 1));
    return {
      source,
      format: source.slice(0, colon),
      file,
      configured: configured.has(source),
      identity: state.fileId,
      offset: state.offset,
      bytes_behind: bytesBehind(file, state),
      lines_read: state.linesRead,
      lines_accepted: state.linesAccepted,
      lines_rejected: state.linesRejected,
      lines_unknown_host: state.linesUnknownHost,
      last_error: state.lastError,
      last_error_at: state.lastErrorAt,
    };
  });
}
