#!/usr/bin/env node
// Entry point for `npx logexport …` and `npm start`: the built server in dist/ when it is up to date with
// the sources, otherwise the TypeScript sources through tsx.
import { bundleEntry, isBundleFresh } from './server-bundle.mjs';

let main;
if (isBundleFresh()) {
  ({ main } = await import(bundleEntry));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
await main(process.argv.slice(2));
