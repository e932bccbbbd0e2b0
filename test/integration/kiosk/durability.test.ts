/**
 * Durability across SIGKILL, with a real child Node process running the
 * compiled kiosk code (tsx is not installed; the kiosk files are compiled
 * with the project's tsconfig into a private folder under dist/).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { LocalStore } from '../../../main/kiosk/store/local-store.js';
import { compileKioskCore, runKioskChild } from './helpers/compiled-kiosk.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

let distDir: string;

beforeAll(() => {
  distDir = compileKioskCore('kiosk-durability');
}, 120_000);

afterAll(() => rmSync(distDir, { recursive: true, force: true }));

let issuer: LoopbackIssuer;
let dir: { dir: string; cleanup: () => void };
const children: ChildProcess[] = [];

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  dir = tempDir();
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await issuer.close();
  dir.cleanup();
});

const runChild = (args: string[]) => runKioskChild(distDir, args, children);

describe('durability across SIGKILL', () => {
  it('a queue drained by a process killed mid-drain reaches the issuer completely, each scan with one key', async () => {
    const apiKey = 'sk_durability_test';
    issuer.apiKeys.set(apiKey, { eid: issuer.eid, gate_id: null, api_key_id: 'ak_d' });
    issuer.delayMs = 40; // answers lag, so requests are in flight when the kill lands
    const dbPath = join(dir.dir, 'kiosk.db');
    const store = LocalStore.open(dbPath);
    const scanner_id = store.identity().scanner_id;
    const queued = Array.from({ length: 40 }, () => {
      const { tid, code } = issuer.issueTicket();
      return store.insertScan({
        code,
        iss: issuer.url,
        tid,
        eid: issuer.eid,
        gate_id: null,
        scanner_id,
        scanned_at: new Date().toISOString(),
        signature_status: 'valid',
        queue_state: 'pending',
      });
    });
    store.close();

    // First run: SIGKILL the moment the 15th request arrives, before it is answered.
    const first = runChild(['drain', dbPath, issuer.url, apiKey]);
    issuer.onCheckIn = (count) => {
      if (count === 15) first.child.kill('SIGKILL');
    };
    expect((await first.exited).signal).toBe('SIGKILL');
    issuer.onCheckIn = null;
    const afterKill = LocalStore.open(dbPath);
    const leftAfterKill = afterKill.pendingCount();
    afterKill.close();
    expect(leftAfterKill).toBeGreaterThan(0);
    expect(leftAfterKill).toBeLessThan(40);

    // Second run: drains the rest.
    const second = runChild(['drain', dbPath, issuer.url, apiKey]);
    expect(await second.exited).toEqual({ code: 0, signal: null });

    const requests = issuer.checkInRequests().map((r) => r.body as { tid: string; idempotency_key: string });
    const keysByTid = new Map<string, Set<string>>();
    for (const r of requests) keysByTid.set(r.tid, (keysByTid.get(r.tid) ?? new Set()).add(r.idempotency_key));
    // Every scan reached the issuer ...
    expect([...keysByTid.keys()].sort()).toEqual(queued.map((s) => s.tid).sort());
    // ... each with exactly its own stored key, however often it was sent.
    for (const s of queued) expect([...keysByTid.get(s.tid)!]).toEqual([s.idempotency_key]);
    // The kill left at least one request unanswered, which was sent again.
    expect(requests.length).toBeGreaterThan(40);

    const final = LocalStore.open(dbPath);
    expect(final.pendingCount()).toBe(0);
    // Idempotency made the resent scans answer "valid" again, not "already_used".
    for (const s of queued) expect(final.scan(s.idempotency_key)?.result_status).toBe('valid');
    final.close();
  });

  it('a verdict shown by a process that is then killed was committed with its scan', async () => {
    const dbPath = join(dir.dir, 'kiosk.db');
    const apiKeys = new MemoryApiKeys();
    const enroller = new KioskCore({ dbPath, apiKeys, autoDrain: false });
    expect((await enroller.scan(issuer.setupCode())).type).toBe('enrolled');
    await enroller.close();

    issuer.down = true;
    const codes = Array.from({ length: 5 }, () => issuer.issueTicket().code);
    const run = runChild(['scan', dbPath, apiKeys.key!, ...codes]);
    await waitFor(() => run.lines.includes('done'));
    run.child.kill('SIGKILL');
    await run.exited;

    const shown = run.lines
      .filter((l) => l !== 'done')
      .map((l) => JSON.parse(l) as { type: string; verdict: { kind: string; ticket: { tid: string } } });
    expect(shown.map((r) => r.verdict.kind)).toEqual(['admit', 'admit', 'admit', 'admit', 'admit']);
    const store = LocalStore.open(dbPath);
    for (const result of shown) expect(store.firstAdmissionAt(result.verdict.ticket.tid)).toBeDefined();
    expect(store.pendingCount()).toBe(5);
    store.close();
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
