/** Door operations, the pure rules: exit offline checks, answers → verdicts, the offline exposure decision. */
import { describe, expect, it } from 'vitest';
import {
  ANSWERS_BY_ACTION,
  CHECK_DIRECTIONS,
  OFFLINE_CHECKS,
  ROLLING_HOUR_MS,
  admissionsLastHour,
  decideOfflineAdmission,
  decodeSetupCode,
  encodeBase64Url,
  encodeSetupCode,
  encodeTicketCode,
  evaluateTicketOffline,
  exposureRefusal,
  exposureRows,
  kidFromPublicKey,
  publicKeyFromSecret,
  signEd25519,
  utf8Encode,
  verdictFromCheckIn,
  type OfflineContext,
  type OfflinePolicies,
  type PublicKey,
  type TicketPayload,
} from '../../../protocol/index.js';

const ISS = 'https://tickets.example.org';
const EID = '01JEVENT00000000000000000A';
const NOW = Date.parse('2026-06-01T20:00:00Z');
const SECRET = new Uint8Array(32).fill(7);
const KEY: PublicKey = {
  kid: kidFromPublicKey(publicKeyFromSecret(SECRET)),
  alg: 'Ed25519',
  public_key: encodeBase64Url(publicKeyFromSecret(SECRET)),
  valid_from: '2026-01-01T00:00:00Z',
  valid_until: null,
};

function payload(overrides: Partial<TicketPayload> = {}): TicketPayload {
  return {
    v: 1,
    iss: ISS,
    kid: KEY.kid,
    tid: '01JTICKET0000000000000000A',
    eid: EID,
    ev: { name: 'Summer Gala', date: '2026-06-01T19:00:00Z', venue: 'Hall 1' },
    tt: 'VIP',
    hn: 'Ada L.',
    iat: Date.parse('2026-05-01T00:00:00Z') / 1000,
    exp: Date.parse('2026-06-02T08:00:00Z') / 1000,
    ...overrides,
  };
}

const code = (p: TicketPayload): string => encodeTicketCode(p, (m) => signEd25519(m, SECRET));
const ctx = (overrides: Partial<OfflineContext> = {}): OfflineContext => ({
  issuer: ISS,
  eid: EID,
  keys: [KEY],
  nowMs: NOW,
  admittedHereAt: () => undefined,
  ...overrides,
});

describe('exit scans offline', () => {
  it('skips only expiry, the revocation list, the check-in rules, "seen here" and "seen by a peer" for an exit; every check applies to an entry', () => {
    expect(OFFLINE_CHECKS.filter((check) => !CHECK_DIRECTIONS[check].includes('exit'))).toEqual([
      'expiry',
      'revoked_list',
      'rules',
      'seen_here',
      'seen_by_peer',
    ]);
    expect(OFFLINE_CHECKS.every((check) => CHECK_DIRECTIONS[check].includes('entry'))).toBe(true);
  });

  it('lets an expired ticket out, and one this kiosk never admitted', () => {
    const expired = code(payload({ exp: NOW / 1000 - 60 }));
    expect(evaluateTicketOffline(expired, ctx({ direction: 'exit' })).pass).toBe(true);
    expect(evaluateTicketOffline(expired, ctx())).toMatchObject({ pass: false, check: 'expiry' });
    const seen = ctx({ admittedHereAt: () => '2026-06-01T19:30:00Z' });
    expect(evaluateTicketOffline(code(payload()), { ...seen, direction: 'exit' }).pass).toBe(true);
    expect(evaluateTicketOffline(code(payload()), seen)).toMatchObject({ pass: false, check: 'seen_here' });
  });

  it('still refuses a forged ticket or one for another event at an exit', () => {
    const forged = encodeTicketCode(payload(), (m) => signEd25519(m, new Uint8Array(32).fill(9)));
    expect(evaluateTicketOffline(forged, ctx({ direction: 'exit' }))).toMatchObject({ pass: false, check: 'signature' });
    expect(evaluateTicketOffline(code(payload({ eid: 'OTHER' })), ctx({ direction: 'exit' }))).toMatchObject({
      pass: false,
      check: 'event',
    });
  });
});

describe('issuer answers → verdicts', () => {
  const answer = (status: string, extra: object = {}) =>
    ({ status, ticket: { tid: payload().tid, eid: EID, ticket_type: 'VIP' }, ...extra }) as Parameters<typeof verdictFromCheckIn>[0];
  const at = '2026-06-01T20:00:01Z';

  it('exited is the EXIT verdict; valid ADMIT', () => {
    expect(verdictFromCheckIn(answer('exited'), payload(), at)).toMatchObject({ kind: 'exit', offline: false, decided_by: 'issuer' });
    expect(verdictFromCheckIn(answer('valid'), payload(), at)).toMatchObject({ kind: 'admit' });
  });

  it.each(['not_inside', 'venue_full', 'already_used', 'wrong_event'] as const)('%s is a refusal with that reason', (status) => {
    expect(verdictFromCheckIn(answer(status), payload(), at)).toMatchObject({ kind: 'refuse', reason: status });
  });

  it('lists, per action, exactly the statuses of docs/protocol.md', () => {
    expect(ANSWERS_BY_ACTION.exit).toEqual(['exited', 'not_inside', 'wrong_event']);
    expect(ANSWERS_BY_ACTION.annul).toEqual(['annulled', 'not_checked_in', 'wrong_event']);
    expect(ANSWERS_BY_ACTION.entry).toContain('venue_full');
  });
});

describe('offline exposure decision', () => {
  const policies: OfflinePolicies = {
    default: { policy: 'offline' },
    by_type: { VIP: { policy: 'online-only' }, Day: { policy: 'capped', per_hour: 3 } },
  };
  const decide = (ticketType: string | undefined, admittedLastHour = 0, kioskPolicy: 'optimistic' | 'strict' = 'optimistic') =>
    decideOfflineAdmission({ kioskPolicy, policies, ticketType, admittedLastHour });

  it('online-only refuses with needs_connection; offline admits; a type without a policy takes the default', () => {
    expect(decide('VIP')).toMatchObject({ admit: false, reason: 'needs_connection', check: 'online_only' });
    expect(decide('Standard')).toMatchObject({ admit: true, policy: { policy: 'offline' } });
    expect(decide(undefined)).toMatchObject({ admit: true });
  });

  it('capped admits below the cap and refuses at it, with the count', () => {
    expect(decide('Day', 2)).toMatchObject({ admit: true });
    expect(decide('Day', 3)).toEqual({
      admit: false,
      check: 'hourly_cap',
      reason: 'offline_cap_reached',
      policy: policies.by_type['Day'],
      count: 3,
      cap: 3,
    });
    expect(decide('Day', 4)).toMatchObject({ admit: false, count: 4, cap: 3 });
  });

  it("the kiosk's strict option comes first", () => {
    expect(decide('Standard', 0, 'strict')).toMatchObject({ admit: false, reason: 'offline', check: 'kiosk_strict' });
  });

  it('the refusal verdict carries the count and cap', () => {
    const decision = decide('Day', 3);
    if (decision.admit) throw new Error('expected a refusal');
    expect(exposureRefusal(decision, payload({ tt: 'Day' }), '2026-06-01T20:00:00Z')).toMatchObject({
      kind: 'refuse',
      reason: 'offline_cap_reached',
      offline: true,
      decided_by: 'exposure_policy',
      offline_count: 3,
      offline_cap: 3,
    });
  });

  it('counts admissions in the rolling hour per type, and lists each type with its cap', () => {
    const iso = (ms: number): string => new Date(ms).toISOString();
    const counts = admissionsLastHour(
      [
        { ticket_type: 'Day', admitted_at: iso(NOW - ROLLING_HOUR_MS) }, // just outside
        { ticket_type: 'Day', admitted_at: iso(NOW - ROLLING_HOUR_MS + 1) },
        { ticket_type: null, admitted_at: iso(NOW - 1000) },
      ],
      NOW,
    );
    expect(counts).toEqual({ Day: 1, '': 1 });
    expect(exposureRows(policies, counts)).toEqual([
      { ticket_type: '', policy: 'offline', last_hour: 1, cap: null, unsynced: 0 },
      { ticket_type: 'Day', policy: 'capped', last_hour: 1, cap: 3, unsynced: 0 },
      { ticket_type: 'VIP', policy: 'online-only', last_hour: 0, cap: null, unsynced: 0 },
    ]);
    // Not yet synced: per type, a type with none this hour listed too.
    expect(exposureRows(policies, counts, { Day: 2, Late: 1 })).toEqual([
      { ticket_type: '', policy: 'offline', last_hour: 1, cap: null, unsynced: 0 },
      { ticket_type: 'Day', policy: 'capped', last_hour: 1, cap: 3, unsynced: 2 },
      { ticket_type: 'Late', policy: 'offline', last_hour: 0, cap: null, unsynced: 1 },
      { ticket_type: 'VIP', policy: 'online-only', last_hour: 0, cap: null, unsynced: 0 },
    ]);
  });
});

describe('setup code direction', () => {
  const base = { v: 1, iss: ISS, enroll_url: `${ISS}/api/v1/scanners/enroll`, token: 't', eid: EID, expires_at: '2026-06-02T00:00:00Z' };
  const raw = (fields: object): string => `tsetup1.${encodeBase64Url(utf8Encode(JSON.stringify({ ...base, ...fields })))}`;

  it('reads entry and exit, and absent as none', () => {
    expect(decodeSetupCode(encodeSetupCode({ ...base, direction: 'exit' })).direction).toBe('exit');
    expect(decodeSetupCode(raw({ direction: 'entry' })).direction).toBe('entry');
    expect(decodeSetupCode(raw({})).direction).toBeUndefined();
  });

  it('refuses any other value', () => {
    expect(() => decodeSetupCode(raw({ direction: 'sideways' }))).toThrow();
    expect(() => decodeSetupCode(raw({ direction: 1 }))).toThrow();
  });
});
