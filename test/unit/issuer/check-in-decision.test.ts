import { describe, expect, test } from 'vitest';
import type { ScannerCredential } from '../../../issuer/auth.js';
import {
  CHECK_IN_CHECKS,
  canonicalJson,
  decideCheckIn,
  requestHash,
  requestProblem,
  type CheckInBody,
  type CheckInCheckCode,
  type CheckInDecision,
  type CheckInFacts,
} from '../../../issuer/services/check-in-decision.js';
import type { CheckinRow } from '../../../issuer/store/checkins.js';
import type { TicketRow } from '../../../issuer/store/tickets.js';

const NOW = new Date('2026-05-01T20:00:00.000Z');
const KEY = '6f1c2a8e-4b7d-4c3e-9a1f-2b3c4d5e6f70';
const HOUR = 3600_000;

function baseFacts(): CheckInFacts {
  const credential: ScannerCredential = {
    apiKeyId: 'key_1',
    keyHash: 'ab',
    scannerId: 'scanner-1',
    eid: 'E1',
    gateId: null,
    role: 'steward',
  };
  const body: CheckInBody = { tid: 'T1', eid: 'E1', scanned_at: '2026-05-01T19:59:00.000Z', scanner_id: 'scanner-1', idempotency_key: KEY };
  const ticket: TicketRow = {
    tid: 'T1',
    eid: 'E1',
    kid: 'abcdef01',
    holder_name: 'Ada',
    ticket_type: 'VIP',
    issued_at: '2026-04-01T00:00:00.000Z',
    exp: Math.floor(NOW.getTime() / 1000) + 3600,
    qr: 'tkt1.x.y',
    revoked_at: null,
    revoke_reason: null,
  };
  return { now: NOW, credential, body, headerKey: undefined, prior: undefined, ticket, checkin: undefined };
}

/** The spec's checks: those a request without `action` (a spec scanner's entry) meets. */
const SPEC_CHECKS = [
  'api_key',
  'well_formed',
  'idempotency',
  'key_scope',
  'signature_reported',
  'ticket_known',
  'event',
  'not_revoked',
  'not_expired',
  'first_use',
] as const satisfies readonly CheckInCheckCode[];
type SpecCheck = (typeof SPEC_CHECKS)[number];

const checkin = (changes: Partial<CheckinRow> = {}): CheckinRow => ({
  tid: 'T1',
  checked_in_at: '2026-05-01T19:30:00.000Z',
  scanner_id: 'scanner-2',
  gate_id: null,
  api_key_id: 'key_2',
  idempotency_key: 'other',
  recorded_at: '2026-05-01T19:30:01.000Z',
  state: 'inside',
  state_at: '2026-05-01T19:30:00.000Z',
  first_checked_in_at: '2026-05-01T19:30:00.000Z',
  entries: 1,
  version: 3,
  ...changes,
});

/** For each check, a change of the facts that makes exactly that check apply. */
const MAKE_APPLY: Record<SpecCheck, (facts: CheckInFacts) => void> = {
  api_key: (f) => (f.credential = null),
  well_formed: (f) => (f.body.scanned_at = new Date(NOW.getTime() - 49 * HOUR).toISOString()),
  idempotency: (f) => (f.prior = { requestHash: 'a different request', httpStatus: 200, responseBody: '{}', scannerId: 'scanner-1' }),
  key_scope: (f) => f.credential && (f.credential.eid = 'E-OTHER'),
  signature_reported: (f) => (f.body.signature_status = 'invalid'),
  ticket_known: (f) => (f.ticket = undefined),
  event: (f) => f.ticket && (f.ticket.eid = 'E-ELSEWHERE'),
  not_revoked: (f) => f.ticket && (f.ticket.revoked_at = '2026-04-30T00:00:00.000Z'),
  not_expired: (f) => f.ticket && (f.ticket.exp = Math.floor(Date.parse('2026-05-01T19:00:00Z') / 1000)),
  first_use: (f) => (f.checkin = checkin()),
};

/** What each check answers when it applies. */
const EXPECTED: Record<SpecCheck, (d: CheckInDecision) => void> = {
  api_key: (d) => expect(d).toMatchObject({ kind: 'refuse', error: { code: 'UNAUTHORIZED', statusCode: 401 } }),
  well_formed: (d) => expect(d).toMatchObject({ kind: 'refuse', error: { code: 'INVALID_REQUEST', details: { field: 'scanned_at' } } }),
  idempotency: (d) => expect(d).toMatchObject({ kind: 'refuse', error: { code: 'IDEMPOTENCY_CONFLICT', statusCode: 409 } }),
  key_scope: (d) => expect(d).toMatchObject({ kind: 'answer', httpStatus: 403, body: { error: { code: 'FORBIDDEN' } } }),
  signature_reported: (d) =>
    expect(d).toMatchObject({
      kind: 'answer',
      httpStatus: 400,
      body: { error: { code: 'INVALID_REQUEST', details: { reason: 'invalid_signature' } } },
    }),
  ticket_known: (d) => expect(d).toMatchObject({ kind: 'answer', httpStatus: 404, body: { error: { code: 'NOT_FOUND' } } }),
  event: (d) =>
    expect(d).toMatchObject({
      kind: 'answer',
      httpStatus: 200,
      body: { status: 'wrong_event', ticket: { eid: 'E-ELSEWHERE', checked_in_at: null } },
    }),
  not_revoked: (d) =>
    expect(d).toMatchObject({ kind: 'answer', httpStatus: 200, body: { status: 'revoked', ticket: { checked_in_at: null } } }),
  not_expired: (d) =>
    expect(d).toMatchObject({ kind: 'answer', httpStatus: 200, body: { status: 'expired', ticket: { checked_in_at: null } } }),
  first_use: (d) =>
    expect(d).toMatchObject({
      kind: 'answer',
      httpStatus: 200,
      body: { status: 'already_used', ticket: { checked_in_at: '2026-05-01T19:30:00.000Z' } },
    }),
};

describe('check-in precedence (docs/protocol.md "Precedence")', () => {
  test("the list is the decisions' order, the spec's checks in the spec's order", () => {
    expect(CHECK_IN_CHECKS).toEqual([
      'api_key',
      'well_formed',
      'idempotency',
      'key_scope',
      'staff_badge',
      'action_right',
      'signature_reported',
      'ticket_known',
      'event',
      'not_revoked',
      'not_expired',
      'rules',
      'first_use',
      'capacity',
      'inside',
      'checked_in',
    ]);
    expect(CHECK_IN_CHECKS.filter((code) => (SPEC_CHECKS as readonly string[]).includes(code))).toEqual(SPEC_CHECKS);
  });

  test('nothing applies: valid, checked in at scanned_at, with only a valid storing a check-in', () => {
    const decision = decideCheckIn(baseFacts());
    expect(decision).toEqual({
      kind: 'answer',
      check: 'admit',
      outcome: 'valid',
      httpStatus: 200,
      body: {
        status: 'valid',
        ticket: { tid: 'T1', eid: 'E1', holder_name: 'Ada', ticket_type: 'VIP', checked_in_at: '2026-05-01T19:59:00.000Z' },
      },
      effect: { kind: 'enter', at: '2026-05-01T19:59:00.000Z', fromVersion: null },
    });
  });

  test.each(SPEC_CHECKS.map((code) => [code]))('%s alone decides with its own answer', (code) => {
    const facts = baseFacts();
    MAKE_APPLY[code](facts);
    const decision = decideCheckIn(facts);
    expect(decision.check).toBe(code);
    expect('effect' in decision && decision.effect).toBeFalsy();
    EXPECTED[code](decision);
  });

  const pairs = SPEC_CHECKS.flatMap((earlier, i) => SPEC_CHECKS.slice(i + 1).map((later) => [earlier, later] as const));
  test.each(pairs)('%s wins over %s', (earlier, later) => {
    const facts = baseFacts();
    MAKE_APPLY[later](facts);
    MAKE_APPLY[earlier](facts);
    const decision = decideCheckIn(facts);
    expect(decision.check).toBe(earlier);
    EXPECTED[earlier](decision);
  });

  test('a replay (same key, same body, same scanner) wins over every later check and returns the stored bytes', () => {
    const facts = baseFacts();
    const stored = '{"status":"valid","ticket":{"tid":"T1","eid":"E1","checked_in_at":"2026-05-01T19:00:00.000Z"}}';
    for (const later of SPEC_CHECKS.slice(3)) MAKE_APPLY[later](facts);
    facts.prior = { requestHash: requestHash(facts.body, KEY), httpStatus: 200, responseBody: stored, scannerId: 'scanner-1' };
    expect(decideCheckIn(facts)).toEqual({
      kind: 'replay',
      check: 'idempotency',
      outcome: 'replay',
      httpStatus: 200,
      responseBody: stored,
    });
  });

  test('a replay is honoured for another key of the same scanner, not for another scanner', () => {
    const facts = baseFacts();
    facts.prior = { requestHash: requestHash(facts.body, KEY), httpStatus: 404, responseBody: '{}', scannerId: 'scanner-1' };
    facts.credential = { ...facts.credential!, apiKeyId: 'key_new' };
    expect(decideCheckIn(facts).kind).toBe('replay');
    facts.credential = { ...facts.credential, scannerId: 'scanner-9' };
    EXPECTED.idempotency(decideCheckIn(facts));
  });

  test('expiry is judged at scanned_at: a scan queued before exp still admits after it', () => {
    const facts = baseFacts();
    facts.body.scanned_at = '2026-05-01T18:00:00.000Z';
    facts.ticket!.exp = Math.floor(Date.parse('2026-05-01T19:00:00Z') / 1000); // expired now, not at scanned_at
    expect(decideCheckIn(facts)).toMatchObject({ outcome: 'valid', effect: { kind: 'enter', at: '2026-05-01T18:00:00.000Z' } });
  });

  test('checked_in_at is scanned_at in UTC', () => {
    const facts = baseFacts();
    facts.body.scanned_at = '2026-05-01T21:59:00+02:00';
    expect(decideCheckIn(facts)).toMatchObject({ effect: { kind: 'enter', at: '2026-05-01T19:59:00.000Z' } });
  });

  test('a key scoped to a gate refuses another gate, accepts its own gate or none', () => {
    const facts = baseFacts();
    facts.credential!.gateId = 'north';
    expect(decideCheckIn(facts).outcome).toBe('valid');
    facts.body.gate_id = 'north';
    expect(decideCheckIn(facts).outcome).toBe('valid');
    facts.body.gate_id = 'south';
    expect(decideCheckIn(facts)).toMatchObject({ check: 'key_scope', httpStatus: 403 });
  });
});

describe('well-formedness beyond the schema (precedence 2)', () => {
  const body = (changes: Partial<CheckInBody> = {}): CheckInBody => ({ ...baseFacts().body, ...changes });
  test.each([
    ['body key alone', body(), undefined, null],
    ['header key alone', body({ idempotency_key: undefined }), KEY, null],
    ['both, equal', body(), KEY, null],
    ['both, different', body(), '0e1c2a8e-4b7d-4c3e-9a1f-2b3c4d5e6f70', 'idempotency_key'],
    ['neither', body({ idempotency_key: undefined }), undefined, 'idempotency_key'],
    ['not a UUID', body({ idempotency_key: 'abc' }), undefined, 'idempotency_key'],
    ['a UUID v1, not v4', body({ idempotency_key: '6f1c2a8e-4b7d-1c3e-9a1f-2b3c4d5e6f70' }), undefined, 'idempotency_key'],
    ['scanned 47 h ago', body({ scanned_at: new Date(NOW.getTime() - 47 * HOUR).toISOString() }), undefined, null],
    ['scanned 49 h ago', body({ scanned_at: new Date(NOW.getTime() - 49 * HOUR).toISOString() }), undefined, 'scanned_at'],
    ['scanned 4 min ahead', body({ scanned_at: new Date(NOW.getTime() + 4 * 60_000).toISOString() }), undefined, null],
    ['scanned 6 min ahead', body({ scanned_at: new Date(NOW.getTime() + 6 * 60_000).toISOString() }), undefined, 'scanned_at'],
    ['an annulment with a reason', body({ action: 'annul', reason: 'wrong person' }), undefined, null],
    ['a reason on an entry', body({ action: 'entry', reason: 'why' }), undefined, 'reason'],
    ['a blank reason', body({ action: 'annul', reason: '  ' }), undefined, 'reason'],
  ] as const)('%s', (_name, requestBody, headerKey, field) => {
    expect(requestProblem(requestBody, headerKey, NOW)?.field ?? null).toBe(field);
  });
});

describe('"same body" (precedence 3)', () => {
  test('ignores key order and whitespace, and where the key was sent', () => {
    const a = { tid: 'T1', eid: 'E1', scanned_at: 'x', scanner_id: 's', idempotency_key: KEY };
    const b = { idempotency_key: KEY, scanner_id: 's', scanned_at: 'x', eid: 'E1', tid: 'T1' };
    const headerOnly = { tid: 'T1', eid: 'E1', scanned_at: 'x', scanner_id: 's' };
    expect(requestHash(a, KEY)).toBe(requestHash(b, KEY));
    expect(requestHash(headerOnly, KEY)).toBe(requestHash(a, KEY));
    expect(requestHash({ ...a, gate_id: 'g' }, KEY)).not.toBe(requestHash(a, KEY));
  });

  test('canonical JSON sorts keys at every depth', () => {
    expect(canonicalJson({ b: [{ d: 1, c: null }], a: 'x' })).toBe('{"a":"x","b":[{"c":null,"d":1}]}');
  });
});

describe('door operations (docs/protocol.md "Door operations")', () => {
  const at = (time: string): string => `2026-05-01T${time}:00.000Z`;
  const facts = (changes: Partial<CheckInBody>, state?: Partial<CheckinRow>, door?: CheckInFacts['door'], insideNow?: number) => {
    const f = baseFacts();
    f.body = { ...f.body, ...changes };
    if (state) f.checkin = checkin(state);
    if (door) f.door = door;
    if (insideNow !== undefined) f.insideNow = insideNow;
    return f;
  };
  const REENTRY = { entry_policy: 'reentry', capacity: null } as const;
  const SINGLE = { entry_policy: 'single', capacity: null } as const;

  test('a spec entry (no action) gets the spec answer: no presence, no occupancy, never venue_full', () => {
    const d = decideCheckIn(facts({}, undefined, { entry_policy: 'single', capacity: 1 }, 5));
    expect(d).toMatchObject({ outcome: 'valid', body: { status: 'valid' } });
    expect(JSON.stringify('body' in d ? d.body : null)).not.toMatch(/presence|occupancy/);
  });

  test('an explicit entry carries presence and, with a capacity, occupancy after it', () => {
    const d = decideCheckIn(facts({ action: 'entry' }, undefined, { entry_policy: 'single', capacity: 10 }, 4));
    expect(d).toMatchObject({ outcome: 'valid', body: { ticket: { presence: 'inside' }, occupancy: { inside: 5, capacity: 10 } } });
  });

  test('venue_full at capacity for a live explicit entry; an entry admitted offline still counts in', () => {
    const full = { entry_policy: 'single', capacity: 10 } as const;
    expect(decideCheckIn(facts({ action: 'entry' }, undefined, full, 10))).toMatchObject({ check: 'capacity', outcome: 'venue_full' });
    expect(decideCheckIn(facts({ action: 'entry', admitted_offline: true }, undefined, full, 10))).toMatchObject({ outcome: 'valid' });
  });

  test('re-entry: out then in again is valid on reentry, already_used on single', () => {
    const out = { state: 'outside', state_at: at('19:40') } as const;
    expect(decideCheckIn(facts({ action: 'entry' }, out, REENTRY))).toMatchObject({
      outcome: 'valid',
      effect: { kind: 'enter', fromVersion: 3 },
    });
    expect(decideCheckIn(facts({ action: 'entry' }, out, SINGLE))).toMatchObject({
      outcome: 'already_used',
      body: { ticket: { checked_in_at: at('19:30'), presence: 'outside' } },
    });
  });

  test('an exit of a ticket inside is exited; outside, annulled or never in is not_inside', () => {
    expect(decideCheckIn(facts({ action: 'exit' }, {}))).toMatchObject({ outcome: 'exited', effect: { kind: 'exit', fromVersion: 3 } });
    expect(decideCheckIn(facts({ action: 'exit' }))).toMatchObject({ check: 'inside', outcome: 'not_inside' });
    expect(decideCheckIn(facts({ action: 'exit' }, { state: 'outside', state_at: at('19:40') }))).toMatchObject({ outcome: 'not_inside' });
    expect(decideCheckIn(facts({ action: 'exit' }, { state: 'annulled' }))).toMatchObject({ outcome: 'not_inside' });
  });

  test('exits and annulments of revoked or expired tickets are allowed', () => {
    const f = facts({ action: 'exit' }, {});
    f.ticket!.revoked_at = at('19:00');
    f.ticket!.exp = 1;
    expect(decideCheckIn(f).outcome).toBe('exited');
  });

  test('late scans are ordered by scanned_at and never override a newer state', () => {
    // An exit older than the current entry: history; the ticket stays inside.
    expect(
      decideCheckIn(facts({ action: 'exit', scanned_at: at('19:35') }, { state_at: at('19:50'), first_checked_in_at: at('19:30') })),
    ).toMatchObject({
      outcome: 'exited',
      effect: { kind: 'history', action: 'exit' },
      body: { ticket: { presence: 'inside' } },
    });
    // An exit older than the first entry: not_inside.
    expect(decideCheckIn(facts({ action: 'exit', scanned_at: at('19:10') }, {}))).toMatchObject({ outcome: 'not_inside' });
    // An entry older than the last exit (reentry): valid, history; the ticket stays outside.
    expect(
      decideCheckIn(facts({ action: 'entry', scanned_at: at('19:45') }, { state: 'outside', state_at: at('19:50') }, REENTRY)),
    ).toMatchObject({
      outcome: 'valid',
      effect: { kind: 'history', action: 'entry' },
    });
  });

  test('annul needs the right (403), something to annul, and is idempotent by state', () => {
    expect(decideCheckIn(facts({ action: 'annul', reason: 'wrong person' }, {}))).toMatchObject({
      check: 'action_right',
      httpStatus: 403,
      body: { error: { code: 'FORBIDDEN', details: { reason: 'action_not_allowed' } } },
    });
    const allowed = (f: CheckInFacts): CheckInFacts => ((f.credential = { ...f.credential!, role: 'supervisor' }), f);
    expect(decideCheckIn(allowed(facts({ action: 'annul' })))).toMatchObject({ check: 'checked_in', outcome: 'not_checked_in' });
    expect(decideCheckIn(allowed(facts({ action: 'annul' }, {})))).toMatchObject({
      outcome: 'annulled',
      effect: { kind: 'annul', fromVersion: 3, wasInside: true },
    });
    const again = decideCheckIn(allowed(facts({ action: 'annul' }, { state: 'annulled' })));
    expect(again).toMatchObject({ outcome: 'annulled', body: { ticket: { presence: 'annulled' } } });
    expect('effect' in again && again.effect).toBeFalsy();
  });

  test('a manual entry (docs/protocol.md "Ticket search") needs a supervisor\'s key or badge and is an entry like any other', () => {
    const manual = { action: 'entry' as const, manual_reason: 'QR code unreadable' };
    expect(decideCheckIn(facts(manual))).toMatchObject({
      check: 'action_right',
      httpStatus: 403,
      body: { error: { code: 'FORBIDDEN', details: { reason: 'action_not_allowed' } } },
    });
    const withBadge = facts(manual);
    withBadge.badge = { ok: true, sid: 'sup-anna', role: 'supervisor' };
    expect(decideCheckIn(withBadge)).toMatchObject({ outcome: 'valid', effect: { kind: 'enter' } });
    const supervisor = (f: CheckInFacts): CheckInFacts => ((f.credential = { ...f.credential!, role: 'supervisor' }), f);
    expect(decideCheckIn(supervisor(facts(manual)))).toMatchObject({ outcome: 'valid', effect: { kind: 'enter', fromVersion: null } });
    // Judged as an entry: a ticket inside is already used, whoever typed its name.
    expect(decideCheckIn(supervisor(facts(manual, {})))).toMatchObject({ check: 'first_use', outcome: 'already_used' });
    expect(decideCheckIn(supervisor(facts({ ...manual, manual_reason: ' ' })))).toMatchObject({ kind: 'refuse', check: 'well_formed' });
    expect(decideCheckIn(supervisor(facts({ action: 'exit', manual_reason: 'x' }, {})))).toMatchObject({
      kind: 'refuse',
      check: 'well_formed',
    });
  });

  test('after an annulment the ticket enters again, even on single', () => {
    expect(decideCheckIn(facts({ action: 'entry' }, { state: 'annulled' }, SINGLE))).toMatchObject({
      outcome: 'valid',
      effect: { kind: 'enter', fromVersion: 3 },
    });
  });
});

describe('check-in rules (docs/protocol.md "Check-in rules")', () => {
  const rules = {
    version: 1 as const,
    time_zone: 'UTC',
    rules: [{ name: 'Crew gate', ticket_types: ['VIP'], only_gates: ['C'], message: { en: 'Crew door only' } }],
  };
  const withRules = (body: Partial<CheckInBody>, checkin?: CheckinRow): CheckInFacts => {
    const f = baseFacts();
    return { ...f, body: { ...f.body, gate_id: 'A', ...body }, checkin, rules: { rules, entryTimes: [] } };
  };

  test('an explicit live entry a rule refuses is rule_refused, with the rule in words, and changes nothing', () => {
    const decision = decideCheckIn(withRules({ action: 'entry' }));
    expect(decision).toMatchObject({ kind: 'answer', check: 'rules', outcome: 'rule_refused', httpStatus: 200 });
    expect(decision.kind === 'answer' && decision.effect).toBeFalsy();
    expect(decision.kind === 'answer' && decision.body).toMatchObject({
      status: 'rule_refused',
      ticket: { checked_in_at: null, presence: null },
      rule: { code: 'wrong_gate', rule: 0, name: 'Crew gate', message: 'Crew door only', gates: ['C'] },
    });
  });

  test('a spec scanner (no action), an entry admitted offline and an exit are not judged by the rules', () => {
    expect(decideCheckIn(withRules({}))).toMatchObject({ outcome: 'valid' });
    expect(decideCheckIn(withRules({ action: 'entry', admitted_offline: true }))).toMatchObject({ outcome: 'valid' });
    expect(decideCheckIn(withRules({ action: 'entry', gate_id: 'C' }))).toMatchObject({ outcome: 'valid' });
  });

  test('comes after the expiry: an expired ticket is expired whatever the rules', () => {
    const f = withRules({ action: 'entry' });
    expect(decideCheckIn({ ...f, ticket: { ...f.ticket!, exp: 0 } })).toMatchObject({ outcome: 'expired' });
  });
});
