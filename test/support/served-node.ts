/**
 * A real `logexport serve` process for the end-to-end tests: started on a free port with the given settings, and
 * killed with any signal (SIGKILL to test crashes).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const children = new Set<ChildProcess>();

/** Kills every process still running (call from `after`). */
export function killAllServed(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** A running `logexport serve`. */
export interface ServedNode {
  readonly child: ChildProcess;
  readonly url: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** The log lines it wrote on stdout so far. */
  stdout(): string;
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node bin/logexport.mjs serve` on the data directory and waits for the line that gives its address. */
export async function serveNode(dataDir: string, env: Record<string, string> = {}): Promise<ServedNode> {
  const child = spawn(process.execPath, [path.join(root, 'bin/logexport.mjs'), 'serve'], {
    cwd: root,
    env: { ...process.env, LOGEXPORT_DATA_DIR: dataDir, LOGEXPORT_PORT: '0', LOGEXPORT_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  let stdout = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`logexport did not start within 30 s: ${stderr}`)), 30_000);
    createInterface({ input: child.stdout ?? assert.fail('no stdout') }).on('line', (line) => {
      stdout += `${line}\n`;
      const m = /is serving the API at (http:\/\/[^\s"/]+)\/client\/v4/.exec(line);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`logexport exited (${code ?? signal}) before it served: ${stderr}`));
    });
  });
  return {
    child,
    url,
    exited,
    stderr: () => stderr,
    stdout: () => stdout,
    kill: (signal) => {
      child.kill(signal);
      return exited;
    },
  };
}
