/** protocol/access.ts: the one table of who may make which call, and a scanner key's stored and wire forms; main/kiosk/decide/access.ts. */
import { describe, expect, it } from 'vitest';
import {
  ACCESS,
  CHECK_IN_CALLS,
  KIOSK_ROLES,
  SCANNER_KEY_ROLES,
  STAFF_ROLES,
  callLabel,
  callsOf,
  isStaffRole,
  keyRoleOfRights,
  keyRoleOfStored,
  mayCall,
  rightsAllow,
  rightsOf,
  storedAnnulFlag,
  type AccessCall,
  type KioskCall,
} from '../../../protocol/access.js';
import { SCAN_ACTIONS } from '../../../protocol/door.js';
import { ISSUER_CHANNELS, KIOSK_CHANNELS } from '../../../main/host/call-channels.js';
import { lowestRoleFor, needsStaff, roleAtKiosk } from '../../../main/kiosk/decide/access.js';

const ALL_CALLS = Object.keys(ACCESS) as AccessCall[];
const PAGE_CALLS = Object.keys(KIOSK_CHANNELS);
const ONSITE_ISSUER_CALLS = Object.keys(ISSUER_CHANNELS).map((method) => `onsiteIssuer.${method}`);
const ISSUER_CALLS = [
  'issuer.entry',
  'issuer.exit',
  'issuer.annul',
  'issuer.status',
  'issuer.heartbeat',
  'issuer.revocations',
  'issuer.search',
  'issuer.manualEntry',
  'issuer.handout',
];
// docs/protocol.md "Ticket search": a supervisor's key also searches tickets and checks one in by hand.
const SUPERVISOR_ISSUER_CALLS = ['issuer.annul', 'issuer.search', 'issuer.manualEntry'];

// `calibrate` is also a page call (keeping or discarding a translation, docs/kiosk.md "Calibration"); so are
// `verdictDetails` and `overrideAttention` (docs/kiosk.md "Verdict details", "Attention notes"): no row is a power alone.
const KIOSK_POWERS: string[] = [];
// docs/kiosk.md "Finding a ticket": the ticket search and the manual check-in are a supervisor's, like the lookup.
const SUPERVISOR_CALLS = [
  'lookupStatus',
  'searchTickets',
  'manualCheckIn',
  'setLanguage',
  'setDirection',
  'annul',
  'overrideAttention',
  'overrideIdCheck',
  'verifyLog',
];
const TECHNICIAN_CALLS = [
  'setStaffPin',
  'removeStaffPin',
  'confirmReEnroll',
  'calibrate',
  'resetCalibration',
  'leaveKioskMode',
  'configureLanes',
  'onsiteIssuer.init',
  'onsiteIssuer.start',
  'onsiteIssuer.stop',
  'onsiteIssuer.openAdmin',
  'onsiteIssuer.resetAdminToken',
  'closeKioskWindow',
];
// docs/kiosk.md "Attention notes": whoever runs the door taps Done on an attention verdict, unlocked or not.
const ANYONE_CALLS = [
  'scan',
  'getState',
  'setScannerName',
  'cancelReEnroll',
  'unlockStaff',
  'lockStaff',
  'attentionDone',
  'confirmIdCheck',
  'denyIdCheck',
  'chooseParty',
  'cancelParty',
  'giveHandout',
  'onsiteIssuer.status',
];
const KIOSK_CALLS = [...PAGE_CALLS, ...KIOSK_POWERS, ...ONSITE_ISSUER_CALLS, 'closeKioskWindow'];

describe('the access table', () => {
  it('has a row for every page call, kiosk power, on-site issuer call, the kiosk window and every issuer call, and nothing else', () => {
    expect(PAGE_CALLS).toHaveLength(29);
    for (const call of [...KIOSK_CALLS, ...ISSUER_CALLS]) expect(Object.hasOwn(ACCESS, call), call).toBe(true);
    expect(new Set(ALL_CALLS)).toEqual(new Set([...KIOSK_CALLS, ...ISSUER_CALLS]));
  });

  it('gives every call at least one role, each a known one', () => {
    for (const call of ALL_CALLS) {
      expect(ACCESS[call].roles.length, call).toBeGreaterThan(0);
      for (const role of ACCESS[call].roles) expect([...KIOSK_ROLES, ...SCANNER_KEY_ROLES], call).toContain(role);
    }
  });

  it('lets a handout station\'s key read a status, record handouts and sync, and never admit (docs/protocol.md "Handouts (project extension)")', () => {
    expect(callsOf('handout').sort()).toEqual(['issuer.handout', 'issuer.heartbeat', 'issuer.revocations', 'issuer.status']);
    expect(mayCall('handout', 'issuer.entry')).toBe(false);
    expect(keyRoleOfRights({ annul: false }, 'handout')).toBe('handout');
    expect(rightsOf('handout')).toEqual({ annul: false });
  });

  it('lets anyone at the door scan and unlock, and nothing that changes the kiosk', () => {
    expect(callsOf('anyone').sort()).toEqual([...ANYONE_CALLS].sort());
  });

  it("gives each staff role every power of the one before it: a steward sees a verdict's details", () => {
    expect(
      callsOf('steward')
        .filter((call) => !call.startsWith('issuer.'))
        .sort(),
    ).toEqual([...ANYONE_CALLS, 'verdictDetails'].sort());
  });

  it('lets a supervisor also annul, look up, override, set the language and direction, and check the log', () => {
    expect(
      callsOf('supervisor')
        .filter((call) => !call.startsWith('issuer.'))
        .sort(),
    ).toEqual([...ANYONE_CALLS, 'verdictDetails', ...SUPERVISOR_CALLS].sort());
  });

  it('lets a technician make every call at the kiosk', () => {
    expect(
      callsOf('technician')
        .filter((call) => !call.startsWith('issuer.'))
        .sort(),
    ).toEqual([...KIOSK_CALLS].sort());
    expect(new Set([...ANYONE_CALLS, 'verdictDetails', ...SUPERVISOR_CALLS, ...TECHNICIAN_CALLS])).toEqual(new Set(KIOSK_CALLS));
  });

  it("lets every scanner key make every issuer call but annul, search and manual entry, and a supervisor's or technician's key those too", () => {
    expect(callsOf('anyone').filter((call) => call.startsWith('issuer.'))).toEqual([]);
    expect(
      callsOf('steward')
        .filter((call) => call.startsWith('issuer.'))
        .sort(),
    ).toEqual(ISSUER_CALLS.filter((call) => !SUPERVISOR_ISSUER_CALLS.includes(call)).sort());
    for (const role of ['supervisor', 'technician'] as const) {
      expect(
        callsOf(role)
          .filter((call) => call.startsWith('issuer.'))
          .sort(),
      ).toEqual([...ISSUER_CALLS].sort());
    }
    // A scanner key's role: a staff role, or a handout station's (docs/protocol.md "Handouts (project extension)").
    expect(SCANNER_KEY_ROLES).toEqual([...STAFF_ROLES, 'handout']);
  });

  it('names each staff call for the refusal log line', () => {
    const labels = Object.fromEntries(
      callsOf('technician')
        .filter((call) => !mayCall('anyone', call) && !call.startsWith('issuer.'))
        .map((call) => [call, callLabel(call)]),
    );
    expect(labels).toEqual({
      verdictDetails: "see a verdict's details",
      setStaffPin: 'set the staff PIN',
      removeStaffPin: 'remove a staff PIN',
      lookupStatus: 'status lookup',
      searchTickets: 'search tickets',
      manualCheckIn: 'check in by hand',
      confirmReEnroll: 're-enroll',
      calibrate: 'calibrate a scanner',
      resetCalibration: 'reset calibration',
      setLanguage: 'set the language',
      leaveKioskMode: 'leave kiosk mode',
      setDirection: 'change direction',
      annul: 'annul',
      overrideAttention: 'override an attention prompt',
      overrideIdCheck: 'override an ID check',
      verifyLog: 'audit log check',
      configureLanes: 'configure lanes',
      'onsiteIssuer.init': 'on-site issuer init',
      'onsiteIssuer.start': 'on-site issuer start',
      'onsiteIssuer.stop': 'on-site issuer stop',
      'onsiteIssuer.openAdmin': 'on-site issuer openAdmin',
      'onsiteIssuer.resetAdminToken': 'on-site issuer resetAdminToken',
      closeKioskWindow: 'close the kiosk window',
    });
  });

  it("is the rule of the two prompt rows: a steward sees a verdict's details, only a supervisor and up overrides an attention prompt", () => {
    // docs/kiosk.md "Verdict details", "Attention notes": Done stays everyone's; the override is the staff side's.
    expect(KIOSK_ROLES.filter((role) => mayCall(role, 'verdictDetails'))).toEqual(['steward', 'supervisor', 'technician']);
    expect(KIOSK_ROLES.filter((role) => mayCall(role, 'overrideAttention'))).toEqual(['supervisor', 'technician']);
    expect(KIOSK_ROLES.filter((role) => mayCall(role, 'attentionDone'))).toEqual([...KIOSK_ROLES]);
    expect(lowestRoleFor('overrideAttention')).toBe('supervisor');
    expect(lowestRoleFor('verdictDetails')).toBe('steward');
    expect(needsStaff('overrideAttention') && needsStaff('verdictDetails') && !needsStaff('attentionDone')).toBe(true);
  });

  it('maps every check-in action to its issuer call', () => {
    expect(Object.keys(CHECK_IN_CALLS).sort()).toEqual([...SCAN_ACTIONS].sort());
    expect(CHECK_IN_CALLS).toEqual({ entry: 'issuer.entry', exit: 'issuer.exit', annul: 'issuer.annul' });
  });
});

describe("a scanner key's role as text, on the wire and stored", () => {
  it('reads only the staff roles as roles', () => {
    for (const role of STAFF_ROLES) expect(isStaffRole(role)).toBe(true);
    for (const value of ['anyone', 'staff', 'Supervisor', '', null, 1, undefined]) expect(isStaffRole(value)).toBe(false);
  });

  it("is the heartbeat's role when it names one, else its rights {annul}", () => {
    expect(rightsOf('steward')).toEqual({ annul: false });
    expect(rightsOf('supervisor')).toEqual({ annul: true });
    expect(rightsOf('technician')).toEqual({ annul: true });
    for (const role of STAFF_ROLES) expect(keyRoleOfRights(rightsOf(role), role)).toBe(role);
    expect(keyRoleOfRights({ annul: true })).toBe('supervisor');
    expect(keyRoleOfRights({ annul: false })).toBe('steward');
    expect(keyRoleOfRights({ annul: false }, 'no such role')).toBe('steward');
  });

  it("is a steward's key, which may not annul, before the first heartbeat", () => {
    expect(keyRoleOfRights(undefined)).toBe('steward');
    expect(keyRoleOfRights(null)).toBe('steward');
    expect(rightsAllow(undefined, 'issuer.annul')).toBe(false);
    expect(rightsAllow({ annul: true }, 'issuer.annul')).toBe(true);
    expect(rightsAllow({ annul: false }, 'issuer.annul', 'technician')).toBe(true);
    expect(rightsAllow({ annul: false }, 'issuer.entry')).toBe(true);
  });

  it('is the older can_annul flag (0 or 1), both ways', () => {
    expect(storedAnnulFlag('steward')).toBe(0);
    expect(storedAnnulFlag('supervisor')).toBe(1);
    expect(keyRoleOfStored(0)).toBe('steward');
    expect(keyRoleOfStored(1)).toBe('supervisor');
  });
});

describe("the kiosk's side (main/kiosk/decide/access.ts)", () => {
  it("is the technician while the kiosk's PIN unlocked it or while no PIN is set, else anyone", () => {
    expect(roleAtKiosk({ pinSet: false, unlocked: false })).toBe('technician');
    expect(roleAtKiosk({ pinSet: false, unlocked: true })).toBe('technician');
    expect(roleAtKiosk({ pinSet: true, unlocked: true })).toBe('technician');
    expect(roleAtKiosk({ pinSet: true, unlocked: false })).toBe('anyone');
  });

  it('asks for a staff unlock for exactly the calls the table keeps from anyone', () => {
    const guarded = (callsOf('technician') as AccessCall[])
      .filter((call): call is KioskCall => !call.startsWith('issuer.'))
      .filter(needsStaff);
    expect(guarded.sort()).toEqual(['verdictDetails', ...SUPERVISOR_CALLS, ...TECHNICIAN_CALLS].sort());
    expect(needsStaff('scan')).toBe(false);
    expect(needsStaff('onsiteIssuer.status')).toBe(false);
  });
});
