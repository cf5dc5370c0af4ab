import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Serves the built dashboard (web/dist) at `/`. Paths without a file fall back to index.html, so the
 * dashboard's own routes survive a reload. Files under assets/ carry content hashes and are cached long.
 */
export function dashboardRoutes(app: FastifyInstance, distDir: string): void {
  const root = path.resolve(distDir);

  async function readInside(relative: string): Promise<Buffer | undefined> {
    const file = path.resolve(root, relative);
    if (file !== root && !file.startsWith(root + path.sep)) return undefined;
    try {
      return await fs.readFile(file);
    } catch {
      return undefined;
    }
  }

  app.get('/*', async (request, reply) => {
    let urlPath: string;
    try {
      urlPath = decodeURIComponent((request.url.split('?')[0] ?? '/').replace(/^\/+/, ''));
    } catch {
      return reply.callNotFound();
    }
    // API and ingest paths that matched no route are API 404s, never the dashboard page.
    if (/^(client|ingest)(\/|$)/.test(urlPath)) return reply.callNotFound();
    const asset = urlPath === '' ? undefined : await readInside(urlPath);
    if (asset !== undefined) {
      const type = contentTypes[path.extname(urlPath)] ?? 'application/octet-stream';
      const cache = urlPath.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
      return reply.header('cache-control', cache).type(type).send(asset);
    }
    const index = await readInside('index.html');
    if (index === undefined) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The dashboard is not built. Run `npm ci` (or `npm run build:web`) and start logexport again.');
    }
    return reply
      .header('cache-control', 'no-cache')
      .header('content-security-policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(index);
  });
}
