// Starts a TypeScript worker module: registers tsx in the worker thread, then loads the module it names.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
