/**
 * The doors on the main thread: each scans a ticket every `intervalS` seconds,
 * from the soak through the drain, every REENTRY_EVERY-th scan a ticket
 * another door admitted. Counts what each phase saw.
 */
import { performance } from 'node:perf_hooks';
import type { KioskCore } from '../../main/kiosk/kiosk-core.js';
import type { MemoryApiKeys } from '../../test/support/unit/memory-api-keys.js';
import { instrumentFetch, sleep, tally, verdictKind } from './measure.js';
import { REENTRY_EVERY } from './settings.js';
import type { Ticket } from './tickets.js';

export interface Door {
  name: string;
  core: KioskCore;
  keys: MemoryApiKeys;
  tickets: Ticket[];
  next: number;
}

type Phase = 'soak' | 'drain';

export class DoorTraffic {
  /** Which phase the figures of a scan or round trip count towards. */
  phase: Phase = 'soak';
  readonly roundTrips: Record<Phase, number[]> = { soak: [], drain: [] };
  readonly scanTimes: Record<Phase, number[]> = { soak: [], drain: [] };
  readonly kinds: Record<Phase, Map<string, number>> = { soak: new Map(), drain: new Map() };
  rateLimited = 0;
  reentries = 0;
  ranOut = 0;
  private readonly admitted: { door: number; tid: string; qr: string }[] = [];
  private stopped = false;
  private runs: Promise<void>[] = [];

  /** Starts timing the doors' check-in round trips (this thread's global fetch). */
  constructor(
    private readonly doors: readonly Door[],
    private readonly intervalS: number,
  ) {
    const doorKeys = new Set<string>();
    for (const door of doors) doorKeys.add(door.keys.key!);
    instrumentFetch((apiKey, elapsed, status) => {
      if (!doorKeys.has(apiKey)) return;
      this.roundTrips[this.phase].push(elapsed);
      if (status === 429) this.rateLimited += 1;
    });
  }

  /** Every door starts scanning, spread evenly over the first interval after `start` (performance.now()). */
  start(start: number): void {
    this.runs = this.doors.map((door, i) => this.doorLoop(door, i, start));
  }

  /** Stops the doors after their current scan. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.runs);
  }

  private async doorLoop(door: Door, index: number, start: number): Promise<void> {
    let next = start + (index * this.intervalS * 1000) / this.doors.length;
    let scans = 0;
    while (!this.stopped) {
      await sleep(next - performance.now());
      if (this.stopped) return;
      scans += 1;
      let code: string;
      let reentry = false;
      const other = this.admitted.findLast((entry) => entry.door !== index);
      if (scans % REENTRY_EVERY === 0 && other) {
        code = other.qr;
        reentry = true;
      } else if (door.next < door.tickets.length) {
        code = door.tickets[door.next++]!.qr;
      } else {
        this.ranOut += 1;
        return;
      }
      const during = this.phase;
      const t0 = performance.now();
      const result = await door.core.scan(code);
      this.scanTimes[during].push(performance.now() - t0);
      const kind = verdictKind(result);
      tally(this.kinds[during], reentry ? `re-entry → ${kind}` : kind);
      if (reentry) this.reentries += 1;
      else if (result.type === 'verdict' && result.verdict.kind === 'admit')
        this.admitted.push({ door: index, tid: result.verdict.ticket!.tid, qr: code });
      next = Math.max(next + this.intervalS * 1000, performance.now());
    }
  }
}
