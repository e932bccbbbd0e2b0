/**
 * Roles at the kiosk (docs/kiosk.md "Staff PIN", "Staff badges") through the page's calls
 * (main/host/kiosk-calls.ts), on a real kiosk.db against a loopback issuer: per-person PINs unlock
 * exactly their role's rows of the access table, the kiosk PIN is the technician's; a staff badge
 * signed by the issuer's key unlocks its role until the next ticket, offline too; an expired,
 * other-event or revoked badge is refused; every staff action is in the audit log with the person.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { StaffBadgePayload } from '../../../protocol/staff-badge.js';
import { mayCall, STAFF_ROLES, type KioskCall, type StaffRole } from '../../../protocol/access.js';
import { lowestRoleFor } from '../../../main/kiosk/decide/access.js';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { KioskState, ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { handleKioskCall } from '../../../main/host/kiosk-calls.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';
import { staffRecords } from '../../support/kiosk-audit.js';

const KIOSK_PIN = '90210';

let issuer: LoopbackIssuer;
let apiKeys: MemoryApiKeys;
let dir: { dir: string; cleanup: () => void };
/** The issuer's revocation list endpoint (the loopback issuer has none): its revoked badges. */
let revocations: Server;
const revokedBadges: Array<{ sid: string; revoked_at: string }> = [];
const cores: KioskCore[] = [];

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  revokedBadges.length = 0;
  revocations = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        eid: issuer.eid,
        revoked: [],
        next: '0000000000000000.0',
        complete: true,
        reset: false,
        server_time: new Date().toISOString(),
        revoked_badges: revokedBadges,
      }),
    );
  });
  await new Promise<void>((resolve) => revocations.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(revocations.address() as AddressInfo).port}/api/v1/scanners/revocations`;
  issuer.discoveryOverride = (doc) => ({ ...doc, endpoints: { ...doc.endpoints, scanner_revocations: url } });
  apiKeys = new MemoryApiKeys();
  dir = tempDir();
});

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  await issuer.close();
  await new Promise((resolve) => revocations.close(resolve));
  dir.cleanup();
});

async function page<T = unknown>(core: KioskCore, call: string, ...args: unknown[]): Promise<T> {
  const answer = await handleKioskCall(core, call, args);
  if (!answer.ok) throw new Error(`${call}: ${answer.error.code} ${answer.error.message}`);
  return answer.value as T;
}

const scan = (core: KioskCore, text: string): Promise<ScanResult> => page<ScanResult>(core, 'scan', text);
const state = (core: KioskCore): Promise<KioskState> => page<KioskState>(core, 'getState');

/** An enrolled kiosk with its kiosk PIN set, locked. */
async function enrolledKiosk(): Promise<KioskCore> {
  const core = new KioskCore({ dbPath: join(dir.dir, 'kiosk.db'), apiKeys, autoDrain: false, onlineBudgetMs: 800 });
  cores.push(core);
  expect((await scan(core, issuer.setupCode())).type).toBe('enrolled');
  expect(await page(core, 'setStaffPin', KIOSK_PIN)).toEqual({ type: 'pin_set' });
  await page(core, 'lockStaff');
  return core;
}

function badge(role: StaffRole, overrides: Partial<StaffBadgePayload> = {}): string {
  return issuer.staffBadge(role, overrides);
}

/** What each call answers now: 'ran' or 'staff_locked'. */
async function rights(core: KioskCore): Promise<Record<string, string>> {
  const outcome = (value: unknown): string => ((value as { type?: string }).type === 'staff_locked' ? 'staff_locked' : 'ran');
  return {
    lookupStatus: outcome(await page(core, 'lookupStatus', issuer.issueTicket().tid)),
    setLanguage: outcome(await page(core, 'setLanguage', 'en', null)),
    verifyLog: outcome(await page(core, 'verifyLog')),
    resetCalibration: outcome(await page(core, 'resetCalibration')),
  };
}

describe('per-person PINs', () => {
  it('each unlocks exactly its role; the kiosk PIN is the technician; the person is shown and audited', async () => {
    const core = await enrolledKiosk();
    // Only a technician sets PINs: the kiosk PIN first.
    expect(await page(core, 'setStaffPin', '1111', { staff_id: 'sam', name: 'Sam', role: 'steward' })).toMatchObject({
      type: 'staff_locked',
      call: 'setStaffPin',
      needs: 'technician',
      unlocked_as: null,
    });
    expect(await page(core, 'unlockStaff', KIOSK_PIN)).toMatchObject({
      type: 'unlocked',
      person: { role: 'technician', via: 'kiosk_pin' },
    });
    expect(await page(core, 'setStaffPin', '1111', { staff_id: 'sam', name: 'Sam', role: 'steward' })).toEqual({ type: 'pin_set' });
    expect(await page(core, 'setStaffPin', '2222', { staff_id: 'kim', name: 'Kim', role: 'supervisor' })).toEqual({ type: 'pin_set' });
    // No two people share a PIN.
    expect(await page(core, 'setStaffPin', '1111', { staff_id: 'ann', name: 'Ann', role: 'technician' })).toMatchObject({
      type: 'invalid_pin',
    });
    expect((await state(core)).staff.people).toEqual([
      { staff_id: 'sam', name: 'Sam', role: 'steward' },
      { staff_id: 'kim', name: 'Kim', role: 'supervisor' },
    ]);
    expect(await rights(core)).toEqual({ lookupStatus: 'ran', setLanguage: 'ran', verifyLog: 'ran', resetCalibration: 'ran' });
    await page(core, 'lockStaff');

    expect(await rights(core)).toEqual({
      lookupStatus: 'staff_locked',
      setLanguage: 'staff_locked',
      verifyLog: 'staff_locked',
      resetCalibration: 'staff_locked',
    });
    expect(await page(core, 'unlockStaff', '1111')).toMatchObject({ type: 'unlocked', person: { staff_id: 'sam', role: 'steward' } });
    expect((await state(core)).staff).toMatchObject({ role: 'steward', person: { staff_id: 'sam', name: 'Sam', via: 'pin' } });
    // The refusal names the call, the role it needs and who is unlocked, for the screens to say in their language.
    expect(await page(core, 'verifyLog')).toEqual({
      type: 'staff_locked',
      locked_until: null,
      call: 'verifyLog',
      needs: 'supervisor',
      unlocked_as: { name: 'Sam', role: 'steward' },
      message: 'audit log check needs a supervisor: Sam is steward',
    });
    expect(await rights(core)).toEqual({
      lookupStatus: 'staff_locked',
      setLanguage: 'staff_locked',
      verifyLog: 'staff_locked',
      resetCalibration: 'staff_locked',
    });
    await page(core, 'lockStaff');
    expect(await page(core, 'unlockStaff', '2222')).toMatchObject({ person: { staff_id: 'kim', role: 'supervisor' } });
    expect(await rights(core)).toEqual({ lookupStatus: 'ran', setLanguage: 'ran', verifyLog: 'ran', resetCalibration: 'staff_locked' });

    const records = staffRecords(join(dir.dir, 'kiosk.db'));
    expect(records).toContainEqual(
      expect.objectContaining({ event: 'staff_action', call: 'setLanguage', staff_id: 'kim', role: 'supervisor' }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({ event: 'staff_refused', call: 'setLanguage', staff_id: 'sam', needs: 'supervisor' }),
    );
    expect(records).toContainEqual(expect.objectContaining({ event: 'pin_set', for_staff_id: 'kim', staff_id: 'kiosk-pin' }));
    expect(JSON.stringify(records)).not.toMatch(/1111|2222|90210/);
  });

  it("a technician removes a person's PIN: it no longer unlocks, the removal is audited without the PIN", async () => {
    const core = await enrolledKiosk();
    await page(core, 'unlockStaff', KIOSK_PIN);
    expect(await page(core, 'setStaffPin', '1111', { staff_id: 'sam', name: 'Sam', role: 'steward' })).toEqual({ type: 'pin_set' });
    expect(await page(core, 'setStaffPin', '2222', { staff_id: 'kim', name: 'Kim', role: 'supervisor' })).toEqual({ type: 'pin_set' });
    await page(core, 'lockStaff');
    // Only a technician removes: a supervisor is refused and Sam's PIN stays.
    await page(core, 'unlockStaff', '2222');
    expect(await page(core, 'removeStaffPin', 'sam')).toMatchObject({ type: 'staff_locked', call: 'removeStaffPin', needs: 'technician' });
    await page(core, 'lockStaff');
    await page(core, 'unlockStaff', KIOSK_PIN);
    expect(await page(core, 'removeStaffPin', 'nobody')).toEqual({ type: 'no_such_person', staff_id: 'nobody' });
    await expect(page(core, 'removeStaffPin', 'no spaces')).rejects.toThrow(/invalid_input/);
    const removed = await page(core, 'removeStaffPin', 'sam');
    expect(removed).toEqual({ type: 'pin_removed', staff_id: 'sam' });
    expect(JSON.stringify(removed)).not.toMatch(/1111|hash/i);
    expect((await state(core)).staff.people).toEqual([{ staff_id: 'kim', name: 'Kim', role: 'supervisor' }]);
    await page(core, 'lockStaff');
    expect(await page(core, 'unlockStaff', '1111')).toMatchObject({ type: 'wrong_pin' });
    const records = staffRecords(join(dir.dir, 'kiosk.db'));
    expect(records).toContainEqual(
      expect.objectContaining({ event: 'pin_removed', for_staff_id: 'sam', for_role: 'steward', staff_id: 'kiosk-pin' }),
    );
    expect(JSON.stringify(records)).not.toMatch(/1111|2222|90210/);
  });
});

/**
 * Every kiosk page call that needs more than "anyone", each made the way the page makes it, harmlessly (no
 * such person, a verdict that never was, the same event's setup code …). Made while a badge is unlocked, in this order: the
 * calls that end or change the unlock (a check-in by hand is a ticket; removing a PIN ends nothing) come last.
 */
const STAFF_CALLS: Array<[KioskCall, () => unknown[]]> = [
  ['attentionDone', () => []],
  ['verdictDetails', () => ['2026-01-01T00:00:00.000Z']],
  ['lookupStatus', () => [issuer.issueTicket().tid]],
  ['setLanguage', () => ['en', null]],
  ['setDirection', () => ['entry']],
  ['verifyLog', () => []],
  ['overrideAttention', () => []],
  ['annul', () => [issuer.issueTicket().tid, 'let in on the wrong ticket']],
  ['calibrate', () => [false]],
  ['resetCalibration', () => []],
  ['configureLanes', () => [{ action: 'cancel' }]],
  ['removeStaffPin', () => ['nobody']],
  ['setStaffPin', () => ['73519', { staff_id: 'new', name: 'New', role: 'steward' }]],
  ['leaveKioskMode', () => []],
  // Last: a re-enrollment waits (a setup code was just scanned), and a technician's confirm re-enrolls.
  ['confirmReEnroll', () => []],
];

describe('the access table at the kiosk, call by call', () => {
  it.each([...STAFF_ROLES, 'anyone'] as const)(
    'a kiosk with a PIN, %s in front of it (a badge, or no one unlocked): exactly the rows the table gives the role run',
    async (role) => {
      const core = await enrolledKiosk();
      if (role !== 'anyone') expect(await scan(core, badge(role))).toMatchObject({ type: 'staff_unlocked', person: { role } });
      const answered: Record<string, string> = {};
      const expected: Record<string, string> = {};
      for (const [call, args] of STAFF_CALLS) {
        if (call === 'confirmReEnroll') expect((await scan(core, issuer.setupCode())).type).toBe('confirm_re_enroll');
        const answer = await page<{ type?: string; needs?: string }>(core, call, ...args());
        answered[call] = answer.type === 'staff_locked' ? `staff_locked (needs ${answer.needs})` : 'ran';
        expected[call] = mayCall(role, call) ? 'ran' : `staff_locked (needs ${lowestRoleFor(call)})`;
      }
      expect(answered).toEqual(expected);
      // Every call the test makes is a row the role is refused or given, none is open to anyone at the door.
      expect(STAFF_CALLS.filter(([call]) => mayCall('anyone', call) && call !== 'attentionDone')).toEqual([]);
    },
  );
});

describe('staff badges', () => {
  it('a supervisor badge unlocks a supervisor until the next ticket scan, and is never checked in', async () => {
    const core = await enrolledKiosk();
    const checkIns = issuer.checkInRequests().length;
    expect(await scan(core, badge('supervisor'))).toMatchObject({
      type: 'staff_unlocked',
      person: { staff_id: 'stf_supervisor', name: 'Kim', role: 'supervisor', via: 'badge' },
    });
    expect((await state(core)).staff).toMatchObject({ role: 'supervisor', person: { staff_id: 'stf_supervisor' } });
    expect(await rights(core)).toEqual({ lookupStatus: 'ran', setLanguage: 'ran', verifyLog: 'ran', resetCalibration: 'staff_locked' });
    expect(issuer.checkInRequests().length).toBe(checkIns);
    expect((await state(core)).pending_scans).toBe(0);

    expect(await scan(core, issuer.issueTicket().code)).toMatchObject({ type: 'verdict', verdict: { kind: 'admit' } });
    expect((await state(core)).staff).toMatchObject({ role: 'anyone', person: null });
    expect((await rights(core)).setLanguage).toBe('staff_locked');
    expect(staffRecords(join(dir.dir, 'kiosk.db'))).toContainEqual(
      expect.objectContaining({ event: 'staff_action', call: 'setLanguage', staff_id: 'stf_supervisor' }),
    );
  });

  it('a steward badge unlocks only a steward; a technician badge calibrates at Ready', async () => {
    const core = await enrolledKiosk();
    await scan(core, badge('steward'));
    expect(await rights(core)).toEqual({
      lookupStatus: 'staff_locked',
      setLanguage: 'staff_locked',
      verifyLog: 'staff_locked',
      resetCalibration: 'staff_locked',
    });
    await scan(core, badge('technician', { sid: 'stf_tech', name: 'Ann' }));
    expect(await rights(core)).toEqual({ lookupStatus: 'ran', setLanguage: 'ran', verifyLog: 'ran', resetCalibration: 'ran' });
  });

  it('an expired, not yet valid or other-event badge is refused, offline too, and audited', async () => {
    const core = await enrolledKiosk();
    const now = Math.floor(Date.now() / 1000);
    issuer.down = true;
    const refused = [
      await scan(core, badge('supervisor', { exp: now - 10 })),
      await scan(core, badge('supervisor', { nbf: now + 3600 })),
      await scan(core, badge('supervisor', { eids: ['OTHER_EVENT'] })),
    ];
    expect(refused.map((result) => result.type === 'staff_badge_refused' && result.check)).toEqual(['expired', 'not_yet_valid', 'event']);
    expect((await state(core)).staff.role).toBe('anyone');
    expect(
      staffRecords(join(dir.dir, 'kiosk.db'))
        .filter((record) => record.event === 'badge_refused')
        .map((record) => record.check),
    ).toEqual(['expired', 'not_yet_valid', 'event']);
    // A working badge offline: it is verified like a ticket.
    expect((await scan(core, badge('supervisor'))).type).toBe('staff_unlocked');
  });

  it('a badge revoked at the issuer is refused offline after the revocation list synced', async () => {
    const core = await enrolledKiosk();
    revokedBadges.push({ sid: 'stf_supervisor', revoked_at: new Date().toISOString() });
    await core.syncRevocations();
    issuer.down = true;
    expect(await scan(core, badge('supervisor'))).toMatchObject({ type: 'staff_badge_refused', check: 'revoked' });
    expect((await state(core)).staff.role).toBe('anyone');
    expect((await scan(core, badge('steward'))).type).toBe('staff_unlocked');
  });
});
