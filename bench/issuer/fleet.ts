/**
 * The issuer under test in (b) (docs/benchmarks.md "Several issuer processes on one SQLite file"): one worker thread
 * (server-thread.ts), or N real `ticket-issuer serve` child processes on one data dir (SQLite) or each on its own
 * serving node dir (PostgreSQL). Fleets not yet stopped are kept, to stop them on an error or a signal.
 */
import path from 'node:path';
import { freePort } from '../../test/support/free-port.js';
import { startServeProcess, type ServeProcess } from '../serve-process.js';
import { startServerThread, type LatencySummary } from './server-thread.js';

/** serve's ceiling for --scanner-rpm, as the crash benchmark uses: far above what one process answers. */
const UNLIMITED_RPM = 1_000_000;

/** The issuer under test in (b): one worker thread (today's N = 1) or N `serve` child processes on one data dir. */
export interface IssuerFleet {
  /** How it runs, for the printed line. */
  kind: string;
  urls: string[];
  resetTimings(): void;
  /** Server-side p50/p99 since the last reset; undefined for child processes (not taken there). */
  serverLatency(): Promise<LatencySummary | undefined>;
  stop(): Promise<void>;
}

/** Where (b)'s issuers run: the data dir every process shares (SQLite), or one node dir per process (PostgreSQL). */
export interface FleetTarget {
  /** SQLite: the issuer's data dir, shared by every process and by the worker thread. */
  dataDir: string;
  /** PostgreSQL: serving node dirs (node-config), process i on nodeDirs[i]; always child processes. */
  nodeDirs?: readonly string[];
  /** Extra `serve` arguments for every process (PostgreSQL: `--db-pool P`). */
  serveArgs?: readonly string[];
}

/** Fleets started and not yet stopped: stopped on error and on SIGINT/SIGTERM before the cluster goes. */
export const liveFleets = new Set<IssuerFleet>();

export async function startIssuerFleet(
  processes: number,
  target: FleetTarget,
  logDir: string,
  childProcesses: boolean,
  sqliteThread = true,
): Promise<IssuerFleet> {
  if (processes === 1 && !childProcesses && target.nodeDirs === undefined) {
    const thread = await startServerThread({ role: 'issuer', dataDir: target.dataDir, sqliteThread });
    const fleet: IssuerFleet = {
      kind: 'worker thread',
      urls: [thread.url],
      ...thread,
      stop: async () => {
        liveFleets.delete(fleet);
        await thread.stop();
      },
    };
    liveFleets.add(fleet);
    return fleet;
  }
  const started: ServeProcess[] = [];
  const stopAll = async (): Promise<void> => {
    for (const serve of started) serve.process.kill('SIGTERM');
    await Promise.all(started.map((serve) => serve.exited));
  };
  try {
    for (let i = 0; i < processes; i++) {
      const logFile = path.join(logDir, `serve-${processes}-${i}.log`);
      const dir = target.nodeDirs === undefined ? target.dataDir : target.nodeDirs[i]!;
      const args = ['--scanner-rpm', String(UNLIMITED_RPM), ...(target.serveArgs ?? [])];
      started.push(await startServeProcess(dir, await freePort(), args, { logFile }));
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  const fleet: IssuerFleet = {
    kind: `${processes} serve process${processes === 1 ? '' : 'es'}`,
    urls: started.map((serve) => serve.url),
    resetTimings: () => {},
    serverLatency: () => Promise.resolve(undefined),
    stop: async () => {
      liveFleets.delete(fleet);
      await stopAll();
    },
  };
  liveFleets.add(fleet);
  return fleet;
}
