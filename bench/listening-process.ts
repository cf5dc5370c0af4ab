// A bench script run in its own process that prints `listening <url>` once it serves (bare-server.ts,
// sql-floor-server.ts): resolves that URL and a way to stop it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export async function startListeningProcess(script: URL): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(script)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`${fileURLToPath(script)} ended (${code}) before it listened`)));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1] ?? '');
    });
  });
  return { url, stop: () => child.kill('SIGKILL') };
}
