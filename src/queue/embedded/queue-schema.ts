/**
 * The embedded queue's tables, versioned with SQLite's `user_version` so later releases can evolve them:
 * each entry of `migrations` moves the file up one version, and a file from a newer release is refused.
 */
import type { Database } from 'better-sqlite3';

const migrations: readonly string[] = [
  // 1: streams, chunks (seq is global and never reused: AUTOINCREMENT), consumers, dedupe keys.
  `
  CREATE TABLE streams (
    id INTEGER PRIMARY KEY,
    zone_id TEXT NOT NULL,
    dataset TEXT NOT NULL,
    -- payload bytes ever appended; chunk and consumer byte positions are offsets into this count
    end_bytes INTEGER NOT NULL DEFAULT 0,
    UNIQUE (zone_id, dataset)
  );
  CREATE TABLE chunks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_id INTEGER NOT NULL,
    appended_at INTEGER NOT NULL,
    record_count INTEGER NOT NULL,
    size INTEGER NOT NULL,
    bytes_end INTEGER NOT NULL,
    -- last, so reading the columns above never touches the payload's overflow pages
    payload BLOB NOT NULL
  );
  CREATE INDEX chunks_by_stream ON chunks (stream_id, seq);
  CREATE TABLE consumers (
    stream_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    committed_seq INTEGER NOT NULL,
    committed_record INTEGER NOT NULL,
    committed_bytes INTEGER NOT NULL,
    inflight TEXT,
    PRIMARY KEY (stream_id, name)
  );
  CREATE TABLE dedupe_keys (
    stream_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    seen_at INTEGER NOT NULL,
    PRIMARY KEY (stream_id, key)
  ) WITHOUT ROWID;
  `,
  // 2: the read positions (and counts) of sources such as tailed files, written with what they appended.
  `
  CREATE TABLE source_checkpoints (
    source TEXT PRIMARY KEY,
    state TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
];

/** The schema version this release writes. */
export const embeddedQueueSchemaVersion = migrations.length;

/** Brings the queue database up to `embeddedQueueSchemaVersion`; call inside a write transaction. */
export function migrateEmbeddedQueue(db: Database): void {
  const current = db.pragma('user_version', { simple: true });
  if (typeof current !== 'number') throw new Error('the queue database did not report its schema version');
  if (current > embeddedQueueSchemaVersion) {
    throw new Error(`the queue database has schema version ${current}, newer than this release understands (${embeddedQueueSchemaVersion}); run a newer logexport`);
  }
  for (let version = current; version < embeddedQueueSchemaVersion; version++) {
    db.exec(migrations[version] ?? '');
  }
  if (current !== embeddedQueueSchemaVersion) db.pragma(`user_version = ${embeddedQueueSchemaVersion}`);
}
