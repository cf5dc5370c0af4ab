#!/usr/bin/env node
// Entry point for `npx logexport …` and `npm start`: load the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
await main(process.argv.slice(2));
