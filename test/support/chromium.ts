/** Debian's chromium for the browser tests (playwright-core drives it; it is never downloaded). */
import fs from 'node:fs';

export const chromiumPath = '/usr/bin/chromium';

/** Whether a browser suite can run; without chromium it prints one SKIPPED line, except under CI=true. */
export function chromiumInstalled(): boolean {
  if (fs.existsSync(chromiumPath)) return true;
  const line = `SKIPPED: chromium is not installed at ${chromiumPath} (apt-get install -y chromium)`;
  if (process.env.CI === 'true') throw new Error(`${line} (CI=true requires it)`);
  console.log(line);
  return false;
}
