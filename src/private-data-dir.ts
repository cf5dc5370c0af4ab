/**
 * The data directory holds the store, the queue (captured `Authorization` and cookie values among the events),
 * retained segments and exports: nobody but logexport's own user may read it. The directory is made 0700, what
 * an older version left in it is made 0700 (folders) and 0600 (files), and the process umask becomes 077, so
 * every file logexport (and SQLite, DuckDB, the workers) creates from then on is 0600, whatever umask it was
 * started with. Runs before anything opens a file.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Makes `dataDir` and everything in it private to this user; answers how many entries had looser modes. */
export function makeDataDirPrivate(dataDir: string): number {
  process.umask(0o077);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let tightened = 0;
  const tighten = (entry: string, mode: number) => {
    const stat = fs.lstatSync(entry);
    if ((stat.mode & 0o777) === mode) return;
    fs.chmodSync(entry, mode);
    tightened += 1;
  };
  const walk = (dir: string) => {
    tighten(dir, 0o700);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      // Links are left alone: what they point to may be anywhere, and chmod would follow them.
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) tighten(full, 0o600);
    }
  };
  walk(dataDir);
  return tightened;
}
