/**
 * `npm run bench:crash [-- --cycles 50]`: the real `ticket-issuer serve`
 * killed with SIGKILL in the middle of concurrent check-ins, cycle after
 * cycle, with the checks of bench/issuer-crash-loop.ts after every kill
 * (docs/benchmarks.md "Faults and bad input"). The test suite runs 10 cycles.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addHours } from '../issuer/admin/arguments.js';
import { createEvent } from '../issuer/admin/events.js';
import { newIdFactory } from '../issuer/admin/ids.js';
import { initIssuer } from '../issuer/admin/init.js';
import { defaultTicketExpiry, issueTickets } from '../issuer/admin/issuance.js';
import { resolveDataDir } from '../issuer/data-dir.js';
import { loadSigningKey } from '../issuer/signing.js';
import { openDatabase } from '../issuer/store/database.js';
import { activeKid } from '../issuer/store/signing-keys.js';
import { createBenchScanners, freePort } from './fixtures.js';
import { runIssuerCrashLoop } from './issuer-crash-loop.js';
import { startServeProcess } from './serve-process.js';

const cyclesAt = process.argv.indexOf('--cycles');
const cycles = cyclesAt < 0 ? 50 : Number(process.argv[cyclesAt + 1]);
if (!Number.isSafeInteger(cycles) || cycles <= 0) throw new Error('--cycles needs a positive whole number');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'crash-bench-'));
try {
  const dataDir = resolveDataDir(path.join(root, 'issuer-data'));
  const now = new Date();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  initIssuer(dataDir, baseUrl, 'Crash Benchmark', now);
  const db = openDatabase(dataDir.database);
  const event = createEvent(db, { name: 'Crash Night', date: addHours(now, 1), venue: 'Loopback Hall' }, newIdFactory(), now);
  const key = loadSigningKey(dataDir.keysDir, activeKid(db));
  const specs = Array.from({ length: cycles * 1000 }, () => ({ exp: defaultTicketExpiry(event) }));
  const tickets = (await issueTickets(db, { iss: baseUrl, event, key, nextId: newIdFactory(), now }, specs)).map((ticket) => ticket.tid);
  const [scanner] = createBenchScanners(db, event, 1, now);
  db.close();
  console.log(`crash benchmark — ${new Date().toISOString()} — node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}`);
  const started = performance.now();
  const report = await runIssuerCrashLoop({
    cycles,
    databaseFile: dataDir.database,
    startIssuer: () => startServeProcess(dataDir.root, port),
    tickets,
    eid: event.eid,
    scanner: scanner!,
    log: (line) => console.log(line),
  });
  console.log('');
  console.log(`PASS  ${report.cycles} SIGKILLs mid-batch: ${report.acknowledged} acknowledged check-ins, all stored with their keys; no ticket valid twice; integrity_check ok after every kill; ${report.unansweredResent} requests unanswered at a kill were resent and answered once (${((performance.now() - started) / 1000).toFixed(0)} s)`);
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
