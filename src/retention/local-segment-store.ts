/** Retained segments in a directory (by default `<data dir>/retained`): written by rename after a sync. */
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { zonePathComponent, type OpenedSegment, type SegmentEntry, type SegmentStore } from './segment-store.ts';

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class LocalSegmentStore implements SegmentStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  private pathOf(key: string): string {
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, localPath: string): Promise<void> {
    const target = this.pathOf(key);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const handle = await fs.open(localPath, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    // A rename across file systems fails; the temporary files live under the same root for that reason.
    await fs.rename(localPath, target);
    await syncDirectory(path.dirname(target));
  }

  async list(prefix: string): Promise<readonly SegmentEntry[]> {
    const base = this.pathOf(prefix);
    const out: SegmentEntry[] = [];
    const walk = async (dir: string, keyPrefix: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT') return;
        throw error;
      }
      // A directory's entries are looked at side by side: a listing costs one round of the file system, not one per file.
      await Promise.all(
        entries.map(async (entry) => {
          // Names starting with a dot are temporary files (a put's, before its rename) and the work directory.
          if (entry.name.startsWith('.')) return;
          if (entry.isDirectory()) await walk(path.join(dir, entry.name), `${keyPrefix}${entry.name}/`);
          else if (entry.isFile()) {
            const bytes = await fs.stat(path.join(dir, entry.name)).then((s) => s.size, () => -1);
            // (Removed meanwhile: a compaction finished.)
            if (bytes >= 0) out.push({ key: `${keyPrefix}${entry.name}`, bytes });
          }
        }),
      );
    };
    await walk(base, prefix);
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async delete(keys: readonly string[]): Promise<void> {
    const dirs = new Set<string>();
    for (const key of keys) {
      await fs.rm(this.pathOf(key), { force: true });
      dirs.add(path.dirname(this.pathOf(key)));
    }
    for (const dir of dirs) await syncDirectory(dir).catch(() => {});
  }

  async listPartitions(prefix: string): Promise<readonly string[]> {
    try {
      const entries = await fs.readdir(prefix === '' ? this.root : this.pathOf(prefix), { withFileTypes: true });
      return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return [];
      throw error;
    }
  }

  zoneDirectory(zoneId: string): string {
    return path.join(this.root, zonePathComponent(zoneId)) + path.sep;
  }

  open(key: string): Promise<OpenedSegment> {
    return Promise.resolve({ path: this.pathOf(key), release: () => Promise.resolve() });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await fs.rm(this.pathOf(prefix), { recursive: true, force: true });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
