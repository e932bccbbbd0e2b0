/**
 * Webhooks while the issuer is killed with SIGKILL again and again mid-check-in (docs/issuer.md "Webhooks": at
 * least once, and nothing that did not commit). The loop of test/support/issuer-crash-loop.ts runs real child
 * processes on a real SQLite file, with an endpoint that takes every check-in; after it, one more process drains
 * what is waiting. Then the tickets the receiver heard of are exactly the tickets the database holds as checked
 * in: each committed check-in delivered at least once, none delivered that did not commit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../issuer/store/database.js';
import { newWebhookSecret } from '../../../issuer/services/webhook-signature.js';
import { addEndpointWrite } from '../../../issuer/services/webhooks.js';
import { runIssuerCrashLoop, ticketsForCycles } from '../../support/issuer-crash-loop.js';
import { compileIssuerServer, removeBuild, startIssuerChild } from '../../support/issuer-child-process.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

const CYCLES = 6;
const KILL_AFTER_MS = [150, 500] as const;
const SCANNER_RPM = 1_000_000;
let fx: IssuerFixture;
let buildDir: string;
let receiver: Receiver;

beforeAll(async () => {
  fx = createIssuerFixture();
  buildDir = await compileIssuerServer();
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  removeBuild(buildDir);
  fx.cleanup();
});

describe(`webhooks with the issuer killed ${CYCLES} times mid-batch`, () => {
  it('delivers every committed check-in at least once, signed, and nothing that did not commit', async () => {
    const event = fx.createEvent();
    const scanner = fx.enrollScanner(event.eid);
    const secret = newWebhookSecret();
    receiver.secrets.set('/hooks', secret);
    await fx.database.write(
      addEndpointWrite({ url: `${receiver.url}/hooks`, events: ['checkin.created'], eid: null, secret, now: new Date().toISOString() }),
    );
    const tickets = Array.from({ length: ticketsForCycles(CYCLES, KILL_AFTER_MS) }, () => fx.issueTicket(event.eid).tid);
    const report = await runIssuerCrashLoop({
      cycles: CYCLES,
      databaseFile: fx.dataDir.database,
      startIssuer: () => startIssuerChild(buildDir, fx.dataDir.root, { scannerRpm: SCANNER_RPM }),
      tickets,
      eid: event.eid,
      scanner,
      killAfterMs: KILL_AFTER_MS,
    });
    expect(report.acknowledged).toBeGreaterThan(CYCLES);

    // One more process sends what the kills left waiting (claims of killed processes run out after CLAIM_MS, so
    // they are cleared here as an operator's restart a minute later would find them).
    const db = openDatabase(fx.dataDir.database);
    db.prepare('UPDATE webhook_deliveries SET claimed_until = NULL').run();
    const committed = new Set((db.prepare('SELECT tid FROM checkins').all() as { tid: string }[]).map((row) => row.tid));
    const last = await startIssuerChild(buildDir, fx.dataDir.root, { scannerRpm: SCANNER_RPM });
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const waiting = (db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE state <> 'delivered'").get() as { n: number }).n;
        if (waiting === 0) break;
        if (Date.now() > deadline) throw new Error(`${waiting} deliveries still waiting`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      last.process.kill('SIGTERM');
      await last.exited;
      db.close();
    }
    const heard = receiver.received.filter((r) => r.path === '/hooks');
    expect(heard.filter((r) => !r.verified)).toEqual([]);
    const heardTids = new Set(heard.map((r) => r.data.tid as string));
    expect(committed.size).toBeGreaterThanOrEqual(report.acknowledged);
    expect([...committed].filter((tid) => !heardTids.has(tid))).toEqual([]);
    expect([...heardTids].filter((tid) => !committed.has(tid))).toEqual([]);
    console.log(
      `[webhooks-crash] ${report.cycles} SIGKILLs: ${committed.size} committed check-ins, each delivered (${heard.length - heardTids.size} repeats, same webhook-id)`,
    );
  }, 300_000);
});
