// Builds the dashboard (web/) into web/dist with Vite. `npm ci` runs it through `prepare`, and
// `npm start` runs it with --if-stale, so a user never runs a build step by hand.
//   node scripts/build-web.mjs             build now
//   --if-stale   build only when web/dist is missing or older than its sources
//   --optional   without Vite (an install that omitted dev dependencies), warn instead of failing: the
//                server then answers / with a page saying how to build the dashboard
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestChange } from '../bin/server-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const webDir = path.join(root, 'web');
const distIndex = path.join(webDir, 'dist', 'index.html');

function isStale() {
  if (!existsSync(distIndex)) return true;
  // The dashboard also bundles the pure filter tables of src/domain/filters.
  const sources = [path.join(webDir, 'src'), path.join(webDir, 'index.html'), path.join(root, 'src', 'domain', 'filters')];
  const built = statSync(distIndex).mtimeMs;
  return sources.some((source) => existsSync(source) && newestChange(source) > built);
}

if (process.argv.includes('--if-stale') && !isStale()) process.exit(0);

let vite;
try {
  vite = await import('vite');
} catch {
  console.error('The dashboard cannot be built: Vite is not installed. Run `npm ci` (with dev dependencies) first.');
  process.exit(process.argv.includes('--optional') || existsSync(distIndex) ? 0 : 1);
}

await vite.build({
  root: webDir,
  configFile: false,
  logLevel: 'warn',
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The server's CSP is default-src 'self': no inline scripts, so no module-preload polyfill either.
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: false,
  },
});
console.log('Built the dashboard into web/dist.');
