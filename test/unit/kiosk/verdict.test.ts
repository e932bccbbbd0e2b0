import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  CHECK_REASON,
  OFFLINE_CHECKS,
  admitVerdict,
  encodeBase64Url,
  encodeTicketCode,
  evaluateTicketOffline,
  kidFromPublicKey,
  offlineVerdict,
  publicKeyFromSecret,
  signEd25519,
  verdictFromCheckIn,
  type OfflineCheckCode,
  type OfflineContext,
  type PublicKey,
  type TicketPayload,
} from '../../../protocol/index.js';

const ISS = 'https://tickets.example.org';
const EID = '01JEVENT00000000000000000A';
const NOW = Date.parse('2026-06-01T20:00:00Z');
const SECRET = new Uint8Array(32).fill(7);
const OTHER_SECRET = new Uint8Array(32).fill(9);
const PUBLIC = publicKeyFromSecret(SECRET);
const KID = kidFromPublicKey(PUBLIC);
const KEY: PublicKey = {
  kid: KID,
  alg: 'Ed25519',
  public_key: encodeBase64Url(PUBLIC),
  valid_from: '2026-01-01T00:00:00Z',
  valid_until: null,
};

function payload(overrides: Partial<TicketPayload> = {}): TicketPayload {
  return {
    v: 1,
    iss: ISS,
    kid: KID,
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

function code(p: TicketPayload, secret = SECRET): string {
  return encodeTicketCode(p, (m) => signEd25519(m, secret));
}

function ctx(overrides: Partial<OfflineContext> = {}): OfflineContext {
  return { issuer: ISS, eid: EID, keys: [KEY], nowMs: NOW, admittedHereAt: () => undefined, ...overrides };
}

/** A ticket scenario: payload changes, signing key, and context changes. Faults compose. */
interface Scenario {
  payload: Partial<TicketPayload>;
  secret: typeof SECRET;
  ctx: Partial<OfflineContext>;
}
type Fault = (s: Scenario) => void;

// One fault per check after decoding, each making exactly that check fail.
const FAULTS: Partial<Record<OfflineCheckCode, Fault>> = {
  payload_version: (s) => void (s.payload.v = 2),
  issuer: (s) => void (s.payload.iss = 'https://evil.example'),
  key_known: (s) => void (s.payload.kid = 'deadbeef'),
  key_window: (s) => void (s.payload.iat = Date.parse('2025-06-01T00:00:00Z') / 1000),
  signature: (s) => void (s.secret = OTHER_SECRET),
  event: (s) => void (s.payload.eid = '01JOTHEREVENT0000000000000'),
  expiry: (s) => void (s.payload.exp = NOW / 1000 - 60),
  seen_here: (s) => void (s.ctx.admittedHereAt = () => '2026-06-01T19:30:00.000Z'),
  seen_by_peer: (s) => void (s.ctx.admittedByPeerAt = () => ({ admitted_at: '2026-06-01T19:31:00.000Z', gate: 'A', offline: true })),
};

function run(faults: Fault[]) {
  const s: Scenario = { payload: {}, secret: SECRET, ctx: {} };
  for (const f of faults) f(s);
  return evaluateTicketOffline(code(payload(s.payload), s.secret), ctx(s.ctx));
}

describe('offline verdict rules', () => {
  it('admits a good ticket', () => {
    const result = run([]);
    expect(result.pass).toBe(true);
  });

  it('a seen_by_peer refusal names the peer’s scanner and gate', () => {
    const peer = { admitted_at: '2026-06-01T19:31:00.000Z', gate: 'A', offline: true, scanner_id: 'scn_gate_a' };
    const result = evaluateTicketOffline(code(payload()), ctx({ admittedByPeerAt: () => peer }));
    expect(!result.pass && result.verdict).toMatchObject({
      reason: 'admitted_at_other_gate',
      first_used_gate: 'A',
      first_used_scanner: 'scn_gate_a',
      detail: 'admitted by scanner scn_gate_a at gate A on this LAN',
    });
  });

  it.each(Object.entries(FAULTS))('fault %s fails exactly that check', (check, fault) => {
    const result = run([fault]);
    expect(result.pass).toBe(false);
    if (result.pass) return;
    expect(result.check).toBe(check);
    expect(result.verdict.reason).toBe(CHECK_REASON[check as OfflineCheckCode]);
    expect(result.verdict.offline).toBe(true);
  });

  // Precedence table: for every pair of competing outcomes, the earlier check in OFFLINE_CHECKS wins.
  const ordered = OFFLINE_CHECKS.filter((c) => FAULTS[c]);
  const pairs = ordered.flatMap((first, i) => ordered.slice(i + 1).map((second) => [first, second] as const));
  it.each(pairs)('%s wins over %s', (first, second) => {
    const result = run([FAULTS[second]!, FAULTS[first]!]);
    expect(result.pass).toBe(false);
    if (!result.pass) expect(result.check).toBe(first);
  });

  it.each([
    ['', 'prefix'],
    ['hello world', 'prefix'],
    ['tsetup1.abc', 'prefix'],
    ['TKT1.abc.def', 'prefix'],
    ['tkt2.abc.def', 'prefix_version'],
    ['tkt1.', 'decode'],
    ['tkt1.abc', 'decode'],
    ['tkt1.!!!.def', 'decode'],
    ['tkt1.e30.' + encodeBase64Url(new Uint8Array(64)), 'decode'],
    ['tkt1.' + encodeBase64Url(new TextEncoder().encode('[1]')) + '.' + encodeBase64Url(new Uint8Array(64)), 'decode'],
  ])('garbage %j refused by %s', (text, check) => {
    const result = evaluateTicketOffline(text, ctx());
    expect(result.pass).toBe(false);
    if (!result.pass) {
      expect(result.check).toBe(check);
      expect(result.verdict.ticket).toBeUndefined();
    }
  });

  it('refuses a code mangled by a keyboard layout (one character swapped)', () => {
    const good = code(payload());
    const mangled = good.slice(0, 20) + (good[20] === 'A' ? 'B' : 'A') + good.slice(21);
    const result = evaluateTicketOffline(mangled, ctx());
    expect(result.pass).toBe(false);
    if (!result.pass) expect(['decode', 'signature']).toContain(result.check);
  });

  it('refuses a random-bytes payload segment', () => {
    const text = `tkt1.${encodeBase64Url(randomBytes(40))}.${encodeBase64Url(randomBytes(64))}`;
    const result = evaluateTicketOffline(text, ctx());
    expect(result.pass).toBe(false);
  });

  it('shows nothing from an unverified payload, but keeps the claim for reporting', () => {
    const result = run([FAULTS.signature!]);
    if (result.pass) throw new Error('expected a refusal');
    expect(result.verdict.ticket).toBeUndefined();
    expect(result.claimed?.tid).toBe('01JTICKET0000000000000000A');
    expect(result.signatureVerified).toBe(false);
  });

  it('names the ticket event on wrong_event', () => {
    const result = run([FAULTS.event!]);
    if (result.pass) throw new Error('expected a refusal');
    expect(result.verdict.reason).toBe('wrong_event');
    expect(result.verdict.ticket).toMatchObject({ eid: '01JOTHEREVENT0000000000000', event_name: 'Summer Gala', holder_name: 'Ada L.' });
  });

  it('gives the local time of first use on already_used', () => {
    const result = run([FAULTS.seen_here!]);
    if (result.pass) throw new Error('expected a refusal');
    expect(result.verdict).toMatchObject({ reason: 'already_used', first_used_at: '2026-06-01T19:30:00.000Z' });
  });

  describe('key validity windows', () => {
    const retired: PublicKey = { ...KEY, valid_from: '2026-01-01T00:00:00Z', valid_until: '2026-05-15T00:00:00Z' };
    it('a retired key still verifies tickets issued inside its window', () => {
      expect(evaluateTicketOffline(code(payload()), ctx({ keys: [retired] })).pass).toBe(true);
    });
    it('a retired key does not verify tickets issued after its window', () => {
      const late = payload({ iat: Date.parse('2026-05-20T00:00:00Z') / 1000 });
      const result = evaluateTicketOffline(code(late), ctx({ keys: [retired] }));
      expect(result.pass ? null : result.check).toBe('key_window');
    });
    it('a key that is not valid yet verifies nothing', () => {
      const future: PublicKey = { ...KEY, valid_from: '2026-07-01T00:00:00Z' };
      const result = evaluateTicketOffline(code(payload()), ctx({ keys: [future] }));
      expect(result.pass ? null : result.check).toBe('key_window');
    });
    it('picks the right key among several', () => {
      const other = publicKeyFromSecret(OTHER_SECRET);
      const otherKey: PublicKey = { ...KEY, kid: kidFromPublicKey(other), public_key: encodeBase64Url(other) };
      const p = payload({ kid: otherKey.kid });
      expect(evaluateTicketOffline(code(p, OTHER_SECRET), ctx({ keys: [KEY, otherKey] })).pass).toBe(true);
    });
  });

  it('expiry is inclusive of the exact second', () => {
    const p = payload({ exp: NOW / 1000 });
    expect(evaluateTicketOffline(code(p), ctx()).pass).toBe(true);
  });
});

describe('verdicts from the issuer and the offline policy', () => {
  const p = payload();
  const at = '2026-06-01T20:00:00.000Z';
  const ticket = { tid: p.tid, eid: p.eid };

  it.each([
    ['valid', 'admit', undefined],
    ['already_used', 'refuse', 'already_used'],
    ['revoked', 'refuse', 'revoked'],
    ['wrong_event', 'refuse', 'wrong_event'],
    ['expired', 'refuse', 'expired'],
    ['invalid_signature', 'refuse', 'invalid_signature'],
  ] as const)('status %s → %s %s', (status, kind, reason) => {
    const verdict = verdictFromCheckIn({ status, ticket }, p, at);
    expect(verdict.kind).toBe(kind);
    expect(verdict.offline).toBe(false);
    expect(verdict.decided_by).toBe('issuer');
    if (verdict.kind === 'refuse') expect(verdict.reason).toBe(reason);
  });

  it('already_used carries the issuer time of first use', () => {
    const verdict = verdictFromCheckIn({ status: 'already_used', ticket: { ...ticket, checked_in_at: '2026-06-01T19:01:00Z' } }, p, at);
    expect(verdict).toMatchObject({ kind: 'refuse', first_used_at: '2026-06-01T19:01:00Z' });
  });

  it('wrong_event names the other event and drops the payload event name', () => {
    const verdict = verdictFromCheckIn({ status: 'wrong_event', ticket: { ...ticket, eid: 'E2' } }, p, at);
    expect(verdict.ticket?.eid).toBe('E2');
    expect(verdict.ticket?.event_name).toBeUndefined();
  });

  it('issuer fields win over payload display fields', () => {
    const verdict = verdictFromCheckIn({ status: 'valid', ticket: { ...ticket, holder_name: 'Ada Lovelace' } }, p, at);
    expect(verdict.ticket).toMatchObject({ holder_name: 'Ada Lovelace', ticket_type: 'VIP', event_name: 'Summer Gala' });
  });

  it('optimistic policy admits offline; strict refuses with reason offline', () => {
    expect(offlineVerdict(p, 'optimistic', at)).toEqual(admitVerdict(p, true, at));
    expect(offlineVerdict(p, 'strict', at)).toMatchObject({ kind: 'refuse', reason: 'offline', offline: true });
  });
});
