/**
 * Retained segments in a directory (by default `<data dir>/retained`): written by rename after a sync. Key
 * and partition listings are kept (listing-cache.ts): the node's own writes and removals, all made through
 * this store, drop what they change at once, and a change made by hand is seen within 10 s.
 */
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ListingCache } from './listing-cache.ts';
import { zonePathComponent, type OpenedSegment, type SegmentEntry, type SegmentStore } from './segment-store.ts';

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** How long a listing is kept, for changes made past the store. */
const listingMaxAgeMs = 10_000;

export class LocalSegmentStore implements SegmentStore {
  private readonly root: string;
  private readonly keyListings = new ListingCache<readonly string[]>(listingMaxAgeMs);
  private readonly partitionListings = new ListingCache<readonly string[]>(listingMaxAgeMs);

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
    this.changed(key);
    await syncDirectory(path.dirname(target));
  }

  /** Forgets the listings a change of `key` (or of everything under a prefix) makes stale. */
  private changed(key: string): void {
    this.keyListings.changed(key);
    this.partitionListings.changed(key);
  }

  async list(prefix: string): Promise<readonly SegmentEntry[]> {
    const keys = await this.listKeys(prefix);
    // The sizes side by side: a listing costs one round of the file system, not one per file.
    const sizes = await Promise.all(keys.map((key) => fs.stat(this.pathOf(key)).then((s) => s.size, () => -1)));
    // (A size of -1: removed meanwhile, a compaction finished.)
    return keys.flatMap((key, i) => ((sizes[i] ?? -1) >= 0 ? [{ key, bytes: sizes[i] ?? 0 }] : []));
  }

  listKeys(prefix: string): Promise<readonly string[]> {
    return this.keyListings.get(prefix, () => this.readKeys(prefix));
  }

  private async readKeys(prefix: string): Promise<readonly string[]> {
    const out: string[] = [];
    const walk = async (dir: string, keyPrefix: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT') return;
        throw error;
      }
      // Subdirectories side by side. Names starting with a dot are temporary files (a put's, before its
      // rename) and the work directory.
      await Promise.all(
        entries.map(async (entry) => {
          if (entry.name.startsWith('.')) return;
          if (entry.isDirectory()) await walk(path.join(dir, entry.name), `${keyPrefix}${entry.name}/`);
          else if (entry.isFile()) out.push(`${keyPrefix}${entry.name}`);
        }),
      );
    };
    await walk(this.pathOf(prefix), prefix);
    return Object.freeze(out.sort());
  }

  async delete(keys: readonly string[]): Promise<void> {
    const dirs = new Set<string>();
    for (const key of keys) {
      await fs.rm(this.pathOf(key), { force: true });
      this.changed(key);
      dirs.add(path.dirname(this.pathOf(key)));
    }
    for (const dir of dirs) await syncDirectory(dir).catch(() => {});
  }

  listPartitions(prefix: string): Promise<readonly string[]> {
    return this.partitionListings.get(prefix, () => this.readPartitions(prefix));
  }

  private async readPartitions(prefix: string): Promise<readonly string[]> {
    try {
      const entries = await fs.readdir(prefix === '' ? this.root : this.pathOf(prefix), { withFileTypes: true });
      return Object.freeze(entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort());
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
    this.changed(prefix);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
