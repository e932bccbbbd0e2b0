/**
 * renderer/kiosk-types.ts mirrors main/kiosk/kiosk-api.ts (see why in that file). This test fails the
 * root typecheck (`npm run typecheck`) the moment the two differ, and the run if a failure code is new.
 */
import { describe, expect, it } from 'vitest';
import type * as Core from '../../../main/kiosk/kiosk-api.js';
import { ENROLL_FAILURES, type EnrollFailureCode as CoreEnrollFailureCode } from '../../../main/kiosk/enrollment.js';
import type * as Mirror from '../../../renderer/kiosk-types.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const contract: {
  api: Same<Core.KioskApi, Mirror.KioskApi>;
  state: Same<Core.KioskState, Mirror.KioskState>;
  scan: Same<Core.ScanResult, Mirror.ScanResult>;
  lookup: Same<Core.StatusLookupResult, Mirror.StatusLookupResult>;
  setup: Same<Core.SetupSummary, Mirror.SetupSummary>;
  connection: Same<Core.ConnectionState, Mirror.ConnectionState>;
  enrollFailure: Same<CoreEnrollFailureCode, Mirror.EnrollFailureCode>;
} = { api: true, state: true, scan: true, lookup: true, setup: true, connection: true, enrollFailure: true };

describe('bridge contract', () => {
  it('the renderer mirror equals the kiosk core types', () => {
    expect(Object.values(contract).every(Boolean)).toBe(true);
    expect(ENROLL_FAILURES.length).toBeGreaterThan(0);
  });
});
