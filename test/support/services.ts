import fs from 'node:fs';
import net from 'node:net';

/** Whether something accepts TCP connections at host:port within the timeout. */
export function portAnswers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    // A loop held up by other work runs the timer before the connect that was already waiting: give the
    // pending I/O one turn before calling it unanswered.
    socket.setTimeout(timeoutMs, () => setImmediate(() => done(false)));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Decides whether a suite that needs an external server runs.
 * Returns `false` (and prints one SKIPPED line) when the server does not answer; under `CI=true`
 * a missing server is a failure instead, so CI never passes by skipping.
 */
export async function serverAvailable(what: string, host: string, port: number): Promise<boolean> {
  if (await portAnswers(host, port)) return true;
  const line = `SKIPPED: ${what} at ${host}:${port} is not answering`;
  if (process.env.CI === 'true') throw new Error(`${line} (CI=true requires it)`);
  console.log(line);
  return false;
}

/**
 * Decides whether a suite that needs a program (nginx, caddy) runs: `false` (and one SKIPPED line) when
 * `file` is missing; under `CI=true` a missing program is a failure instead, so CI never passes by skipping.
 */
export function binaryAvailable(what: string, file: string): boolean {
  if (fs.existsSync(file)) return true;
  const line = `SKIPPED: ${what} (${file}) is not installed`;
  if (process.env.CI === 'true') throw new Error(`${line} (CI=true requires it)`);
  console.log(line);
  return false;
}
