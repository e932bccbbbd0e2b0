/**
 * The issuer under concurrent check-ins, killed with SIGKILL 10 times
 * (test/support/issuer-crash-loop.ts says what is checked after every kill; the
 * benchmark runs 50 cycles: npm run bench:crash). A real child process on a
 * real SQLite file; nothing acknowledged is lost, no ticket is valid twice,
 * the file stays intact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIssuerCrashLoop, ticketsForCycles } from '../../support/issuer-crash-loop.js';
import { compileIssuerServer, removeBuild, startIssuerChild } from '../../support/issuer-child-process.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';

const CYCLES = 10;
const KILL_AFTER_MS = [100, 400] as const;
/** The per-scanner rate limit lifted: at the default 600 a minute a fast cycle is refused 429 before its kill. */
const SCANNER_RPM = 1_000_000;
let fx: IssuerFixture;
let buildDir: string;

beforeAll(async () => {
  fx = createIssuerFixture();
  buildDir = await compileIssuerServer();
}, 120_000);

afterAll(() => {
  removeBuild(buildDir);
  fx.cleanup();
});

describe(`the issuer killed ${CYCLES} times mid-batch`, () => {
  it('keeps every acknowledged check-in, never two valid for a ticket, and an intact database', async () => {
    const event = fx.createEvent();
    const scanner = fx.enrollScanner(event.eid);
    // Enough for every cycle's longest life at the loop's ceiling rate.
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
    console.log(
      `[crash-loop] ${report.cycles} SIGKILLs survived: ${report.acknowledged} acknowledged check-ins all stored, ${report.unansweredResent} unanswered requests resent`,
    );
    expect(report.cycles).toBe(CYCLES);
    expect(report.acknowledged).toBeGreaterThan(CYCLES);
    expect(report.checkInsStored).toBeGreaterThanOrEqual(report.acknowledged);
  }, 240_000);
});
