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
import type { TicketRow } from '../../../issuer/store/tickets.js';

const NOW = new Date('2026-05-01T20:00:00.000Z');
const KEY = '6f1c2a8e-4b7d-4c3e-9a1f-2b3c4d5e6f70';
const HOUR = 3600_000;

function baseFacts(): CheckInFacts {
  const credential: ScannerCredential = { apiKeyId: 'key_1', keyHash: 'ab', scannerId: 'scanner-1', eid: 'E1', gateId: null };
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

/** For each check, a change of the facts that makes exactly that check apply. */
const MAKE_APPLY: Record<CheckInCheckCode, (facts: CheckInFacts) => void> = {
  api_key: (f) => (f.credential = null),
  well_formed: (f) => (f.body.scanned_at = new Date(NOW.getTime() - 49 * HOUR).toISOString()),
  idempotency: (f) => (f.prior = { requestHash: 'a different request', httpStatus: 200, responseBody: '{}', scannerId: 'scanner-1' }),
  key_scope: (f) => f.credential && (f.credential.eid = 'E-OTHER'),
  signature_reported: (f) => (f.body.signature_status = 'invalid'),
  ticket_known: (f) => (f.ticket = undefined),
  event: (f) => f.ticket && (f.ticket.eid = 'E-ELSEWHERE'),
  not_revoked: (f) => f.ticket && (f.ticket.revoked_at = '2026-04-30T00:00:00.000Z'),
  not_expired: (f) => f.ticket && (f.ticket.exp = Math.floor(Date.parse('2026-05-01T19:00:00Z') / 1000)),
  first_use: (f) =>
    (f.checkin = {
      tid: 'T1',
      checked_in_at: '2026-05-01T19:30:00.000Z',
      scanner_id: 'scanner-2',
      gate_id: null,
      api_key_id: 'key_2',
      idempotency_key: 'other',
      recorded_at: '2026-05-01T19:30:01.000Z',
    }),
};

/** What each check answers when it applies. */
const EXPECTED: Record<CheckInCheckCode, (d: CheckInDecision) => void> = {
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
  test("the list is the decisions' order", () => {
    expect(CHECK_IN_CHECKS).toEqual([
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
    ]);
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
      firstCheckIn: { checkedInAt: '2026-05-01T19:59:00.000Z' },
    });
  });

  test.each(CHECK_IN_CHECKS.map((code) => [code]))('%s alone decides with its own answer', (code) => {
    const facts = baseFacts();
    MAKE_APPLY[code](facts);
    const decision = decideCheckIn(facts);
    expect(decision.check).toBe(code);
    expect('firstCheckIn' in decision && decision.firstCheckIn).toBeFalsy();
    EXPECTED[code](decision);
  });

  const pairs = CHECK_IN_CHECKS.flatMap((earlier, i) => CHECK_IN_CHECKS.slice(i + 1).map((later) => [earlier, later] as const));
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
    for (const later of CHECK_IN_CHECKS.slice(3)) MAKE_APPLY[later](facts);
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
    expect(decideCheckIn(facts)).toMatchObject({ outcome: 'valid', firstCheckIn: { checkedInAt: '2026-05-01T18:00:00.000Z' } });
  });

  test('checked_in_at is scanned_at in UTC', () => {
    const facts = baseFacts();
    facts.body.scanned_at = '2026-05-01T21:59:00+02:00';
    expect(decideCheckIn(facts)).toMatchObject({ firstCheckIn: { checkedInAt: '2026-05-01T19:59:00.000Z' } });
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
