/**
 * The two prompt rows of the access table on a real kiosk core (docs/kiosk.md "Attention notes", "Verdict
 * details"; protocol/access.ts): through the page's calls (main/host/kiosk-calls.ts), a real kiosk.db, a
 * loopback issuer whose admission carries `attention`. An ADMIT with attention holds the door; a steward may not
 * override it (staff_locked, needs a supervisor, audited with the staff id) but sees the verdict's details; a
 * supervisor's badge or PIN overrides it, which releases the hold and is in the chained audit log with the staff id.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { VERDICT_ON_SCREEN_MS } from '../../../main/kiosk/decide/repeat-reads.js';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { KioskState, ScanResult, VerdictDetailsResult } from '../../../main/kiosk/kiosk-api.js';
import { handleKioskCall } from '../../../main/host/kiosk-calls.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';
import { staffRecords } from '../../support/kiosk-audit.js';

const KIOSK_PIN = '90210';
const STEWARD_PIN = '1111';
const SUPERVISOR_PIN = '2222';
const NOTE = { required: true, notes: ['Wheelchair user: side entrance'] };

let issuer: LoopbackIssuer;
let dir: { dir: string; cleanup: () => void };
let core: KioskCore;
/** The kiosk's clock runs ahead of the test's by this much: a scan again after the verdict's screen time is a new scan. */
let clockOffsetMs = 0;

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  dir = tempDir();
  clockOffsetMs = 0;
  const now = (): number => Date.now() + clockOffsetMs;
  core = new KioskCore({
    dbPath: join(dir.dir, 'kiosk.db'),
    apiKeys: new MemoryApiKeys(),
    autoDrain: false,
    onlineBudgetMs: 800,
    repeatReadWindowMs: 0,
    now,
  });
  expect((await scan(issuer.setupCode())).type).toBe('enrolled');
  // The kiosk PIN (a technician's), then a steward's and a supervisor's own PINs; locked.
  expect(await page(core, 'setStaffPin', KIOSK_PIN)).toEqual({ type: 'pin_set' });
  expect(await page(core, 'setStaffPin', STEWARD_PIN, { staff_id: 'sam', name: 'Sam', role: 'steward' })).toEqual({ type: 'pin_set' });
  expect(await page(core, 'setStaffPin', SUPERVISOR_PIN, { staff_id: 'kim', name: 'Kim', role: 'supervisor' })).toEqual({
    type: 'pin_set',
  });
  await page(core, 'lockStaff');
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
const override = (): Promise<KioskState | { type: 'staff_locked' }> => page(core, 'overrideAttention');
const details = (decidedAt: string): Promise<VerdictDetailsResult> => page<VerdictDetailsResult>(core, 'verdictDetails', decidedAt);

/** An ADMIT with attention on screen, holding the door; its decided_at. */
async function heldAdmit(): Promise<{ tid: string; decidedAt: string }> {
  const ticket = issuer.issueTicket();
  issuer.attention.set(ticket.tid, NOTE);
  const result = await scan(ticket.code);
  expect(result).toMatchObject({ type: 'verdict', verdict: { kind: 'admit', attention: NOTE } });
  const decidedAt = (result as Extract<ScanResult, { type: 'verdict' }>).verdict.decided_at;
  expect((await state()).attention_hold).toMatchObject({ decided_at: decidedAt, tid: ticket.tid });
  return { tid: ticket.tid, decidedAt };
}

const overrides = (): Array<Record<string, unknown>> =>
  staffRecords(join(dir.dir, 'kiosk.db')).filter((record) => record.event === 'attention_override');

describe('overriding an attention prompt (docs/kiosk.md "Attention notes")', () => {
  it("refuses no one and a steward (staff_locked, needs a supervisor, audited); a supervisor's badge releases the hold, audited with the staff id", async () => {
    const { tid, decidedAt } = await heldAdmit();
    const next = issuer.issueTicket();
    expect(await scan(next.code)).toMatchObject({ type: 'attention_held' });

    // No one unlocked: the PIN (or a badge) is what is missing; the door stays held.
    expect(await override()).toMatchObject({ type: 'staff_locked', call: 'overrideAttention', needs: 'supervisor', unlocked_as: null });
    // A steward: the role needed is named, and the refusal is in the audit log with the steward's staff id.
    expect(await page(core, 'unlockStaff', STEWARD_PIN)).toMatchObject({ type: 'unlocked', person: { staff_id: 'sam' } });
    expect(await override()).toMatchObject({
      type: 'staff_locked',
      call: 'overrideAttention',
      needs: 'supervisor',
      unlocked_as: { name: 'Sam', role: 'steward' },
    });
    expect((await state()).attention_hold).toMatchObject({ decided_at: decidedAt, refused_scans: 1 });
    expect(
      staffRecords(join(dir.dir, 'kiosk.db')).filter((record) => record.event === 'staff_refused' && record.call === 'overrideAttention'),
    ).toEqual([
      expect.objectContaining({ staff_id: null, needs: 'supervisor' }),
      expect.objectContaining({ staff_id: 'sam', role: 'steward', needs: 'supervisor' }),
    ]);
    // The steward may see the verdict's details: no override yet.
    expect(await details(decidedAt)).toMatchObject({
      type: 'verdict_details',
      details: { tid, kind: 'admit', attention: NOTE, override: null },
    });

    // A supervisor's badge (not held: badges never are) unlocks Kim; her override releases the door.
    expect(await scan(issuer.staffBadge('supervisor', { sid: 'stf_kim', name: 'Kim' }))).toMatchObject({
      type: 'staff_unlocked',
      person: { role: 'supervisor' },
    });
    const after = (await override()) as KioskState;
    expect(after.attention_hold).toBeNull();
    expect(overrides()).toEqual([
      expect.objectContaining({
        event: 'attention_override',
        staff_id: 'stf_kim',
        name: 'Kim',
        role: 'supervisor',
        via: 'badge',
        tid,
        decided_at: decidedAt,
        refused_scans: 1,
      }),
    ]);
    // The details name who overrode; the door takes the next ticket again.
    expect(await details(decidedAt)).toMatchObject({
      type: 'verdict_details',
      details: { override: { staff_id: 'stf_kim', name: 'Kim', role: 'supervisor', via: 'badge' } },
    });
    expect(await scan(next.code)).toMatchObject({ type: 'verdict', verdict: { kind: 'admit' } });
    // Nothing held: an override ends nothing and records no override.
    await page(core, 'unlockStaff', SUPERVISOR_PIN);
    expect(((await override()) as KioskState).attention_hold).toBeNull();
    expect(overrides()).toHaveLength(1);
    expect(await page(core, 'verifyLog')).toMatchObject({ type: 'log_check', ok: true });
  });

  it("a supervisor's own PIN overrides too, recorded with the staff id; Done stays open to anyone", async () => {
    const first = await heldAdmit();
    expect(await page(core, 'unlockStaff', SUPERVISOR_PIN)).toMatchObject({ type: 'unlocked', person: { staff_id: 'kim' } });
    expect(((await override()) as KioskState).attention_hold).toBeNull();
    expect(overrides()).toEqual([
      expect.objectContaining({ staff_id: 'kim', role: 'supervisor', via: 'pin', tid: first.tid, decided_at: first.decidedAt }),
    ]);

    // Done, by anyone (locked), ends a hold without an override record.
    await page(core, 'lockStaff');
    await heldAdmit();
    expect(((await page(core, 'attentionDone')) as KioskState).attention_hold).toBeNull();
    expect(overrides()).toHaveLength(1);
  });
});

describe('verdict details (docs/kiosk.md "Verdict details")', () => {
  it('need a steward; a refusal names its reason, first check-in and the check that decided; an unknown verdict is gone', async () => {
    const ticket = issuer.issueTicket();
    await scan(ticket.code);
    clockOffsetMs += VERDICT_ON_SCREEN_MS.admit + 1; // past the ADMIT's screen time: the same code again is a new scan
    const refused = (await scan(ticket.code)) as Extract<ScanResult, { type: 'verdict' }>;
    expect(refused.verdict).toMatchObject({ kind: 'refuse', reason: 'already_used' });
    expect(await details(refused.verdict.decided_at)).toMatchObject({ type: 'staff_locked', call: 'verdictDetails', needs: 'steward' });

    await page(core, 'unlockStaff', STEWARD_PIN);
    const answer = await details(refused.verdict.decided_at);
    expect(answer).toMatchObject({
      type: 'verdict_details',
      details: { tid: ticket.tid, kind: 'refuse', reason: 'already_used', decided_by: 'seen_here', offline: true, override: null },
    });
    // When it was first checked in: this kiosk's admission.
    expect(answer.type === 'verdict_details' && answer.details.first_used).toMatchObject({ at: expect.any(String), gate: null });
    expect(await details('2000-01-01T00:00:00.000Z')).toEqual({ type: 'no_such_verdict', decided_at: '2000-01-01T00:00:00.000Z' });
    expect(
      staffRecords(join(dir.dir, 'kiosk.db')).filter((record) => record.event === 'staff_action' && record.call === 'verdictDetails'),
    ).toHaveLength(2);
  });
});
