/**
 * The SQL of the embedded queue: opening and locking its database file, and one prepared statement per
 * question the queue asks. Policy (positions, group commit, retention rules) lives in embedded-queue.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';
import { migrateEmbeddedQueue } from './queue-schema.ts';

/**
 * How hard a commit pushes data to the disk: `full` survives power loss, `normal` survives process death.
 * SQLite itself always runs with synchronous=NORMAL here; for `full` the queue syncs the WAL file itself,
 * off the event loop, before an append resolves (embedded-queue.ts), so a slow disk never stalls the server.
 */
export type QueueSynchronous = 'full' | 'normal';

const checkpointThread = new URL('./checkpoint-thread.mjs', import.meta.url);
/** The checkpointer starts once this much has been written to the log (a little use never starts it)… */
const checkpointerStartBytes = 1024 * 1024;
/** …and then checkpoints this often. */
const checkpointIntervalMs = 200;
/** What one write transaction adds to the log at least (one page), for the count above. */
const transactionLogBytes = 4096;

/** A stored stream. */
export interface StreamRow {
  readonly id: number;
  readonly zoneId: string;
  readonly dataset: string;
  readonly endBytes: number;
}

/** A stored consumer and its committed position. */
export interface ConsumerRow {
  readonly streamId: number;
  readonly name: string;
  readonly committedSeq: number;
  readonly committedRecord: number;
  readonly committedBytes: number;
}

/** A stored chunk without its payload. */
export interface ChunkBound {
  readonly seq: number;
  readonly appendedAtMs: number;
  readonly count: number;
  readonly size: number;
  readonly bytesEnd: number;
}

/** A stored chunk. */
export interface ChunkRow extends ChunkBound {
  readonly payload: Buffer;
}

/** The database file of one embedded queue, opened and locked by this process. */
export class EmbeddedQueueDb {
  readonly #db: Database;
  readonly #lock: Database;
  readonly #file: string;
  /** Bytes written to the log before the checkpointer started. */
  #logBytes = 0;
  #checkpointer: Worker | undefined;
  readonly #insertChunk: Statement;
  readonly #setStreamEnd: Statement;
  readonly #findKey: Statement;
  readonly #rememberKey: Statement;
  readonly #boundsFrom: Statement;
  readonly #payload: Statement;
  readonly #chunk: Statement;
  readonly #bounds: Statement;
  readonly #upsertConsumer: Statement;
  readonly #setCommitted: Statement;
  readonly #setInflight: Statement;
  readonly #inflight: Statement;
  readonly #deleteConsumer: Statement;
  readonly #oldest: Statement;
  readonly #deleteChunks: Statement;
  readonly #forgetKeys: Statement;
  readonly #putCheckpoint: Statement;

  private constructor(db: Database, lock: Database, file: string) {
    this.#db = db;
    this.#lock = lock;
    this.#file = file;
    this.#insertChunk = db.prepare('INSERT INTO chunks (stream_id, appended_at, record_count, size, bytes_end, payload) VALUES (?, ?, ?, ?, ?, ?)');
    this.#setStreamEnd = db.prepare('UPDATE streams SET end_bytes = ? WHERE id = ?');
    this.#findKey = db.prepare('SELECT seen_at FROM dedupe_keys WHERE stream_id = ? AND key = ?').pluck();
    this.#rememberKey = db.prepare('INSERT OR REPLACE INTO dedupe_keys (stream_id, key, seen_at) VALUES (?, ?, ?)');
    this.#boundsFrom = db.prepare('SELECT seq, appended_at, record_count, size, bytes_end FROM chunks WHERE stream_id = ? AND seq >= ? ORDER BY seq LIMIT ?').raw();
    this.#payload = db.prepare('SELECT payload FROM chunks WHERE stream_id = ? AND seq = ?').pluck();
    this.#chunk = db.prepare('SELECT seq, appended_at, record_count, size, bytes_end, payload FROM chunks WHERE stream_id = ? AND seq = ?').raw();
    this.#bounds = db
      .prepare('SELECT seq, appended_at, record_count, size, bytes_end FROM chunks WHERE stream_id = ? AND seq >= ? AND seq <= ? ORDER BY seq')
      .raw();
    this.#upsertConsumer = db.prepare(
      `INSERT INTO consumers (stream_id, name, committed_seq, committed_record, committed_bytes, inflight) VALUES (?, ?, ?, ?, ?, NULL)
       ON CONFLICT (stream_id, name) DO UPDATE SET committed_seq = excluded.committed_seq, committed_record = excluded.committed_record,
         committed_bytes = excluded.committed_bytes, inflight = NULL`,
    );
    this.#setCommitted = db.prepare(
      'UPDATE consumers SET committed_seq = ?, committed_record = ?, committed_bytes = ?, inflight = NULL WHERE stream_id = ? AND name = ?',
    );
    this.#setInflight = db.prepare('UPDATE consumers SET inflight = ? WHERE stream_id = ? AND name = ?');
    this.#inflight = db.prepare('SELECT inflight FROM consumers WHERE stream_id = ? AND name = ?').pluck();
    this.#deleteConsumer = db.prepare('DELETE FROM consumers WHERE stream_id = ? AND name = ?');
    this.#oldest = db.prepare('SELECT seq, appended_at, size FROM chunks WHERE stream_id = ? AND seq < ? ORDER BY seq LIMIT ?').raw();
    this.#deleteChunks = db.prepare('DELETE FROM chunks WHERE stream_id = ? AND seq <= ?');
    this.#forgetKeys = db.prepare('DELETE FROM dedupe_keys WHERE seen_at < ?');
    this.#putCheckpoint = db.prepare('INSERT OR REPLACE INTO source_checkpoints (source, state) VALUES (?, ?)');
  }

  /**
   * Opens (creating if needed) the queue file and takes it for this process alone. The lock is a small
   * SQLite file beside the queue (`queue.db.lock`) held in exclusive locking mode until close, so a second
   * process fails here instead of sharing the queue. The queue file itself is opened normally, so that the
   * checkpointer thread can have a connection of its own.
   */
  static open(file: string): EmbeddedQueueDb {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const lock = takeLock(file);
    let db: Database | undefined;
    try {
      const queueDb = new SqliteDatabase(file, { timeout: 1000 });
      db = queueDb;
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new Error(`the queue database ${file} could not be switched to WAL mode (got ${String(mode)})`);
      // NORMAL: commits write the WAL without syncing it; checkpoints still sync. `full` durability is
      // added by the caller syncing the WAL after each commit (see QueueSynchronous).
      db.pragma('synchronous = NORMAL');
      // Checkpoints run on the checkpointer thread, never inside a commit on the event loop.
      db.pragma('wal_autocheckpoint = 0');
      // Keeps the WAL file from staying at its largest size after a burst.
      db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
      db.transaction(() => migrateEmbeddedQueue(queueDb)).immediate();
      return new EmbeddedQueueDb(queueDb, lock, file);
    } catch (error) {
      db?.close();
      lock.close();
      throw lockedError(file, error) ?? error;
    }
  }

  /** Runs `work` in one write transaction: one commit, one sync of the WAL. */
  transaction<T>(work: () => T): T {
    const result = this.#db.transaction(work).immediate();
    if (this.#checkpointer === undefined) {
      this.#logBytes += transactionLogBytes;
      if (this.#logBytes >= checkpointerStartBytes) this.#startCheckpointer();
    }
    return result;
  }

  #startCheckpointer(): void {
    const worker = new Worker(checkpointThread, { workerData: { file: this.#file, intervalMs: checkpointIntervalMs } });
    worker.unref();
    const report = (message: string) => console.error(`A checkpoint of the queue ${this.#file} failed: ${message}`);
    worker.on('message', (message: { error?: string }) => {
      if (message.error !== undefined) report(message.error);
    });
    worker.on('error', (error) => report(error.message));
    // A thread that ended on its own (it failed) is started again after the next megabyte of writes.
    worker.on('exit', () => {
      if (this.#checkpointer !== worker) return;
      this.#checkpointer = undefined;
      this.#logBytes = 0;
    });
    this.#checkpointer = worker;
  }

  streams(): StreamRow[] {
    return this.#db
      .prepare('SELECT id, zone_id, dataset, end_bytes FROM streams')
      .raw()
      .all()
      .map((row) => {
        const r = columns(row);
        return { id: integer(r[0]), zoneId: text(r[1]), dataset: text(r[2]), endBytes: integer(r[3]) };
      });
  }

  consumers(): ConsumerRow[] {
    return this.#db
      .prepare('SELECT stream_id, name, committed_seq, committed_record, committed_bytes FROM consumers')
      .raw()
      .all()
      .map((row) => {
        const r = columns(row);
        return { streamId: integer(r[0]), name: text(r[1]), committedSeq: integer(r[2]), committedRecord: integer(r[3]), committedBytes: integer(r[4]) };
      });
  }

  /** The highest seq ever given out (0 when none): seqs are never reused, even after every chunk is gone. */
  lastSeq(): number {
    const value: unknown = this.#db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'chunks'").pluck().get();
    return value === undefined ? 0 : integer(value);
  }

  createStream(zoneId: string, dataset: string): number {
    const result = this.#db.prepare('INSERT INTO streams (zone_id, dataset, end_bytes) VALUES (?, ?, 0)').run(zoneId, dataset);
    return Number(result.lastInsertRowid);
  }

  insertChunk(streamId: number, appendedAtMs: number, count: number, payload: Buffer, bytesEnd: number): number {
    this.#logBytes += payload.byteLength;
    return Number(this.#insertChunk.run(streamId, appendedAtMs, count, payload.byteLength, bytesEnd, payload).lastInsertRowid);
  }

  setStreamEnd(streamId: number, endBytes: number): void {
    this.#setStreamEnd.run(endBytes, streamId);
  }

  /** When the key was last stored for the stream, if it was. */
  keySeenAt(streamId: number, key: string): number | undefined {
    const value: unknown = this.#findKey.get(streamId, key);
    return value === undefined ? undefined : integer(value);
  }

  rememberKey(streamId: number, key: string, atMs: number): void {
    this.#rememberKey.run(streamId, key, atMs);
  }

  putSourceCheckpoint(source: string, state: string): void {
    this.#putCheckpoint.run(source, state);
  }

  sourceCheckpoints(): { source: string; state: string }[] {
    return readSourceCheckpoints(this.#db);
  }

  /** The stream's chunks from `seq` on, in order, without payloads. */
  boundsFrom(streamId: number, seq: number, limit: number): ChunkBound[] {
    return this.#boundsFrom.all(streamId, seq, limit).map(chunkBound);
  }

  /** The payload of a chunk of the stream, if it is still stored. */
  payload(streamId: number, seq: number): Buffer | undefined {
    const value: unknown = this.#payload.get(streamId, seq);
    return value === undefined ? undefined : payloadBlob(value);
  }

  chunk(streamId: number, seq: number): ChunkRow | undefined {
    const row: unknown = this.#chunk.get(streamId, seq);
    return row === undefined ? undefined : chunkRow(row);
  }

  /** The stream's chunks with seq in [from, to], without payloads. */
  bounds(streamId: number, from: number, to: number): ChunkBound[] {
    return this.#bounds.all(streamId, from, to).map(chunkBound);
  }

  /** Creates the consumer or moves it; either way it has no batch in flight afterwards. */
  putConsumer(row: ConsumerRow): void {
    this.#upsertConsumer.run(row.streamId, row.name, row.committedSeq, row.committedRecord, row.committedBytes);
  }

  /** Stores a committed position and clears the batch in flight. */
  setCommitted(row: ConsumerRow): void {
    this.#setCommitted.run(row.committedSeq, row.committedRecord, row.committedBytes, row.streamId, row.name);
  }

  setInflight(streamId: number, name: string, inflight: string | null): void {
    this.#setInflight.run(inflight, streamId, name);
  }

  inflight(streamId: number, name: string): string | undefined {
    const value: unknown = this.#inflight.get(streamId, name);
    return typeof value === 'string' ? value : undefined;
  }

  deleteConsumer(streamId: number, name: string): void {
    this.#deleteConsumer.run(streamId, name);
  }

  /** The stream's oldest chunks below `belowSeq`, without payloads: what retention may remove next. */
  oldest(streamId: number, belowSeq: number, limit: number): { seq: number; appendedAtMs: number; size: number }[] {
    return this.#oldest.all(streamId, belowSeq, limit).map((row) => {
      const r = columns(row);
      return { seq: integer(r[0]), appendedAtMs: integer(r[1]), size: integer(r[2]) };
    });
  }

  /** Removes the stream's chunks up to and including `throughSeq`; returns how many went. */
  deleteChunksThrough(streamId: number, throughSeq: number): number {
    return this.transaction(() => this.#deleteChunks.run(streamId, throughSeq).changes);
  }

  forgetKeysBefore(ms: number): void {
    this.transaction(() => this.#forgetKeys.run(ms));
  }

  /** Stops the checkpointer, then closes the file (the last connection to close checkpoints what is left). */
  async close(): Promise<void> {
    const checkpointer = this.#checkpointer;
    // Forgotten first, so its exit is not taken for a failure.
    this.#checkpointer = undefined;
    if (checkpointer !== undefined) {
      const exited = new Promise((resolve) => checkpointer.once('exit', resolve));
      // Kept alive until it has let go of the file, even when nothing else keeps the process running.
      checkpointer.ref();
      checkpointer.postMessage('stop');
      await exited;
    }
    this.#db.close();
    this.#lock.close();
  }
}

/**
 * Takes the data directory's queue for this process: an exclusive lock on `<file>.lock`, kept until the
 * lock database is closed (or the process ends, when the operating system releases it).
 */
function takeLock(file: string): Database {
  // A short busy timeout: a previous process that is just exiting lets go in time; a running one never does.
  const lock = new SqliteDatabase(`${file}.lock`, { timeout: 1000 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    // The file holds nothing worth a rollback journal on disk.
    lock.pragma('journal_mode = MEMORY');
    // The first write in exclusive mode takes the lock, and the connection keeps it from then on.
    lock.transaction(() => {
      lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL)');
      lock.exec('DELETE FROM holder');
      lock.prepare('INSERT INTO holder (pid) VALUES (?)').run(process.pid);
    }).exclusive();
    return lock;
  } catch (error) {
    lock.close();
    throw lockedError(file, error) ?? error;
  }
}

/** The error to show when `error` says another process or connection holds the queue; undefined otherwise. */
function lockedError(file: string, error: unknown): Error | undefined {
  if (error instanceof SqliteDatabase.SqliteError && (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED')) {
    return new Error(
      `the queue database ${file} is locked by another process or connection; only one logexport process may use a data directory at a time`,
      { cause: error },
    );
  }
  return undefined;
}

/** The source checkpoints of an open queue database (also read by `logexport sources` without taking the queue). */
export function readSourceCheckpoints(db: Database): { source: string; state: string }[] {
  return db
    .prepare('SELECT source, state FROM source_checkpoints ORDER BY source')
    .raw()
    .all()
    .map((row) => {
      const r = columns(row);
      return { source: text(r[0]), state: text(r[1]) };
    });
}

function columns(row: unknown): readonly unknown[] {
  if (!Array.isArray(row)) throw new Error('the queue database returned a row that is not a list of columns');
  return row;
}

function integer(value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'bigint') return Number(value);
  throw new Error(`the queue database returned ${typeof value} where an integer belongs`);
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  throw new Error(`the queue database returned ${typeof value} where text belongs`);
}

function chunkBound(row: unknown): ChunkBound {
  const r = columns(row);
  return { seq: integer(r[0]), appendedAtMs: integer(r[1]), count: integer(r[2]), size: integer(r[3]), bytesEnd: integer(r[4]) };
}

function payloadBlob(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  throw new Error('the queue database returned a chunk payload that is not a blob');
}

function chunkRow(row: unknown): ChunkRow {
  return { ...chunkBound(row), payload: payloadBlob(columns(row)[5]) };
}
