/** `ticket-issuer serve` from the build, as a child process on loopback, and a data directory for it, for the benchmarks that need a real process. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { addHours } from '../issuer/time.js';
import { createEvent } from '../issuer/admin/events.js';
import { newIdFactory } from '../issuer/admin/ids.js';
import { initIssuer } from '../issuer/admin/init.js';
import { defaultTicketExpiry, issueTickets } from '../issuer/admin/issuance.js';
import { resolveDataDir, type DataDir } from '../issuer/data-dir.js';
import { loadSigningKey } from '../issuer/signing.js';
import { openSqliteDatabase } from '../issuer/store/sqlite-database.js';
import { activeKid } from '../issuer/store/signing-keys.js';
import { freePort } from '../test/support/free-port.js';
import { createBenchScanners, type BenchScanner } from './bench-scanners.js';

const CLI = fileURLToPath(new URL('../issuer/cli.js', import.meta.url));

export interface ServeProcess {
  url: string;
  process: ChildProcess;
  exited: Promise<number | null>;
}

export interface ServeProcessOptions {
  /**
   * Send serve's log (stderr: a JSON line per request at `info`; serve has no
   * log-level option) to this file instead of a pipe, so a benchmark's own
   * process does not spend CPU reading it. Its tail is still shown if serve fails to start.
   */
  logFile?: string;
  /** Node options before the CLI's path, e.g. `--cpu-prof --cpu-prof-dir DIR` (bench:webhooks --profile). */
  nodeArgs?: readonly string[];
}

/** Starts `serve --plain-http` on 127.0.0.1:`port` (with `extraArgs`, e.g. `--scanner-rpm`) and resolves once it answers. */
export async function startServeProcess(
  dataDir: string,
  port: number,
  extraArgs: readonly string[] = [],
  options: ServeProcessOptions = {},
): Promise<ServeProcess> {
  const logFd = options.logFile === undefined ? undefined : fs.openSync(options.logFile, 'w');
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      CLI,
      'serve',
      '--data',
      dataDir,
      '--plain-http',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      ...extraArgs,
    ],
    {
      stdio: ['ignore', 'ignore', logFd ?? 'pipe'],
    },
  );
  if (logFd !== undefined) fs.closeSync(logFd); // the child has its own copy
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let piped = '';
  child.stderr?.on('data', (chunk: Buffer) => (piped = (piped + chunk.toString()).slice(-4000)));
  const stderr = (): string => (options.logFile === undefined ? piped : fs.readFileSync(options.logFile, 'utf8').slice(-4000));
  const url = `http://127.0.0.1:${port}`;
  // A minute: on a shared machine at a load of 20, serve has taken more than 20 s to start.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`ticket-issuer serve exited: ${stderr()}`);
    try {
      if ((await fetch(`${url}/.well-known/ticket-issuer.json`)).ok) return { url, process: child, exited };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`ticket-issuer serve did not answer: ${stderr()}`);
}

export interface LoopbackIssuerData {
  root: string;
  dataDir: DataDir;
  baseUrl: string;
  port: number;
  eid: string;
  tids: string[];
  scanners: BenchScanner[];
}

/**
 * A fresh issuer data directory for a loopback `serve`: one event starting in
 * an hour, `tickets` signed tickets and `scanners` scanner keys. The caller
 * removes `root`.
 */
export async function createLoopbackIssuerData(options: { name: string; tickets: number; scanners: number }): Promise<LoopbackIssuerData> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-issuer-'));
  const dataDir = resolveDataDir(path.join(root, 'issuer-data'));
  const now = new Date();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  await initIssuer(dataDir, baseUrl, options.name, now);
  const db = openSqliteDatabase(dataDir.database);
  try {
    const event = await createEvent(
      db,
      { name: `${options.name} night`, date: addHours(now, 1), venue: 'Loopback Hall' },
      newIdFactory(),
      now,
    );
    const key = loadSigningKey(dataDir.keysDir, await activeKid(db.read));
    const specs = Array.from({ length: options.tickets }, (_, i) => ({
      exp: defaultTicketExpiry(event),
      holderName: `Guest ${i}`,
      ticketType: 'Standard',
    }));
    const tids = (await issueTickets(db, { iss: baseUrl, event, key, nextId: newIdFactory(), now }, specs)).map((ticket) => ticket.tid);
    return { root, dataDir, baseUrl, port, eid: event.eid, tids, scanners: await createBenchScanners(db, event, options.scanners, now) };
  } finally {
    await db.close();
  }
}
