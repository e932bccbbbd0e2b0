/**
 * The ID prompt on a real kiosk core (docs/kiosk.md "ID checks"; protocol/access.ts): through the page's calls
 * (main/host/kiosk-calls.ts), a real kiosk.db holding a synced list whose type asks for `age:18`, a loopback issuer.
 * Nothing is sent to the issuer until Confirm; Confirm sends `id_checked: true` with the staff id of who is unlocked;
 * Deny sends nothing and records `id_check_failed` with the staff id; a steward may not override (staff_locked, needs
 * a supervisor); a supervisor's override admits, sent with their staff id and recorded as `id_check_override`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { KioskState, ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { handleKioskCall } from '../../../main/host/kiosk-calls.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

const KIOSK_PIN = '90210';
const STEWARD_PIN = '1111';
const SUPERVISOR_PIN = '2222';

let issuer: LoopbackIssuer;
let dir: { dir: string; cleanup: () => void };
let core: KioskCore;

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  dir = tempDir();
  core = new KioskCore({
    dbPath: join(dir.dir, 'kiosk.db'),
    apiKeys: new MemoryApiKeys(),
    autoDrain: false,
    onlineBudgetMs: 800,
    repeatReadWindowMs: 0,
  });
  expect((await scan(issuer.setupCode())).type).toBe('enrolled');
  expect(await page(core, 'setStaffPin', KIOSK_PIN)).toEqual({ type: 'pin_set' });
  expect(await page(core, 'setStaffPin', STEWARD_PIN, { staff_id: 'sam', name: 'Sam', role: 'steward' })).toEqual({ type: 'pin_set' });
  expect(await page(core, 'setStaffPin', SUPERVISOR_PIN, { staff_id: 'kim', name: 'Kim', role: 'supervisor' })).toEqual({
    type: 'pin_set',
  });
  await page(core, 'lockStaff');
  // The synced list as a sync from an issuer with ID checks leaves it: the type's check; one ticket's band.
  const db = new Database(join(dir.dir, 'kiosk.db'));
  try {
    db.prepare('INSERT OR REPLACE INTO attention_sync (id, iss, eid, cursor, synced_at) VALUES (1, ?, ?, ?, ?)').run(
      issuer.url,
      issuer.eid,
      '0000000000000000.1',
      new Date().toISOString(),
    );
    db.prepare("INSERT INTO id_check_types (ticket_type, id_check) VALUES ('Standard', 'age:18')").run();
  } finally {
    db.close();
  }
});

afterEach(async () => {
  await core.close();
  await issuer.close();
  dir.cleanup();
});

async function page<T = unknown>(kiosk: KioskCore, call: string, ...args: unknown[]): Promise<T> {
  const answer = await handleKioskCall(kiosk, call, args);
  if (!answer.ok) throw new Error(`${call}: ${answer.error.code} ${answer.error.message}`);
  return answer.value as T;
}

const scan = (text: string): Promise<ScanResult> => page<ScanResult>(core, 'scan', text);
const state = (): Promise<KioskState> => page<KioskState>(core, 'getState');

/** The check-in requests the issuer received for `tid`. */
const sent = (tid: string): Array<Record<string, unknown>> =>
  [...issuer.idempotency.values()].map((entry) => entry.body as Record<string, unknown>).filter((body) => body['tid'] === tid);

function audit(kind: string): Array<Record<string, unknown>> {
  const db = new Database(join(dir.dir, 'kiosk.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT tid, detail FROM audit_log WHERE kind = ? ORDER BY seq').all(kind) as Array<{
      tid: string;
      detail: string;
    }>;
    return rows.map((row) => ({ tid: row.tid, ...(JSON.parse(row.detail) as Record<string, unknown>) }));
  } finally {
    db.close();
  }
}

describe('the ID prompt at a kiosk with staff PINs', () => {
  it('asks before anything is sent; Confirm by a steward sends id_checked with the staff id', async () => {
    const ticket = issuer.issueTicket({ hn: 'Ada Lovelace' });
    const asked = await scan(ticket.code);
    expect(asked).toMatchObject({
      type: 'id_check',
      prompt: { tid: ticket.tid, kind: 'age', min_age: 18, holder: 'Ada L.', band: 'unknown' },
    });
    expect(sent(ticket.tid)).toEqual([]);
    expect((await state()).id_check_prompt).toMatchObject({ tid: ticket.tid });
    // Another ticket meanwhile: refused, audited, nothing sent.
    const other = issuer.issueTicket();
    expect((await scan(other.code)).type).toBe('id_check_pending');
    expect(sent(other.tid)).toEqual([]);
    expect(audit('verdict').filter((record) => record['reason'] === 'id_check_pending')).toHaveLength(1);

    expect(await page(core, 'unlockStaff', STEWARD_PIN)).toMatchObject({ type: 'unlocked', person: { staff_id: 'sam' } });
    const confirmed = await page<ScanResult>(core, 'confirmIdCheck');
    expect(confirmed).toMatchObject({ type: 'verdict', verdict: { kind: 'admit' } });
    expect(sent(ticket.tid)).toEqual([expect.objectContaining({ id_checked: true, staff_id: 'sam', action: 'entry' })]);
    expect(audit('staff').filter((record) => record['event'] === 'id_check_confirmed')).toEqual([
      expect.objectContaining({ tid: ticket.tid, staff_id: 'sam', role: 'steward', kind: 'age', min_age: 18 }),
    ]);
    expect((await state()).id_check_prompt).toBeNull();
    // The verdict's details say who confirmed the ID (docs/kiosk.md "Verdict details").
    const decidedAt = (confirmed as Extract<ScanResult, { type: 'verdict' }>).verdict.decided_at;
    expect(await page(core, 'verdictDetails', decidedAt)).toMatchObject({
      type: 'verdict_details',
      details: { id_check: { answer: 'confirmed', staff_id: 'sam', name: 'Sam', role: 'steward' } },
    });
    // Nothing waits any more: a second Confirm confirms nothing.
    expect(await page(core, 'confirmIdCheck')).toEqual({ type: 'nothing_to_confirm' });
  });

  it('Deny sends nothing and records id_check_failed with the staff id', async () => {
    const ticket = issuer.issueTicket({ hn: 'Bob Young' });
    expect((await scan(ticket.code)).type).toBe('id_check');
    await page(core, 'unlockStaff', STEWARD_PIN);
    const denied = await page<ScanResult>(core, 'denyIdCheck');
    expect(denied).toMatchObject({ type: 'verdict', verdict: { kind: 'refuse', reason: 'id_check_failed', decided_by: 'id_check' } });
    expect(sent(ticket.tid)).toEqual([]);
    expect(audit('verdict').filter((record) => record['reason'] === 'id_check_failed')).toEqual([
      expect.objectContaining({ tid: ticket.tid, staff_id: 'sam', staff_name: 'Sam', role: 'steward', band: 'unknown' }),
    ]);
    // The ticket is not used: scanned again, it is asked about again.
    expect((await scan(ticket.code)).type).toBe('id_check');
  });

  it("a steward may not override (needs a supervisor); a supervisor's override admits with their staff id", async () => {
    const ticket = issuer.issueTicket();
    expect((await scan(ticket.code)).type).toBe('id_check');
    await page(core, 'unlockStaff', STEWARD_PIN);
    expect(await page(core, 'overrideIdCheck')).toMatchObject({ type: 'staff_locked', call: 'overrideIdCheck', needs: 'supervisor' });
    expect((await state()).id_check_prompt).toMatchObject({ tid: ticket.tid });
    await page(core, 'unlockStaff', SUPERVISOR_PIN);
    expect(await page(core, 'overrideIdCheck')).toMatchObject({ type: 'verdict', verdict: { kind: 'admit' } });
    expect(sent(ticket.tid)).toEqual([expect.objectContaining({ id_checked: true, staff_id: 'kim' })]);
    expect(audit('staff').filter((record) => record['event'] === 'id_check_override')).toEqual([
      expect.objectContaining({ tid: ticket.tid, staff_id: 'kim', role: 'supervisor' }),
    ]);
  });

  it('an exit gate asks no ID: the exit is sent at once', async () => {
    const ticket = issuer.issueTicket();
    await page(core, 'unlockStaff', SUPERVISOR_PIN);
    await page(core, 'setDirection', 'exit');
    const result = await scan(ticket.code);
    expect(result.type).toBe('verdict');
    expect(sent(ticket.tid)).toEqual([expect.objectContaining({ action: 'exit' })]);
    expect(sent(ticket.tid)[0]).not.toHaveProperty('id_checked');
  });

  it('a ticket type without a check is checked in at once, without id_checked', async () => {
    const ticket = issuer.issueTicket({ tt: 'Day' });
    expect(await scan(ticket.code)).toMatchObject({ type: 'verdict', verdict: { kind: 'admit' } });
    expect(sent(ticket.tid)).toEqual([expect.not.objectContaining({ id_checked: true })]);
  });
});
