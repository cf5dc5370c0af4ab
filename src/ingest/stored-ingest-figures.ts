/**
 * The node's ingest figures (ingest-figures.ts) kept in its data directory, `ingest-figures.json`: written
 * every few seconds while they change and at the stop, read at the start (so they continue across restarts)
 * and by `logexport sources` and `logexport doctor`, which answer for a running node as well as a stopped one.
 * The file is replaced whole (written beside it, then renamed), so a reader never sees half of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseIngestCounters, type IngestCounters, type IngestFiguresSnapshot } from './ingest-figures.ts';

/** The figures as stored, with when they were written. */
export interface StoredIngestFigures extends IngestFiguresSnapshot {
  readonly updated_at: string;
}

/** Where a node with this data directory keeps its figures. */
export function ingestFiguresFile(dataDir: string): string {
  return path.join(dataDir, 'ingest-figures.json');
}

/** The stored figures; undefined when there are none yet, or the file is not readable as figures. */
export function readStoredIngestFigures(file: string): StoredIngestFigures | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const value = parsed as Record<string, unknown>;
  const zones: Record<string, IngestCounters> = {};
  if (typeof value.zones === 'object' && value.zones !== null) {
    for (const [zoneId, counters] of Object.entries(value.zones)) zones[zoneId] = parseIngestCounters(counters);
  }
  return {
    updated_at: typeof value.updated_at === 'string' ? value.updated_at : new Date(0).toISOString(),
    zones,
    unrouted: parseIngestCounters(value.unrouted),
  };
}

/** Replaces the stored figures. */
export async function writeStoredIngestFigures(file: string, figures: IngestFiguresSnapshot, nowMs: number): Promise<void> {
  const stored: StoredIngestFigures = { updated_at: new Date(nowMs).toISOString(), ...figures };
  const temporary = `${file}.${process.pid}.tmp`;
  await fs.promises.writeFile(temporary, `${JSON.stringify(stored)}\n`);
  await fs.promises.rename(temporary, file);
}
