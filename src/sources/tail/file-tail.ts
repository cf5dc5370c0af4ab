/**
 * The tail of one file: reads batches of complete lines from where the last commit left off, has ingest
 * decode them in the file's format, route them to zones by host and prepare them with each zone's plan (on
 * its worker threads, a few batches ahead: tail-task.ts), and appends each batch's chunks together with the
 * new read position, which the queue commits with the events (ingest.ts, `appendFromSource`). So after a
 * crash the tail resumes at the last commit: nothing is read twice into the embedded queue, and JetStream
 * drops a batch it already holds by its id (the file identity and byte range).
 *
 * - Rotation by rename (logrotate's default, nginx after USR1, Caddy's roll): when the path names another
 *   file, that file is opened and held at once (so a quick second roll cannot take it away unread), the
 *   open one is read to its end — a last line without a newline included, once the file has not grown for
 *   a grace period — and then the held one is read from its start. After a restart, the file the
 *   checkpoint names, if the path no longer is it, is looked for in the same directory by its identity and
 *   finished first, then the uncompressed files rotated after it, oldest first.
 * - copytruncate: the file shrinking below the read position means it was truncated; reading starts again at 0.
 * - A file that does not exist yet is waited for; a partial last line waits for its newline.
 * - Back-pressure: while the queue is over its limit, nothing is read: the file is the buffer.
 * - A line that cannot be used (not in the format, failing the checks, over the size limit) is counted as
 *   rejected, logged with the file, byte offset and reason (at most a few per minute, then a count), and skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../core/logger.ts';
import type { PreparedTail, TailSink } from './tail-task.ts';
import { tailSourceName, type TailSpec } from './tail-spec.ts';
import { encodeTailState, type TailState, type TailStatus } from './tail-status.ts';

/** A batch read and being processed, in file order. */
interface InflightBatch {
  readonly fileId: string;
  readonly start: number;
  readonly end: number;
  readonly prepared: Promise<PreparedTail>;
}

/** What moving the position without lines appends: nothing. */
const nothing: PreparedTail = { zones: [], account: { rejected: 0, unknownHost: 0, problems: [], lastProblem: undefined } };
/** Batches read ahead and processed while the one before is appended: one per core, roughly. */
const pipelineDepth = 3;

/** What a tail needs. */
export interface FileTailDeps {
  readonly spec: TailSpec;
  readonly sink: TailSink;
  /** Every zone as `[name, id]`, read at each batch. */
  readonly zones: { entries(): readonly (readonly [string, string])[] };
  /** The queue's undelivered bytes, and the limit above which the tail pauses. */
  readonly pendingBytes: () => number;
  readonly maxPendingBytes: number;
  readonly log: Logger;
  /** Where the last commit left off (from the queue's checkpoints). */
  readonly state: TailState;
  /** A batch appended after that commit that may not have finished (JetStream), read again exactly first. */
  readonly unfinished?: string;
  readonly options?: Partial<FileTailOptions>;
}

/** Tuning, for tests and measurement. */
export interface FileTailOptions {
  /** How often an idle tail looks for new lines, rotation and truncation. */
  readonly pollMs: number;
  /** Most bytes read (and committed) as one batch. */
  readonly batchBytes: number;
  /** Longest line taken; a longer one is rejected. */
  readonly maxLineBytes: number;
  /** How long a file that was rotated away is watched for a last write before it is let go. */
  readonly rotateGraceMs: number;
}

const maxLineBytes = 1024 * 1024;
/**
 * A batch holds a line of the longest size and its line end (a line that fills a whole batch is over the
 * limit). About a megabyte: measured against 4 MiB batches, the smaller ones kept the workers' live data
 * small and a busier pipeline, 10–15 % more events per second.
 */
const defaultOptions: FileTailOptions = { pollMs: 200, batchBytes: maxLineBytes + 64 * 1024, maxLineBytes, rotateGraceMs: 1000 };
/** Bad lines logged per minute per file; the rest are counted and summed up in the next minute's first line. */
const loggedBadLinesPerMinute = 5;

interface OpenFile {
  readonly handle: fs.promises.FileHandle;
  readonly id: string;
  /** When the path was first seen to name another file (or none). */
  rotatedAt: number | undefined;
}

/** The identity of a file: device and inode. */
export function fileIdOf(stat: fs.Stats | fs.BigIntStats): string {
  return `${stat.dev}:${stat.ino}`;
}

export class FileTail {
  readonly #deps: FileTailDeps;
  readonly #options: FileTailOptions;
  readonly #source: string;
  #state: TailState;
  #file: OpenFile | undefined;
  #stopping = false;
  #paused = false;
  #running: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #lastSize: number | undefined;
  #badLinesThisMinute = 0;
  #minuteStart = 0;
  #unloggedBadLines = 0;
  /** Files that took the path's name after the one being read, oldest first, held open until their turn. */
  readonly #successors: OpenFile[] = [];
  /** The end of the unfinished batch to read again exactly, before reading on as usual. */
  #replayEnd: number | undefined;
  /** A file read to its end after a rotation: never looked for again. */
  #finishedId: string | undefined;
  /** Batches read ahead of the committed position, being processed; `#readOffset` is where they end. */
  #inflight: InflightBatch[] = [];
  #readOffset: number;

  constructor(deps: FileTailDeps) {
    this.#deps = deps;
    this.#options = { ...defaultOptions, ...deps.options };
    this.#source = tailSourceName(deps.spec);
    this.#state = deps.state;
    this.#readOffset = deps.state.offset;
    const unfinished = deps.unfinished === undefined ? null : /^(.+):(\d+)-(\d+)$/.exec(deps.unfinished);
    if (unfinished !== null && unfinished[1] === deps.state.fileId && Number(unfinished[2]) === deps.state.offset) this.#replayEnd = Number(unfinished[3]);
  }

  /** Starts following the file (in the background). */
  start(): void {
    this.#running ??= this.#run().catch((error: unknown) => {
      this.#deps.log.error({ err: error, file: this.#deps.spec.path }, 'The tail of a file stopped on an unexpected error.');
    });
  }

  /** Stops after the batch under way is committed. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#running;
    await this.#file?.handle.close().catch(() => undefined);
    this.#file = undefined;
    for (const next of this.#successors.splice(0)) await next.handle.close().catch(() => undefined);
  }

  status(): TailStatus {
    const size = this.#lastSize;
    return {
      ...this.#state,
      source: this.#source,
      format: this.#deps.spec.format,
      path: this.#deps.spec.path,
      bytesBehind: size === undefined ? null : Math.max(0, size - this.#state.offset),
      paused: this.#paused,
    };
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      try {
        if (this.#deps.pendingBytes() > this.#deps.maxPendingBytes) {
          this.#paused = true;
          await this.#sleep();
          continue;
        }
        this.#paused = false;
        if (this.#file === undefined && !(await this.#open())) {
          await this.#sleep();
          continue;
        }
        if (!(await this.#step())) await this.#idle();
      } catch (error) {
        // A read or an append failed: what was not committed is read again after a pause.
        this.#inflight = [];
        this.#readOffset = this.#state.offset;
        this.#noteError(`${error instanceof Error ? error.message : String(error)}`);
        this.#deps.log.warn({ err: error, file: this.#deps.spec.path, offset: this.#state.offset }, 'The tail of a file could not go on; it tries again.');
        await this.#sleep(Math.max(this.#options.pollMs, 1000));
      }
    }
  }

  #sleep(ms = this.#options.pollMs): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  /**
   * Opens the file to read: the one the checkpoint names (at the path, or renamed beside it by a rotation
   * while logexport was down), else whatever is at the path, from its start. False when there is none yet.
   */
  async #open(): Promise<boolean> {
    const target = this.#deps.spec.path;
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(target, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        const renamed = this.#state.fileId === '' ? undefined : await this.#findRenamed();
        if (renamed !== undefined) {
          this.#file = renamed;
          return true;
        }
        this.#lastSize = undefined;
        return false;
      }
      throw error;
    }
    const stat = await handle.stat();
    const id = fileIdOf(stat);
    if (this.#state.fileId !== '' && id !== this.#state.fileId) {
      const renamed = await this.#findRenamed();
      if (renamed !== undefined) {
        await handle.close();
        this.#file = renamed;
        return true;
      }
    }
    this.#file = { handle, id, rotatedAt: undefined };
    this.#lastSize = stat.size;
    if (id !== this.#state.fileId) {
      if (this.#state.fileId !== '') this.#deps.log.info({ file: target, from: this.#state.fileId, to: id }, 'A tailed file was replaced (rotated); reading the new file from its start.');
      await this.#commit(nothing, { ...this.#state, fileId: id, offset: 0 }, `${id}:0-0`);
    } else if (stat.size < this.#state.offset) {
      await this.#truncated(stat.size);
    }
    return true;
  }

  /**
   * The file the checkpoint names, looked for by identity beside the path (a rotation renamed it). Files
   * rotated after it (same name stem, not compressed, written later) are held as its successors, oldest
   * first, so a log rolled more than once while logexport was down is read in order.
   */
  async #findRenamed(): Promise<OpenFile | undefined> {
    if (this.#state.fileId === this.#finishedId) return undefined;
    const dir = path.dirname(this.#deps.spec.path);
    const base = path.basename(this.#deps.spec.path);
    const stem = base.includes('.') ? base.slice(0, base.indexOf('.')) : base;
    let names: string[];
    try {
      names = await fs.promises.readdir(dir);
    } catch {
      return undefined;
    }
    const rotated: { name: string; id: string; mtimeMs: number }[] = [];
    for (const name of names) {
      if (name === base || !name.startsWith(stem) || /\.(gz|bz2|xz|zst|zip)$/.test(name)) continue;
      try {
        const stat = await fs.promises.stat(path.join(dir, name));
        if (stat.isFile()) rotated.push({ name, id: fileIdOf(stat), mtimeMs: stat.mtimeMs });
      } catch {
        // Gone while looking: not the one.
      }
    }
    const found = rotated.find((candidate) => candidate.id === this.#state.fileId);
    if (found === undefined) return undefined;
    const open = async (name: string, id: string): Promise<OpenFile | undefined> => {
      try {
        const handle = await fs.promises.open(path.join(dir, name), 'r');
        if (fileIdOf(await handle.stat()) === id) return { handle, id, rotatedAt: Date.now() };
        await handle.close();
      } catch {
        // Gone since: nothing to read.
      }
      return undefined;
    };
    const file = await open(found.name, found.id);
    if (file === undefined) return undefined;
    this.#deps.log.info({ file: path.join(dir, found.name) }, 'Finishing a tailed file that was rotated away while logexport was not running.');
    this.#lastSize = (await file.handle.stat()).size;
    for (const later of rotated.filter((c) => c.mtimeMs > found.mtimeMs).sort((a, b) => a.mtimeMs - b.mtimeMs)) {
      const next = await open(later.name, later.id);
      if (next !== undefined) this.#successors.push(next);
    }
    return file;
  }

  async #truncated(size: number): Promise<void> {
    this.#deps.log.info({ file: this.#deps.spec.path, size, offset: this.#state.offset }, 'A tailed file was truncated (copytruncate); reading it again from its start.');
    await this.#commit(nothing, { ...this.#state, offset: 0 }, `${this.#state.fileId}:truncated@${this.#state.offset}`);
  }

  /**
   * Keeps up to `pipelineDepth` batches read ahead and being processed (on the worker threads), then commits
   * the oldest; false when there was no complete line to read.
   */
  async #step(): Promise<boolean> {
    const file = this.#file;
    if (file === undefined) return false;
    await this.#watchPath(file);
    if ((await this.#fill(file)) === 'long line') return this.#skipLongLine(file, this.#state.offset + this.#options.batchBytes);
    const head = this.#inflight[0];
    if (head === undefined) return false;
    const prepared = await head.prepared;
    this.#inflight.shift();
    // The next batch is read while this one is appended: both wait on the disk, not on the CPU.
    const [committed, filled] = await Promise.allSettled([this.#commitBatch(head, prepared), this.#fill(file)]);
    if (committed.status === 'rejected') throw committed.reason;
    if (filled.status === 'rejected') throw filled.reason;
    return true;
  }

  /** Reads ahead until `pipelineDepth` batches are in flight; says when a line longer than a batch stops it with none. */
  async #fill(file: OpenFile): Promise<'filled' | 'long line'> {
    while (this.#inflight.length < pipelineDepth) {
      const read = await this.#readAhead(file);
      if (read === 'none') break;
      if (read === 'long line') return this.#inflight.length === 0 ? 'long line' : 'filled';
    }
    return 'filled';
  }

  /** Reads the next batch after what is in flight and starts processing it. */
  async #readAhead(file: OpenFile): Promise<'read' | 'none' | 'long line'> {
    const start = this.#readOffset;
    const buffer = Buffer.allocUnsafe(this.#options.batchBytes);
    const length = this.#replayEnd === undefined || start >= this.#replayEnd ? buffer.length : Math.min(buffer.length, this.#replayEnd - start);
    const { bytesRead } = await file.handle.read(buffer, 0, length, start);
    // What the file holds at least, for the bytes behind (the idle loop measures it exactly).
    if (file === this.#file) this.#lastSize = Math.max(this.#lastSize ?? 0, start + bytesRead);
    if (bytesRead === 0) return 'none';
    // A file rotated away that has not grown for the grace period gets no newline any more.
    const final = file.rotatedAt !== undefined && Date.now() - file.rotatedAt >= this.#options.rotateGraceMs;
    const lastNewline = buffer.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (lastNewline < 0 && !final) return bytesRead < buffer.length ? 'none' : 'long line';
    const end = final ? start + bytesRead : start + lastNewline + 1;
    const bytes = buffer.subarray(0, end - start);
    const prepared = this.#deps.sink.prepareTail({
      format: this.#deps.spec.format,
      bytes,
      start,
      fileId: file.id,
      final,
      maxLineBytes: this.#options.maxLineBytes,
      zones: this.#deps.zones.entries(),
    });
    // Handled when its turn comes; a failure meanwhile must not be reported as unhandled.
    prepared.catch(() => undefined);
    this.#inflight.push({ fileId: file.id, start, end, prepared });
    this.#readOffset = end;
    return 'read';
  }

  /** A line longer than a whole batch: finds its end, rejects it and moves past it; false while it has none. */
  async #skipLongLine(file: OpenFile, from: number): Promise<boolean> {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (let at = from; ; ) {
      const { bytesRead } = await file.handle.read(buffer, 0, buffer.length, at);
      if (bytesRead === 0) return false;
      const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
      if (newline >= 0) {
        const problem = { offset: this.#state.offset, reason: `the line is longer than ${this.#options.maxLineBytes} bytes` };
        const end = at + newline + 1;
        await this.#commitBatch({ fileId: file.id, start: this.#state.offset, end, prepared: Promise.resolve(nothing) }, { ...nothing, account: { ...nothing.account, rejected: 1, problems: [problem], lastProblem: problem } });
        return true;
      }
      at += bytesRead;
    }
  }

  /** Commits a processed batch with the position after it and the counts it adds. */
  async #commitBatch(batch: InflightBatch, prepared: PreparedTail): Promise<void> {
    const account = prepared.account;
    for (const problem of account.problems) this.#logBadLine(problem.offset, problem.reason);
    if (account.rejected > account.problems.length) this.#unloggedBadLines += account.rejected - account.problems.length;
    let accepted = 0;
    for (const zone of prepared.zones) accepted += zone.events;
    const last = account.lastProblem;
    const state: TailState = {
      ...this.#state,
      fileId: batch.fileId,
      offset: batch.end,
      linesRead: this.#state.linesRead + accepted + account.rejected + account.unknownHost,
      linesAccepted: this.#state.linesAccepted + accepted,
      linesRejected: this.#state.linesRejected + account.rejected,
      linesUnknownHost: this.#state.linesUnknownHost + account.unknownHost,
      ...(last === undefined ? {} : { lastError: `byte ${last.offset}: ${last.reason}`, lastErrorAt: new Date().toISOString() }),
    };
    await this.#commit(prepared, state, `${batch.fileId}:${batch.start}-${batch.end}`);
    this.#deps.sink.countUnrouted('unknown_host', account.unknownHost);
  }

  async #commit(prepared: PreparedTail, state: TailState, batchId: string): Promise<void> {
    await this.#deps.sink.appendFromTail(prepared, { source: this.#source, state: encodeTailState(state) }, batchId);
    this.#state = state;
    if (this.#inflight.length === 0) this.#readOffset = state.offset;
    if (this.#replayEnd !== undefined && (state.offset >= this.#replayEnd || state.fileId !== this.#deps.state.fileId)) this.#replayEnd = undefined;
  }

  /**
   * Looks at what the path names now. A file other than the one being read (and than those already held) is
   * opened at once and held: a server that rolls its log quickly (Caddy, by size) may rename it away again
   * before the file being read is finished, and an open file can still be read after it is renamed or removed.
   */
  async #watchPath(file: OpenFile): Promise<void> {
    let current: string | undefined;
    try {
      current = fileIdOf(await fs.promises.stat(this.#deps.spec.path));
    } catch {
      current = undefined;
    }
    if (current === undefined || current === file.id) return;
    file.rotatedAt ??= Date.now();
    if (this.#successors.some((next) => next.id === current)) return;
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(this.#deps.spec.path, 'r');
    } catch {
      return;
    }
    const id = fileIdOf(await handle.stat());
    if (id === file.id || this.#successors.some((next) => next.id === id)) {
      await handle.close();
      return;
    }
    // Every file before the newest has been rotated away too.
    for (const next of this.#successors) next.rotatedAt ??= Date.now();
    this.#successors.push({ handle, id, rotatedAt: undefined });
  }

  /** Nothing to read: looks for truncation and rotation, then waits. */
  async #idle(): Promise<void> {
    const file = this.#file;
    if (file === undefined) return;
    const size = (await file.handle.stat()).size;
    this.#lastSize = size;
    if (size < this.#state.offset) {
      await this.#truncated(size);
      return;
    }
    await this.#watchPath(file);
    const next = this.#successors[0];
    if (next !== undefined && file.rotatedAt !== undefined && Date.now() - file.rotatedAt >= this.#options.rotateGraceMs && size <= this.#state.offset) {
      // Read to its end, a last line without a newline included: go on with its successor from its start.
      this.#finishedId = file.id;
      await file.handle.close();
      this.#successors.shift();
      this.#file = next;
      this.#lastSize = (await next.handle.stat()).size;
      this.#deps.log.info({ file: this.#deps.spec.path, from: file.id, to: next.id }, 'A tailed file was rotated; it was read to its end, and its successor is read from its start.');
      await this.#commit(nothing, { ...this.#state, fileId: next.id, offset: 0 }, `${next.id}:0-0`);
      return;
    }
    await this.#sleep();
  }

  #logBadLine(offset: number, reason: string): void {
    const now = Date.now();
    if (now - this.#minuteStart >= 60_000) {
      if (this.#unloggedBadLines > 0) {
        this.#deps.log.warn({ file: this.#deps.spec.path, count: this.#unloggedBadLines }, 'More lines of a tailed file were rejected than were logged in the last minute.');
      }
      this.#minuteStart = now;
      this.#badLinesThisMinute = 0;
      this.#unloggedBadLines = 0;
    }
    if (this.#badLinesThisMinute >= loggedBadLinesPerMinute) {
      this.#unloggedBadLines += 1;
      return;
    }
    this.#badLinesThisMinute += 1;
    this.#deps.log.warn({ file: this.#deps.spec.path, offset, reason }, 'Rejected a line of a tailed file; it is counted and skipped.');
  }

  #noteError(message: string): void {
    this.#state = { ...this.#state, lastError: message, lastErrorAt: new Date().toISOString() };
  }
}
