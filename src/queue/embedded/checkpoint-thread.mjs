// The embedded queue's checkpointer: a thread with its own connection to the queue database that copies
// the write-ahead log into the database file every few hundred milliseconds (a PASSIVE checkpoint, which
// never blocks the writer). Copying and syncing take milliseconds to tens of milliseconds on a busy disk;
// here they keep off the main thread, which serves HTTP and commits appends meanwhile. SQLite marks WAL
// frames as copied only after the database file is synced, so the writer reuses the log only then.
// Plain JavaScript: nothing to compile, so the thread starts fast.
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';

const { file, intervalMs } = workerData;
const db = new SqliteDatabase(file, { fileMustExist: true, timeout: 1000 });
// NORMAL: a checkpoint syncs the log before copying it and the database file after.
db.pragma('synchronous = NORMAL');

let timer;
let stopping = false;
/** The last failure reported: one that repeats every pass (a full disk, say) is reported once. */
let lastError;

function step() {
  // A pass that leaves frames behind (the writer committed meanwhile) is repeated at once, a few times, so
  // the checkpointer catches up between two commits and the writer can start the log over.
  for (let pass = 0; pass < 4 && !stopping; pass++) {
    let row;
    try {
      [row] = db.pragma('wal_checkpoint(PASSIVE)');
      lastError = undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message !== lastError) parentPort?.postMessage({ error: message });
      lastError = message;
      break;
    }
    if (row === undefined || row.busy !== 0 || row.log === row.checkpointed) break;
  }
  if (!stopping) timer = setTimeout(step, intervalMs);
}

parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  stopping = true;
  clearTimeout(timer);
  db.close();
  parentPort?.close();
});

timer = setTimeout(step, 0);
