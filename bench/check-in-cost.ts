/**
 * What one check-in's write job costs the SQLite database thread, in process (`node dist/bench/check-in-cost.js`):
 * the job the thread runs for each check-in (services/check-in.ts checkInWrite), 50 at a time through the group
 * commit (store/sqlite-database.ts) as the saturated (b) sends them, on a real file. CPU time of this thread
 * per check-in, with `synchronous=FULL` as serve runs it (the fsync's wait is not CPU). `--cpu-prof` to see where.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { addHours } from '../issuer/time.js';
import { createEvent } from '../issuer/admin/events.js';
import { newIdFactory } from '../issuer/admin/ids.js';
import { initIssuer } from '../issuer/admin/init.js';
import { defaultTicketExpiry, issueTickets } from '../issuer/admin/issuance.js';
import { resolveDataDir } from '../issuer/data-dir.js';
import { loadSigningKey } from '../issuer/signing.js';
import { openSqliteDatabase } from '../issuer/store/sqlite-database.js';
import { activeKid } from '../issuer/store/signing-keys.js';
import { checkInWrite } from '../issuer/services/check-in.js';
import { hashSecret } from '../issuer/secrets.js';
import { createBenchScanners } from './bench-scanners.js';
import { numberOption } from './bench-kit.js';

const TICKETS = numberOption(process.argv, '--tickets', 40_000);
const BATCH = numberOption(process.argv, '--batch', 50);

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'check-in-cost-'));
try {
  const dataDir = resolveDataDir(path.join(root, 'issuer-data'));
  const now = new Date();
  await initIssuer(dataDir, 'http://127.0.0.1:8443', 'Cost Issuer', now);
  const db = openSqliteDatabase(dataDir.database);
  const event = await createEvent(db, { name: 'Cost Night', date: addHours(now, 1), venue: 'Hall' }, newIdFactory(), now);
  const key = loadSigningKey(dataDir.keysDir, await activeKid(db.read));
  const specs = Array.from({ length: TICKETS }, (_, i) => ({
    exp: defaultTicketExpiry(event),
    holderName: `Guest ${i}`,
    ticketType: 'Standard',
  }));
  const tids = (await issueTickets(db, { iss: 'http://127.0.0.1:8443', event, key, nextId: newIdFactory(), now }, specs)).map((t) => t.tid);
  const scanners = await createBenchScanners(db, event, 50, now);
  const credentialOf = (i: number) => {
    const scanner = scanners[i % scanners.length]!;
    return {
      apiKeyId: scanner.apiKeyId,
      keyHash: hashSecret(scanner.apiKey),
      scannerId: scanner.scannerId,
      eid: event.eid,
      gateId: null,
      role: 'steward' as const,
    };
  };
  const run = async (from: number, to: number): Promise<{ cpuUs: number; wallMs: number; valid: number }> => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    let valid = 0;
    for (let i = from; i < to; i += BATCH) {
      const jobs = [];
      for (let j = i; j < Math.min(to, i + BATCH); j++) {
        const body = {
          tid: tids[j]!,
          eid: event.eid,
          scanned_at: new Date().toISOString(),
          scanner_id: credentialOf(j).scannerId,
          idempotency_key: crypto.randomUUID(),
        };
        jobs.push(db.write(checkInWrite({ credential: credentialOf(j), body, headerKey: undefined, now: new Date().toISOString() })));
      }
      for (const result of await Promise.all(jobs)) if (result.ok && result.responseBody.includes('"valid"')) valid++;
    }
    const used = process.cpuUsage(cpu);
    return { cpuUs: used.user + used.system, wallMs: performance.now() - start, valid };
  };
  await run(0, 2_000);
  // `--profile FILE`: a CPU profile of the measured check-ins only (not of the issuance before them).
  const profileFile = process.argv.includes('--profile') ? process.argv[process.argv.indexOf('--profile') + 1] : undefined;
  const session = profileFile === undefined ? undefined : new Session();
  if (session !== undefined) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const measured = await run(2_000, TICKETS);
  if (session !== undefined) {
    const { profile } = await session.post('Profiler.stop');
    fs.writeFileSync(profileFile!, JSON.stringify(profile));
    session.disconnect();
  }
  const count = TICKETS - 2_000;
  console.log(
    `check-in write job: ${(measured.cpuUs / count).toFixed(1)} µs CPU per check-in, ${((measured.wallMs * 1000) / count).toFixed(1)} µs wall, ${measured.valid}/${count} valid, batches of ${BATCH}`,
  );
  await db.close();
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
