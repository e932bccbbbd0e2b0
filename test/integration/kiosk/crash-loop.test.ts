/**
 * The kiosk killed with SIGKILL during offline scans, 10 times in a row, on
 * one kiosk.db (docs/benchmarks.md "Faults and bad input"). A real child Node
 * process runs the compiled kiosk core and scans tickets while the issuer is
 * down; each run is killed at a random moment mid-scanning. After every kill
 * each verdict the process showed has its scan queued. Then the issuer comes
 * back and the queue drains once: every queued scan reaches the issuer, each
 * with its one idempotency key, each sent exactly once, and nothing is left.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { LocalStore } from '../../../main/kiosk/store/local-store.js';
import { compileKioskCore, runKioskChild } from './helpers/compiled-kiosk.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

const CYCLES = 10;
const CODES_PER_RUN = 40;
let distDir: string;
let issuer: LoopbackIssuer;
let dir: { dir: string; cleanup: () => void };
const children: ChildProcess[] = [];

beforeAll(async () => {
  distDir = compileKioskCore('kiosk-crash-loop');
  issuer = await new LoopbackIssuer().start();
  dir = tempDir();
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await issuer.close();
  dir.cleanup();
  rmSync(distDir, { recursive: true, force: true });
});

describe(`the kiosk killed ${CYCLES} times during offline scans`, () => {
  it('keeps every shown scan queued, and the queue drains once: nothing lost, nothing sent twice', async () => {
    const dbPath = join(dir.dir, 'kiosk.db');
    const apiKeys = new MemoryApiKeys();
    const enroller = new KioskCore({ dbPath, apiKeys, autoDrain: false });
    expect((await enroller.scan(issuer.setupCode())).type).toBe('enrolled');
    await enroller.close();
    issuer.down = true;

    const shownTids: string[] = [];
    let killsMidScanning = 0;
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const codes = Array.from({ length: CODES_PER_RUN }, () => issuer.issueTicket().code);
      const run = runKioskChild(distDir, ['scan', dbPath, apiKeys.key!, ...codes], children);
      // Let it show a few verdicts, then kill it wherever it is.
      const target = 1 + Math.floor(Math.random() * (CODES_PER_RUN / 2));
      await waitFor(() => run.lines.length >= target);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
      run.child.kill('SIGKILL');
      expect((await run.exited).signal).toBe('SIGKILL');
      const shown = run.lines
        .filter((line) => line !== 'done')
        .map((line) => JSON.parse(line) as { verdict: { kind: string; ticket: { tid: string } } });
      if (!run.lines.includes('done')) killsMidScanning += 1;
      expect(shown.every((result) => result.verdict.kind === 'admit')).toBe(true);

      const store = LocalStore.open(dbPath);
      try {
        for (const result of shown) expect(store.firstAdmissionAt(result.verdict.ticket.tid)).toBeDefined();
        shownTids.push(...shown.map((result) => result.verdict.ticket.tid));
        expect(store.pendingCount()).toBeGreaterThanOrEqual(shownTids.length);
      } finally {
        store.close();
      }
    }
    expect(killsMidScanning).toBeGreaterThan(0);

    // The issuer is back: one drain, in a process that is not killed.
    issuer.down = false;
    const before = LocalStore.open(dbPath);
    const queued = before.pendingCount();
    before.close();
    // Attempts while the issuer was down were refused unread; count what the drain sends.
    const attemptsWhileDown = issuer.checkInRequests().length;
    const drain = runKioskChild(distDir, ['drain', dbPath, issuer.url, apiKeys.key!], children);
    expect(await drain.exited).toEqual({ code: 0, signal: null });

    const requests = issuer
      .checkInRequests()
      .slice(attemptsWhileDown)
      .map((request) => request.body as { tid: string; idempotency_key: string });
    const keysByTid = new Map<string, string[]>();
    for (const request of requests) keysByTid.set(request.tid, [...(keysByTid.get(request.tid) ?? []), request.idempotency_key]);
    // Each queued scan was sent exactly once, with one key.
    expect(requests).toHaveLength(queued);
    for (const keys of keysByTid.values()) expect(keys).toHaveLength(1);
    // Every scan whose verdict was shown reached the issuer.
    for (const tid of shownTids) expect(keysByTid.has(tid)).toBe(true);
    const after = LocalStore.open(dbPath);
    expect(after.pendingCount()).toBe(0);
    after.close();
    console.log(
      `[kiosk-crash-loop] ${CYCLES} SIGKILLs during offline scans (${killsMidScanning} mid-scanning): ${shownTids.length} shown admits, ${queued} queued, ${requests.length} sent once each`,
    );
  }, 240_000);
});

async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
