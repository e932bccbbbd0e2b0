/**
 * The kiosk core's fire-and-forget work (background discovery refreshes, heartbeats, revocation syncs, LAN
 * joins) and whether the core is closing: close() waits for what runs, and work that finds the core
 * closed stops. In sync/: everything it tracks talks to the issuer or the LAN.
 */
export class BackgroundWork {
  private readonly running = new Set<Promise<unknown>>();
  private isClosed = false;

  /** True once the core closes: timers and answers that arrive later change nothing. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Runs `work` without waiting for it; its failure is its own (each one logs what it must). */
  run(work: Promise<unknown>): void {
    const tracked = work.catch(() => undefined).finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  close(): void {
    this.isClosed = true;
  }

  /** Waits for every piece of work started so far. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
