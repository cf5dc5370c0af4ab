/**
 * Runs a task again whenever asked, one run at a time; requests made while a run is still waiting to start
 * share it, so a burst of configuration changes costs one comparison, not one each. The supervisor (job
 * runners) and retention (segment writers) bring themselves up to date this way.
 */
export class CoalescedRuns {
  private readonly run: () => Promise<void>;
  private chain: Promise<void> = Promise.resolve();
  private pending = false;

  /** `run` must not reject: it reports its own failures. */
  constructor(run: () => Promise<void>) {
    this.run = run;
  }

  /** Schedules a run unless one is already waiting; resolves when that run is done. */
  request(): Promise<void> {
    if (!this.pending) {
      this.pending = true;
      this.chain = this.chain.then(async () => {
        this.pending = false;
        await this.run();
      });
    }
    return this.chain;
  }

  /** Resolves when every run requested so far is done. */
  idle(): Promise<void> {
    return this.chain;
  }
}
