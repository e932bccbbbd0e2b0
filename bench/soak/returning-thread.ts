/**
 * The returning kiosks' thread: kiosks that enroll, admit their queues offline
 * while the issuer is stopped, then come back and drain while scanning live.
 */
import { performance } from 'node:perf_hooks';
import { KioskCore } from '../../main/kiosk/kiosk-core.js';
import { MemoryApiKeys } from '../../test/support/unit/memory-api-keys.js';
import { busyMeter, instrumentFetch, sleep, tally, verdictKind } from './measure.js';
import { DRAIN_DEADLINE_S, POLL_MS } from './settings.js';
import { serveCommands } from './worker-rpc.js';

export interface ReturningRole {
  role: 'returning';
  kiosks: { dbPath: string; name: string; setupCode: string; queue: string[]; live: string[] }[];
  offlineHours: number;
  intervalS: number;
}

export interface DrainOutcome {
  drainedMs: number[];
  allDrainedMs: number;
  pendingLeft: number;
  liveKinds: [string, number][];
  liveScanMs: number[];
  drainRoundTripMs: number[];
  liveRoundTripMs: number[];
  rateLimited: number;
  doubleAdmissions: number;
  /** Share of the drain this thread was busy. */
  busy: number;
}

export interface QueuedRun {
  kinds: [string, number][];
  seconds: number;
}

export function returningWorker(role: ReturningRole): void {
  const keys = role.kiosks.map(() => new MemoryApiKeys());
  let cores: KioskCore[] = [];
  const drainTrips: number[] = [];
  let rateLimited = 0;
  // A queued scan was made before the drain began; a live one after.
  let drainBegan = '9999';
  const liveTrips: number[] = [];
  instrumentFetch((_apiKey, elapsed, status, scannedAt) => {
    if (status === 429) rateLimited += 1;
    (scannedAt < drainBegan ? drainTrips : liveTrips).push(elapsed);
  });
  const open = (i: number, options: Partial<ConstructorParameters<typeof KioskCore>[0]> = {}): KioskCore =>
    new KioskCore({ dbPath: role.kiosks[i]!.dbPath, apiKeys: keys[i]!, ...options });

  serveCommands({
    enroll: async () => {
      cores = role.kiosks.map((_, i) => open(i, { autoDrain: false }));
      for (const [i, core] of cores.entries()) {
        await core.setScannerName(role.kiosks[i]!.name);
        const result = await core.scan(role.kiosks[i]!.setupCode);
        if (result.type !== 'enrolled') throw new Error(`${role.kiosks[i]!.name} did not enroll: ${JSON.stringify(result)}`);
      }
      await Promise.all(cores.map((core) => core.close()));
      return null;
    },
    // The issuer is stopped: each kiosk admits its queue offline, its clock running through the last `offlineHours`.
    queue: async (): Promise<QueuedRun> => {
      const kinds = new Map<string, number>();
      const started = Date.now();
      const hourMs = role.offlineHours * 3600_000;
      await Promise.all(
        role.kiosks.map(async (kiosk, i) => {
          let clock = started - hourMs;
          const core = open(i, { autoDrain: false, now: () => clock });
          for (const [k, code] of kiosk.queue.entries()) {
            clock = started - hourMs + Math.floor((k * hourMs) / kiosk.queue.length);
            tally(kinds, verdictKind(await core.scan(code)));
          }
          await core.close();
        }),
      );
      return { kinds: [...kinds], seconds: (Date.now() - started) / 1000 };
    },
    // Back online: every kiosk drains on its own timers (autoDrain, as at a door) and scans live meanwhile.
    drain: async (): Promise<DrainOutcome> => {
      const started = performance.now();
      const busySince = busyMeter();
      drainBegan = new Date().toISOString();
      cores = role.kiosks.map((_, i) => open(i));
      const drainedMs: (number | null)[] = cores.map(() => null);
      const liveKinds = new Map<string, number>();
      const liveScanMs: number[] = [];
      let done = false;
      const live = cores.map(async (core, i) => {
        let next = started + (i * role.intervalS * 1000) / cores.length;
        for (const code of role.kiosks[i]!.live) {
          await sleep(next - performance.now());
          if (done) return;
          const t0 = performance.now();
          const result = await core.scan(code);
          liveScanMs.push(performance.now() - t0);
          tally(liveKinds, verdictKind(result));
          next = Math.max(next + role.intervalS * 1000, performance.now());
        }
      });
      const deadline = started + DRAIN_DEADLINE_S * 1000;
      let pendingLeft = 0;
      while (performance.now() < deadline) {
        pendingLeft = 0;
        for (const [i, core] of cores.entries()) {
          const pending = (await core.getState()).pending_scans;
          pendingLeft += pending;
          if (pending === 0 && drainedMs[i] === null) drainedMs[i] = performance.now() - started;
        }
        if (pendingLeft === 0) break;
        await sleep(POLL_MS);
      }
      const allDrainedMs = performance.now() - started;
      done = true;
      await Promise.all(live);
      let doubleAdmissions = 0;
      for (const core of cores) doubleAdmissions += (await core.getState()).double_admissions.length;
      return {
        drainedMs: drainedMs.map((value) => value ?? Number.NaN),
        allDrainedMs,
        pendingLeft,
        liveKinds: [...liveKinds],
        liveScanMs,
        drainRoundTripMs: drainTrips,
        liveRoundTripMs: liveTrips,
        rateLimited,
        doubleAdmissions,
        busy: busySince(),
      };
    },
    close: async () => {
      await Promise.all(cores.map((core) => core.close()));
      cores = [];
      return null;
    },
  });
}
