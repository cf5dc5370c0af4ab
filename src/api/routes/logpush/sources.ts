import type { FastifyInstance } from 'fastify';
import type { TailStatus } from '../../../sources/tail/tail-status.ts';
import { success } from '../../envelope.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';

/**
 * Text a zone's user may see of a tailed file. Everything else of a file's status that is text stays
 * with the operator (`logexport sources`, the log): the file's identity, and above all the last error's
 * message, which can quote a line, and a tailed file carries every zone's lines. Figures (counts, bytes,
 * flags) say how the file is read, not what it holds, and pass as they are, new ones included.
 */
const visibleText: ReadonlySet<string> = new Set(['source', 'format', 'path', 'lastErrorAt', 'lastLineAt']);

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A tailed file's status as a zone's user sees it, in the API's key style (`lines_read`). */
function tailedFileView(status: TailStatus): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(status)) {
    const figure = value === null || typeof value === 'number' || typeof value === 'boolean';
    if (figure || (typeof value === 'string' && visibleText.has(key))) view[snakeCase(key)] = value;
  }
  return view;
}

/**
 * `GET …/sources`: how the zone's events come in, as this node counted them (the counts carry over its restarts: src/ingest/ingest-figures.ts) — the
 * zone's own ingest counters exactly as /metrics reads them (null before its first event on this node),
 * never another zone's — and, node-wide, the status of every tailed file (the operator's configuration,
 * shared by every zone; see `tailedFileView` for what of it is shown). Read-only: a token with
 * `logs:read` may call it.
 */
export function sourcesRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/sources', async (request) => {
    const zone = zoneOf(request);
    return success({
      zone_id: zone.id,
      ingest: deps.dataPlane.ingestor.counters.get(zone.id) ?? null,
      tailed_files: deps.dataPlane.sources().map(tailedFileView),
    });
  });
}
