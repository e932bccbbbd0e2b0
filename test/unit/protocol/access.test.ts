/** protocol/access.ts: the one table of who may make which call, and a scanner key's stored and wire forms; main/kiosk/decide/access.ts. */
import { describe, expect, it } from 'vitest';
import {
  ACCESS,
  CHECK_IN_CALLS,
  KIOSK_ROLES,
  SCANNER_KEY_ROLES,
  callLabel,
  callsOf,
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
import { needsStaff, roleAtKiosk } from '../../../main/kiosk/decide/access.js';

const ALL_CALLS = Object.keys(ACCESS) as AccessCall[];
const PAGE_CALLS = Object.keys(KIOSK_CHANNELS);
const ONSITE_ISSUER_CALLS = Object.keys(ISSUER_CHANNELS).map((method) => `onsiteIssuer.${method}`);
const ISSUER_CALLS = ['issuer.entry', 'issuer.exit', 'issuer.annul', 'issuer.status', 'issuer.heartbeat', 'issuer.revocations'];

describe('the access table', () => {
  it('has a row for every page call, every on-site issuer call, the kiosk window and every issuer call, and nothing else', () => {
    expect(PAGE_CALLS).toHaveLength(17);
    for (const call of [...PAGE_CALLS, ...ONSITE_ISSUER_CALLS, 'closeKioskWindow', ...ISSUER_CALLS]) {
      expect(Object.hasOwn(ACCESS, call), call).toBe(true);
    }
    expect(new Set(ALL_CALLS)).toEqual(new Set([...PAGE_CALLS, ...ONSITE_ISSUER_CALLS, 'closeKioskWindow', ...ISSUER_CALLS]));
  });

  it('gives every call at least one role, each a known one', () => {
    const roles: readonly string[] = [...KIOSK_ROLES, ...SCANNER_KEY_ROLES];
    for (const call of ALL_CALLS) {
      expect(ACCESS[call].roles.length, call).toBeGreaterThan(0);
      for (const role of ACCESS[call].roles) expect(roles, call).toContain(role);
    }
  });

  it('lets anyone at the door scan and unlock, and nothing that changes the kiosk', () => {
    expect(callsOf('anyone').sort()).toEqual(
      ['scan', 'getState', 'setScannerName', 'cancelReEnroll', 'unlockStaff', 'lockStaff', 'onsiteIssuer.status'].sort(),
    );
  });

  it('lets staff make every call at the kiosk, and none at the issuer', () => {
    expect(callsOf('staff').sort()).toEqual([...PAGE_CALLS, ...ONSITE_ISSUER_CALLS, 'closeKioskWindow'].sort());
  });

  it('lets a scanner key make every issuer call but annul, and a key with the annul right every one', () => {
    expect(callsOf('scanner').sort()).toEqual(ISSUER_CALLS.filter((call) => call !== 'issuer.annul').sort());
    expect(callsOf('annulling_scanner').sort()).toEqual([...ISSUER_CALLS].sort());
    expect(mayCall('scanner', 'issuer.annul')).toBe(false);
    expect(mayCall('annulling_scanner', 'issuer.annul')).toBe(true);
    expect(mayCall('annulling_scanner', 'annul')).toBe(false); // a key is no one at the kiosk
  });

  it('names each staff call as the refusal log line always has', () => {
    const labels = Object.fromEntries(
      callsOf('staff')
        .filter((call) => !mayCall('anyone', call))
        .map((call) => [call, callLabel(call)]),
    );
    expect(labels).toEqual({
      setStaffPin: 'set the staff PIN',
      lookupStatus: 'status lookup',
      confirmReEnroll: 're-enroll',
      resetCalibration: 'reset calibration',
      calibrate: 'calibrate',
      setLanguage: 'set the language',
      leaveKioskMode: 'leave kiosk mode',
      setDirection: 'change direction',
      annul: 'annul',
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

  it('maps every check-in action to its issuer call', () => {
    expect(Object.keys(CHECK_IN_CALLS).sort()).toEqual([...SCAN_ACTIONS].sort());
    expect(CHECK_IN_CALLS).toEqual({ entry: 'issuer.entry', exit: 'issuer.exit', annul: 'issuer.annul' });
  });
});

describe("a scanner key's stored and wire forms", () => {
  it('is the heartbeat rights {annul} on the wire, both ways', () => {
    expect(rightsOf('scanner')).toEqual({ annul: false });
    expect(rightsOf('annulling_scanner')).toEqual({ annul: true });
    for (const role of SCANNER_KEY_ROLES) expect(keyRoleOfRights(rightsOf(role))).toBe(role);
  });

  it('is a key without the annul right before the first heartbeat', () => {
    expect(keyRoleOfRights(undefined)).toBe('scanner');
    expect(keyRoleOfRights(null)).toBe('scanner');
    expect(rightsAllow(undefined, 'issuer.annul')).toBe(false);
    expect(rightsAllow({ annul: true }, 'issuer.annul')).toBe(true);
    expect(rightsAllow({ annul: false }, 'issuer.entry')).toBe(true);
  });

  it('is the can_annul column (0 or 1) in the database, both ways', () => {
    expect(storedAnnulFlag('scanner')).toBe(0);
    expect(storedAnnulFlag('annulling_scanner')).toBe(1);
    expect(keyRoleOfStored(0)).toBe('scanner');
    expect(keyRoleOfStored(1)).toBe('annulling_scanner');
    for (const role of SCANNER_KEY_ROLES) expect(keyRoleOfStored(storedAnnulFlag(role))).toBe(role);
  });
});

describe("the kiosk's side (main/kiosk/decide/access.ts)", () => {
  it('is staff in front of the kiosk while unlocked or while no PIN is set, else anyone', () => {
    expect(roleAtKiosk({ pinSet: false, unlocked: false })).toBe('staff');
    expect(roleAtKiosk({ pinSet: false, unlocked: true })).toBe('staff');
    expect(roleAtKiosk({ pinSet: true, unlocked: true })).toBe('staff');
    expect(roleAtKiosk({ pinSet: true, unlocked: false })).toBe('anyone');
  });

  it('asks for the staff PIN for exactly the calls the table keeps from anyone', () => {
    const guarded = (callsOf('staff') as KioskCall[]).filter(needsStaff);
    expect(guarded.sort()).toEqual(
      [
        'setStaffPin',
        'lookupStatus',
        'confirmReEnroll',
        'resetCalibration',
        'calibrate',
        'setLanguage',
        'leaveKioskMode',
        'setDirection',
        'annul',
        'verifyLog',
        'configureLanes',
        'onsiteIssuer.init',
        'onsiteIssuer.start',
        'onsiteIssuer.stop',
        'onsiteIssuer.openAdmin',
        'onsiteIssuer.resetAdminToken',
        'closeKioskWindow',
      ].sort(),
    );
    expect(needsStaff('scan')).toBe(false);
    expect(needsStaff('onsiteIssuer.status')).toBe(false);
  });
});
