/**
 * Source checkpoints kept in a small SQLite file of their own, for a queue that cannot write them in the
 * same transaction as the events (JetStream): a tailed file is local to its node, so its read position is
 * too. Written with synchronous=FULL, after the messages they cover are stored.
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';
import type { SourceCheckpoint } from './queue.ts';

/** The table: the embedded queue's `source_checkpoints` and the batch a publish was started for, so `logexport sources` reads both alike. */
const schema = 'CREATE TABLE IF NOT EXISTS source_checkpoints (source TEXT PRIMARY KEY, state TEXT NOT NULL, unfinished TEXT) WITHOUT ROWID';

/** One node's checkpoint file, opened on first use. */
export class SourceCheckpointFile {
  readonly #file: string;
  #db: Database | undefined;
  #put: Statement | undefined;
  #begin: Statement | undefined;

  constructor(file: string) {
    this.#file = file;
  }

  #open(): Database {
    if (this.#db !== undefined) return this.#db;
    fs.mkdirSync(path.dirname(this.#file), { recursive: true });
    const db = new SqliteDatabase(this.#file, { timeout: 1000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(schema);
    this.#db = db;
    this.#put = db.prepare('INSERT OR REPLACE INTO source_checkpoints (source, state, unfinished) VALUES (?, ?, NULL)');
    this.#begin = db.prepare(
      "INSERT INTO source_checkpoints (source, state, unfinished) VALUES (?, '', ?) ON CONFLICT (source) DO UPDATE SET unfinished = excluded.unfinished",
    );
    return db;
  }

  /** Notes, before publishing, the batch an append is about to publish for `source`. */
  begin(source: string, batchId: string): void {
    this.#open();
    this.#begin?.run(source, batchId);
  }

  /** Stores the checkpoint once its batch is published (clearing the unfinished batch). */
  put(checkpoint: SourceCheckpoint): void {
    this.#open();
    this.#put?.run(checkpoint.source, checkpoint.state);
  }

  all(): SourceCheckpoint[] {
    if (this.#db === undefined && !fs.existsSync(this.#file)) return [];
    const rows = this.#open().prepare('SELECT source, state, unfinished FROM source_checkpoints ORDER BY source').all() as { source: string; state: string; unfinished: string | null }[];
    return rows.map((row) => (row.unfinished === null ? { source: row.source, state: row.state } : { source: row.source, state: row.state, unfinished: row.unfinished }));
  }

  close(): void {
    this.#db?.close();
    this.#db = undefined;
  }
}
