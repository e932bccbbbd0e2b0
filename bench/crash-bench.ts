/**
 * `npm run bench:crash [-- --cycles 50]`: the real `ticket-issuer serve`
 * killed with SIGKILL in the middle of concurrent check-ins, cycle after
 * cycle, with the checks of test/support/issuer-crash-loop.ts after every kill
 * (docs/benchmarks.md "Faults and bad input"). The test suite runs 10 cycles.
 *
 * The per-scanner rate limit is lifted (`--scanner-rpm`): at serve's default
 * of 600 a minute, one fast cycle's single scanner is answered 429 before its
 * kill. Tickets: ticketsForCycles, room for every cycle's longest life.
 */
import fs from 'node:fs';
import os from 'node:os';
import { numberOption } from './bench-kit.js';
import { runIssuerCrashLoop, ticketsForCycles } from '../test/support/issuer-crash-loop.js';
import { createLoopbackIssuerData, startServeProcess } from './serve-process.js';

const cycles = numberOption(process.argv, '--cycles', 50);
/** serve's ceiling for --scanner-rpm: far above anything one process answers in a cycle. */
const UNLIMITED_RPM = 1_000_000;

const issuerData = await createLoopbackIssuerData({ name: 'Crash Benchmark', tickets: ticketsForCycles(cycles), scanners: 1 });
const { dataDir, port, eid, tids: tickets } = issuerData;
const scanner = issuerData.scanners[0];
try {
  console.log(
    `crash benchmark — ${new Date().toISOString()} — node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}`,
  );
  const started = performance.now();
  const report = await runIssuerCrashLoop({
    cycles,
    databaseFile: dataDir.database,
    startIssuer: () => startServeProcess(dataDir.root, port, ['--scanner-rpm', String(UNLIMITED_RPM)]),
    tickets,
    eid,
    scanner: scanner!,
    log: (line) => console.log(line),
  });
  console.log('');
  console.log(
    `PASS  ${report.cycles} SIGKILLs mid-batch: ${report.acknowledged} acknowledged check-ins, all stored with their keys; no ticket valid twice; integrity_check ok after every kill; ${report.unansweredResent} requests unanswered at a kill were resent and answered once (${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
} finally {
  fs.rmSync(issuerData.root, { recursive: true, force: true });
}
