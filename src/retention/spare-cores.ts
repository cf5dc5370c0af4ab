/**
 * How much of the machine's CPU nobody used: what the compaction of retained segments may take without
 * taking it from ingest. Read from the operating system's per-core times (`os.cpus()`), so it sees every
 * process on the machine — on a machine shared with other work, ingest can be short of CPU while its own
 * workers look idle, waiting for a core.
 */
import os from 'node:os';

export class SpareCores {
  private last: { idle: number; total: number } | undefined;

  /** Cores left idle, on average, since the previous call (undefined on the first, or when the system does not say). */
  sample(): number | undefined {
    const cpus = os.cpus();
    let idle = 0;
    let total = 0;
    for (const cpu of cpus) {
      idle += cpu.times.idle;
      total += cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.idle + cpu.times.irq;
    }
    const previous = this.last;
    this.last = { idle, total };
    if (previous === undefined || total <= previous.total || cpus.length === 0) return undefined;
    return ((idle - previous.idle) / (total - previous.total)) * cpus.length;
  }
}
