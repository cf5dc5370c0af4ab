/**
 * The file destination: objects under the export root. Each object is written to a temporary name in its
 * own directory, fsynced and renamed into place, so a reader never sees half a file and a re-sent batch
 * replaces the earlier copy. Directories are walked one segment at a time and every step is resolved and
 * checked, so neither `..` nor a symbolic link can carry a write outside the export root.
 */
import { randomBytes } from 'node:crypto';
import fsPromises from 'node:fs/promises';
import path from 'node:path';
import type { FileDestinationSpec } from '../domain/jobs/destination-spec.ts';
import { delivered, DestinationError, permanent, retry, type Destination, type FailedOutcome, type OutgoingBatch, type SendOutcome } from './destination.ts';
import { staticKey } from './object-key.ts';

/** The file-system calls the destination makes; tests inject failures through it. */
export type FileOps = Pick<typeof fsPromises, 'mkdir' | 'realpath' | 'open' | 'rename' | 'unlink'>;

/** What a file destination needs besides its spec. */
export interface FileDestinationOptions {
  /** The absolute export root (`LOGEXPORT_EXPORT_ROOT`); created when missing. */
  readonly exportRoot: string;
  readonly fs?: FileOps;
}

/** Builds a destination that writes under `<exportRoot>/<spec.path>`. */
export function createFileDestination(spec: FileDestinationSpec, options: FileDestinationOptions): Destination {
  const fs = options.fs ?? fsPromises;
  const exportRoot = path.resolve(options.exportRoot);

  async function write(key: string, body: Uint8Array): Promise<SendOutcome> {
    const segments = key.split('/');
    if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\0') || s.includes('\\'))) {
      return permanent(`object name '${key}' is not a plain relative path`);
    }
    let root: string;
    try {
      await fs.mkdir(exportRoot, { recursive: true });
      root = await fs.realpath(exportRoot);
    } catch (error) {
      return classifyFsError(error, 'the export root');
    }
    const directory = await walkDirectories(fs, root, segments.slice(0, -1));
    if (typeof directory !== 'string') return directory;
    const name = segments[segments.length - 1] ?? '';
    const finalPath = path.join(directory, name);
    const temporary = path.join(directory, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      // 'wx': never reuse (or follow) something already at the temporary name.
      const handle = await fs.open(temporary, 'wx', 0o644);
      try {
        await handle.writeFile(body);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temporary, finalPath);
    } catch (error) {
      await fs.unlink(temporary).catch(() => undefined);
      return classifyFsError(error, key);
    }
    await syncDirectory(fs, directory);
    return delivered;
  }

  return {
    send(batch: OutgoingBatch): Promise<SendOutcome> {
      return write(batch.objectKey, batch.body).catch((error: unknown) => classifyFsError(error, batch.objectKey));
    },

    async writeChallenge(fileName: string, content: string): Promise<{ readonly filename: string }> {
      const key = staticKey(spec.path, fileName);
      const outcome = await write(key, Buffer.from(content, 'utf8'));
      if (outcome.kind !== 'delivered') throw new DestinationError(outcome);
      return { filename: key };
    },

    async validate(): Promise<SendOutcome> {
      const key = staticKey(spec.path, `logexport-validation-${randomBytes(4).toString('hex')}.txt`);
      const outcome = await write(key, Buffer.from('logexport destination check\n', 'utf8'));
      if (outcome.kind !== 'delivered') return outcome;
      await fs.unlink(path.join(exportRoot, key)).catch(() => undefined);
      return delivered;
    },

    async close(): Promise<void> {},
  };
}

/**
 * Creates (as needed) each directory below the root, resolving every step so a symbolic link that leads
 * out of the root is refused before anything is written through it. Returns the resolved directory.
 */
async function walkDirectories(fs: FileOps, root: string, segments: readonly string[]): Promise<string | FailedOutcome> {
  let current = root;
  for (let i = 0; i < segments.length; i++) {
    const shown = segments.slice(0, i + 1).join('/');
    const next = path.join(current, segments[i] ?? '');
    try {
      await fs.mkdir(next);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') return classifyFsError(error, shown);
    }
    let resolved: string;
    try {
      resolved = await fs.realpath(next);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return permanent(`${shown} under the export root is a broken symbolic link`);
      return classifyFsError(error, shown);
    }
    if (resolved !== root && !resolved.startsWith(root.endsWith(path.sep) ? root : root + path.sep)) {
      return permanent(`${shown} leads outside the export root (through a symbolic link); refusing to write there`);
    }
    current = resolved;
  }
  return current;
}

/** Makes the rename itself durable; some file systems cannot fsync a directory, which is not a failure. */
async function syncDirectory(fs: FileOps, directory: string): Promise<void> {
  try {
    const handle = await fs.open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}

/** The one place file-system errors become outcomes. */
export function classifyFsError(error: unknown, what: string): FailedOutcome {
  const code = errorCode(error);
  const where = `${what} under the export root`;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return permanent(`permission denied writing ${where}`);
    case 'EROFS':
      return permanent(`the export root is on a read-only file system (writing ${what})`);
    case 'ENOTDIR':
    case 'EEXIST':
      return permanent(`a file stands where a directory is needed for ${where}`);
    case 'EISDIR':
      return permanent(`a directory stands where the file ${where} should be written`);
    case 'ELOOP':
      return permanent(`too many symbolic links resolving ${where}`);
    case 'ENAMETOOLONG':
      return permanent(`the name ${where} is too long for the file system`);
    case 'ENOSPC':
    case 'EDQUOT':
      return retry(`no space left on the device writing ${where}`);
    default:
      return retry(`could not write ${where}: ${code ?? describe(error)}`);
  }
}

function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
