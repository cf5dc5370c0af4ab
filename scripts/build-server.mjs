// Builds the server into dist/ (bin/server-bundle.mjs). `npm ci` runs it through `prepare` and `npm start`
// with --if-stale; bin/logexport.mjs runs the sources through tsx whenever dist/ is missing or older than
// them, so a stale build is never run.
//   node scripts/build-server.mjs             build now
//   --if-stale   build only when dist/ is missing or older than src/
import { buildBundle, isBundleFresh } from '../bin/server-bundle.mjs';

if (process.argv.includes('--if-stale') && isBundleFresh()) process.exit(0);
await buildBundle();
console.log('Built the server into dist/.');
