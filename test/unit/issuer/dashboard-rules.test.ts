/** The dashboard's rules on their own (issuer/services/dashboard.ts, issuer/routes/admin/auth.ts, issuer/store/dashboard.ts). */
import { describe, expect, test } from 'vitest';
import { FailureLimiter, RecentlyValidKeys } from '../../../issuer/services/failed-authentications.js';
import { adminTokenProblem, newAdminToken } from '../../../issuer/services/admin-credential.js';
import {
  alertKindOf,
  isOnline,
  LATE_SCAN_MS,
  ONLINE_WINDOW_MS,
  RATE_MINUTES,
  scanDelayMs,
  scanRates,
} from '../../../issuer/services/dashboard.js';
import { escapeLike } from '../../../issuer/store/dashboard.js';

const at = '2026-12-01T20:10:00.000Z';
const secondsBefore = (seconds: number) => new Date(Date.parse(at) - seconds * 1000).toISOString();

describe('alerts', () => {
  test.each([
    ['invalid_signature', secondsBefore(1), 'forged_signature'],
    ['import_conflict', secondsBefore(3600), 'merged_double_admission'],
    ['revoked', secondsBefore(1), 'revoked_ticket'],
    ['wrong_event', secondsBefore(1), 'wrong_event'],
    ['already_used', secondsBefore(LATE_SCAN_MS / 1000 + 1), 'offline_double_admission'],
    ['already_used', secondsBefore(LATE_SCAN_MS / 1000), null],
    ['already_used', secondsBefore(2), null],
    ['valid', secondsBefore(3600), null],
    ['replay', secondsBefore(3600), null],
    ['expired', secondsBefore(1), null],
    ['not_found', secondsBefore(1), null],
  ] as const)('%s scanned %s → %s', (outcome, scannedAt, kind) => {
    expect(alertKindOf({ outcome, at, scanned_at: scannedAt })).toBe(kind);
  });

  test('an already_used without a readable scanned_at is no alert', () => {
    expect(alertKindOf({ outcome: 'already_used', at, scanned_at: null })).toBeNull();
    expect(alertKindOf({ outcome: 'already_used', at, scanned_at: 'yesterday' })).toBeNull();
    expect(scanDelayMs({ at, scanned_at: secondsBefore(90) })).toBe(90_000);
  });
});

describe('online', () => {
  const now = Date.parse(at);
  const key = { revoked_at: null, expires_at: '2026-12-02T00:00:00Z' };
  test('last contact within the window: online; older: not', () => {
    expect(isOnline(key, now - ONLINE_WINDOW_MS, now)).toBe(true);
    expect(isOnline(key, now - ONLINE_WINDOW_MS - 1, now)).toBe(false);
  });
  test('a revoked or expired key is never online', () => {
    expect(isOnline({ ...key, revoked_at: at }, now, now)).toBe(false);
    expect(isOnline({ ...key, expires_at: secondsBefore(1) }, now, now)).toBe(false);
  });
});

describe('scan rates', () => {
  test('last minute and per minute from 5-second slots; the current minute last', () => {
    const now = Date.parse('2026-12-01T20:10:42.000Z');
    const slots = new Map<number, number>([
      [Date.parse('2026-12-01T20:10:40.000Z'), 3], // current slot
      [Date.parse('2026-12-01T20:09:45.000Z'), 2], // 57 s ago: still in the last minute
      [Date.parse('2026-12-01T20:09:40.000Z'), 4], // 62 s ago: not
      [Date.parse('2026-12-01T19:50:00.000Z'), 9], // before the chart
    ]);
    const rates = scanRates(slots, now);
    expect(rates.last_minute).toBe(5);
    expect(rates.per_minute).toHaveLength(RATE_MINUTES);
    expect(rates.per_minute.at(-1)).toEqual({ minute: '2026-12-01T20:10:00.000Z', scans: 3 });
    expect(rates.per_minute.at(-2)).toEqual({ minute: '2026-12-01T20:09:00.000Z', scans: 6 });
    expect(rates.per_minute[0]!.minute).toBe('2026-12-01T19:56:00.000Z');
    expect(rates.per_minute.reduce((sum, m) => sum + m.scans, 0)).toBe(9);
  });
});

describe('failed admin sign-ins', () => {
  test('blocked after the limit within the window, free again after it; per key', () => {
    let now = 0;
    const limiter = new FailureLimiter(3, 60_000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(limiter.blockedForNow('a')).toBe(0);
      limiter.recordFailureNow('a');
    }
    expect(limiter.blockedForNow('a')).toBe(60_000);
    expect(limiter.blockedForNow('b')).toBe(0);
    now = 59_000;
    expect(limiter.blockedForNow('a')).toBe(1_000);
    now = 60_000;
    expect(limiter.blockedForNow('a')).toBe(0);
    limiter.recordFailureNow('a');
    expect(limiter.blockedForNow('a')).toBe(0);
  });
});

describe('attempts counted before the check', () => {
  test('check and count are one step: of a burst of attempts started before any finished, only the limit go on', () => {
    const limiter = new FailureLimiter(3, 60_000, () => 0);
    const burst = Array.from({ length: 10 }, () => limiter.attemptNow('a'));
    expect(burst.map((attempt) => attempt.wait === 0)).toEqual([true, true, true, false, false, false, false, false, false, false]);
    expect(burst[3]!.wait).toBe(60_000);
  });

  test('an attempt whose credential passed is taken back; one of a window that has ended is not', () => {
    let now = 0;
    const limiter = new FailureLimiter(2, 60_000, () => now);
    const first = limiter.attemptNow('a');
    limiter.attemptNow('a');
    expect(limiter.attemptNow('a').wait).toBeGreaterThan(0);
    limiter.passedNow('a', first.window);
    expect(limiter.attemptNow('a').wait).toBe(0);
    expect(limiter.attemptNow('a').wait).toBeGreaterThan(0);
    now = 60_000;
    const fresh = limiter.attemptNow('a');
    expect(fresh.wait).toBe(0);
    limiter.passedNow('a', first.window);
    limiter.attemptNow('a');
    expect(limiter.attemptNow('a').wait).toBeGreaterThan(0);
  });
});

describe('keys seen valid', () => {
  test('remembered for the time given, the oldest forgotten beyond the size', () => {
    let now = 0;
    const valid = new RecentlyValidKeys(1_000, 2, () => now);
    valid.add('a');
    valid.add('b');
    expect(valid.has('a')).toBe(true);
    valid.add('c');
    expect(valid.has('a')).toBe(false);
    expect(valid.has('b')).toBe(true);
    now = 1_000;
    expect(valid.has('c')).toBe(false);
  });
});

describe('admin tokens', () => {
  test('new tokens: prefixed, 256 bits, unique', () => {
    const token = newAdminToken();
    expect(token).toMatch(/^tva_[A-Za-z0-9_-]{43}$/);
    expect(newAdminToken()).not.toBe(token);
    expect(adminTokenProblem(token)).toBeNull();
  });
  test('a token from a file must be long and printable', () => {
    expect(adminTokenProblem('short')).toContain('at least 32');
    expect(adminTokenProblem(`${'x'.repeat(32)} y`)).toContain('printable');
    expect(adminTokenProblem('x'.repeat(32))).toBeNull();
  });
});

test('LIKE patterns: %, _ and \\ match themselves', () => {
  expect(escapeLike('100%_a\\b')).toBe('100\\%\\_a\\\\b');
});
