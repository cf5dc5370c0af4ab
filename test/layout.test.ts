/**
 * The layout's dependency rules (docs/data-path.md, docs/decisions.md), checked on the imports of every
 * source file: routes import neither the server nor each other; the pure rules under src/domain import
 * nothing below them; dependencies follow the data (ingest never imports delivery, nor the sources).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Every relative import of a file, as a path under src/ (`api/server.ts`). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => path.relative(src, path.resolve(path.dirname(file), m[1] ?? '')));
}

const files = sourceFiles(src).map((file) => ({ name: path.relative(src, file), imports: importsOf(file) }));

function offenders(inFolder: string, forbidden: (target: string, name: string) => boolean): string[] {
  return files.filter((f) => f.name.startsWith(inFolder)).flatMap((f) => f.imports.filter((t) => forbidden(t, f.name)).map((t) => `${f.name} → ${t}`));
}

describe('the layout', () => {
  it('finds the source files and their imports', () => {
    assert.ok(files.length > 50);
    assert.ok(files.some((f) => f.name === 'app.ts' && f.imports.includes('api/server.ts')));
  });

  it('has no route importing the server or another route', () => {
    assert.deepEqual(offenders('api/routes/', (target) => target === 'api/server.ts' || target.startsWith('api/routes/')), []);
  });

  it("groups the routes by URL family, so a route's file is found from its URL", () => {
    const families = ['account/', 'ingest/', 'logpush/', 'logs/', 'rulesets/'];
    const loose = files.filter((f) => f.name.startsWith('api/routes/')).map((f) => f.name.slice('api/routes/'.length)).filter((name) => !families.some((family) => name.startsWith(family)));
    assert.deepEqual(loose.sort(), ['dashboard.ts', 'metrics.ts']);
  });

  it('keeps the pure rules in src/domain free of every layer below them', () => {
    assert.deepEqual(offenders('domain/', (target) => !target.startsWith('domain/') && !target.startsWith('core/')), []);
  });

  it('lets data flow one way: ingest never imports delivery, and the queue imports neither', () => {
    assert.deepEqual(offenders('ingest/', (target) => target.startsWith('delivery/') || target.startsWith('live/')), []);
    assert.deepEqual(offenders('queue/', (target) => target.startsWith('ingest/') || target.startsWith('delivery/')), []);
  });

  it('keeps ingest free of the sources: they hand it decoders through an interface ingest owns, and ingest imports nothing of theirs', () => {
    assert.deepEqual(offenders('ingest/', (target) => target.startsWith('sources/')), []);
  });

  it('lets Instant Logs follow ingest: src/live imports neither delivery nor the API', () => {
    assert.deepEqual(offenders('live/', (target) => target.startsWith('delivery/') || target.startsWith('api/')), []);
  });

  it('lets configuration parse its storage URLs without the domain rules (the URL grammar is in src/core)', () => {
    assert.deepEqual(offenders('config/', (target) => target.startsWith('domain/')), []);
    assert.deepEqual(offenders('core/', (target) => !target.startsWith('core/')), []);
  });

  it('keeps the store free of the data plane and the API', () => {
    assert.deepEqual(offenders('store/', (target) => ['ingest/', 'delivery/', 'queue/', 'api/', 'sources/'].some((p) => target.startsWith(p))), []);
  });

  it('keeps the store and the configuration below the audit policy: what both need lives in src/core', () => {
    assert.deepEqual(offenders('store/', (target) => target.startsWith('audit/') || target.startsWith('accounts/')), []);
    assert.deepEqual(offenders('config/', (target) => target.startsWith('audit/') || target.startsWith('accounts/')), []);
  });
});
