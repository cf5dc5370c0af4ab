// The server as plain JavaScript in dist/: esbuild bundles src/main.ts, the ingest worker's entry (src/worker.ts) and
// the Logpull projection thread's (src/retention/hot-projection-thread.ts), so a running node needs no TypeScript
// loader. A loader costs a V8 isolate of its own in every thread (about
// 80 MB of memory for the main thread and one worker) and seconds of compiling at start.
//   isBundleFresh()   dist/ exists and is newer than every file under src/
//   buildBundle()     writes dist/ (esbuild comes with the dependencies)
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const srcDir = path.join(root, 'src');
export const bundleDir = path.join(root, 'dist');
/** The bundle's entry: exports `main`, like src/main.ts. */
export const bundleEntry = path.join(bundleDir, 'main.mjs');

/** The newest modification time (ms) among the files under `target` (the dashboard's build checks its sources with it too). */
export function newestChange(target) {
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(target)) newest = Math.max(newest, newestChange(path.join(target, name)));
  return newest;
}

export function isBundleFresh() {
  return existsSync(bundleEntry) && statSync(bundleEntry).mtimeMs >= newestChange(srcDir);
}

export async function buildBundle() {
  const esbuild = await import('esbuild');
  mkdirSync(bundleDir, { recursive: true });
  // The ingest worker first, so the entry (which the freshness check reads) is written last.
  const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning', sourcemap: true };
  await esbuild.build({ ...common, entryPoints: [path.join(srcDir, 'worker.ts')], outfile: path.join(bundleDir, 'ingest-worker.mjs') });
  // The thread a large Logpull projects hot segments on (src/retention/hot-projection.ts).
  await esbuild.build({ ...common, entryPoints: [path.join(srcDir, 'retention', 'hot-projection-thread.ts')], outfile: path.join(bundleDir, 'hot-projection-thread.mjs') });
  // Plain JavaScript already, started as a thread by its file name.
  copyFileSync(path.join(srcDir, 'queue', 'embedded', 'checkpoint-thread.mjs'), path.join(bundleDir, 'checkpoint-thread.mjs'));
  await esbuild.build({ ...common, entryPoints: [path.join(srcDir, 'main.ts')], outfile: bundleEntry });
}
