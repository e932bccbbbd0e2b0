/**
 * The pure part of "kiosks on one LAN warn each other" (main/kiosk/sync/lan-peers.ts):
 * encoding and signatures (each kiosk its own key, certified by the issuer), the replay window, the peer table that discovery and
 * configuration share, catch-up, and the offline check `seen_by_peer`.
 */
import { describe, expect, it } from 'vitest';
import {
  ADMISSIONS_PER_DATAGRAM,
  CATCHUP_LIMIT,
  canonicalBytes,
  decodeMessage,
  encodeMessage,
  EVENT_WINDOW_AFTER_MS,
  EVENT_WINDOW_BEFORE_MS,
  eventWindowOf,
  IGNORED_LINES_PER_MINUTE,
  IgnoredMessageLog,
  LanLogBudgets,
  LanPeerState,
  LEARNED_LINES_PER_MINUTE,
  type LanAdmission,
  type LanMessage,
} from '../../../main/kiosk/sync/lan-peers.js';
import { RECEIPTS_PER_DATAGRAM } from '../../../main/kiosk/sync/lan-receipts.js';
import { CHECK_REASON, OFFLINE_CHECKS } from '../../../protocol/index.js';
import { EID, member, NOW, OTHER_ISSUER, receiptFor, RETIRED_ISSUER, signerFor, type CertificateOptions } from './lan-fixtures.js';

/** A message signed by a kiosk certified for its `from` and `gate`. */
const sealed = (m: LanMessage): Buffer => encodeMessage(m, signerFor(m.from, m.gate));
const admission = (tid: string, at = '2026-07-18T21:03:00.000Z'): LanAdmission => ({ tid, admitted_at: at, gate: 'A', offline: true });
const A_ADDR = { address: '127.0.0.1', port: 41001 };
const B_ADDR = { address: '127.0.0.1', port: 41002 };

/** A kiosk at gate A, the gate the test admissions name (a kiosk tells only admissions at its own gate). */
function kiosk(
  scannerId: string,
  options: ConstructorParameters<typeof LanPeerState>[0] = {},
  certificate: CertificateOptions & { revoked?: Set<string> } = {},
): LanPeerState {
  const state = new LanPeerState(options);
  state.setMembership(member(scannerId, 'A', certificate));
  return state;
}

const message: LanMessage = {
  type: 'admit',
  eid: EID,
  from: 'scn_a',
  gate: 'A',
  seq: 7,
  ts: NOW,
  since: null,
  adm: [admission('T1')],
};

describe('LAN message encoding', () => {
  it('round-trips every field, with the certificate and a 64-byte signature', () => {
    const decoded = decodeMessage(sealed(message));
    expect(decoded).toMatchObject({ ok: true, message, cert: signerFor('scn_a', 'A').certificate });
    expect(decoded.ok && decoded.sig.length).toBe(64);
  });

  it('the canonical bytes are a fixed-order array, and every field changes them', () => {
    expect(canonicalBytes(message).toString()).toBe(
      JSON.stringify(['tvlan/2', 'admit', EID, 'scn_a', 'A', 7, NOW, null, [['T1', '2026-07-18T21:03:00.000Z', 'A', 1]]]),
    );
    const variants: Partial<LanMessage>[] = [
      { type: 'catchup_reply' },
      { eid: 'other' },
      { from: 'scn_b' },
      { gate: 'B' },
      { gate: null },
      { seq: 8 },
      { ts: NOW + 1 },
      { since: '2026-07-18T20:00:00.000Z' },
      { adm: [admission('T2')] },
      { adm: [{ ...admission('T1'), offline: false }] },
    ];
    const base = canonicalBytes(message).toString();
    for (const variant of variants) expect(canonicalBytes({ ...message, ...variant }).toString(), JSON.stringify(variant)).not.toBe(base);
  });

  it('refuses shapes it does not know, without throwing', () => {
    const wire = JSON.parse(sealed(message).toString()) as Record<string, unknown>;
    const bad = (patch: Record<string, unknown>): Buffer => Buffer.from(JSON.stringify({ ...wire, ...patch }));
    expect(decodeMessage(Buffer.from('not json'))).toEqual({ ok: false, problem: 'not JSON' });
    expect(decodeMessage(bad({ p: 'tvlan/1' }))).toMatchObject({ ok: false });
    expect(decodeMessage(bad({ type: 'admit_all' }))).toMatchObject({ ok: false, problem: 'unknown message type' });
    expect(decodeMessage(bad({ seq: -1 }))).toMatchObject({ ok: false, problem: 'bad sequence number' });
    expect(decodeMessage(bad({ adm: [['T1', 'yesterday', 'A', 1]] }))).toMatchObject({ ok: false, problem: 'bad admission' });
    expect(decodeMessage(bad({ sig: 'short' }))).toMatchObject({ ok: false, problem: 'bad signature field' });
    expect(decodeMessage(bad({ cert: 'x y' }))).toMatchObject({ ok: false, problem: 'bad certificate field' });
    expect(decodeMessage(Buffer.alloc(9000, 32))).toMatchObject({ ok: false });
  });
});

describe('receiving', () => {
  it('learns a peer admission from an authentic message, keeping the earliest', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    const handling = b.receive(a.build('admit', NOW, { adm: [admission('T1', '2026-07-18T21:03:00.000Z')] })!, A_ADDR, NOW);
    expect(handling).toMatchObject({ learned: 1 });
    expect(handling.log).toBeUndefined();
    b.receive(a.build('admit', NOW + 1, { adm: [admission('T1', '2026-07-18T21:05:00.000Z')] })!, A_ADDR, NOW + 1);
    expect(b.admissionOf('T1')).toEqual({ ...admission('T1', '2026-07-18T21:03:00.000Z'), scanner_id: 'scn_a' });
  });

  it('ignores and logs a forged message (a certificate the issuer did not sign)', () => {
    const forger = kiosk('scn_x', {}, { issuer: OTHER_ISSUER });
    const b = kiosk('scn_b');
    const handling = b.receive(forger.build('admit', NOW, { adm: [admission('T1')] })!, A_ADDR, NOW);
    expect(handling).toMatchObject({ learned: 0, logKind: 'forged' });
    expect(handling.log).toMatch(
      /^LAN admit from 127\.0\.0\.1:41001 \(scanner scn_x, seq \d+\) ignored: kiosk certificate key \w+ is not published/,
    );
    expect(b.admissionOf('T1')).toBeUndefined();
  });

  it('a real kiosk cannot speak for another scanner or gate, nor alter a message, nor speak once revoked', () => {
    const revoked = new Set<string>();
    const b = kiosk('scn_b', {}, { revoked });
    const a = signerFor('scn_a', 'A');
    const as = (m: LanMessage): Buffer => encodeMessage(m, a);
    expect(b.receive(as({ ...message, from: 'scn_c' }), A_ADDR, NOW).log).toMatch(/its certificate is for another scanner or gate/);
    expect(b.receive(as({ ...message, gate: 'B' }), A_ADDR, NOW).log).toMatch(/its certificate is for another scanner or gate/);
    // Signed by A, about an admission at gate B: not A's word to give.
    const atGateB = as({ ...message, adm: [{ ...admission('T1'), gate: 'B' }] });
    expect(b.receive(atGateB, A_ADDR, NOW)).toMatchObject({ learned: 0, logKind: 'forged', log: expect.stringMatching(/at another gate/) });
    const wire = JSON.parse(as(message).toString()) as Record<string, unknown>;
    const altered = Buffer.from(JSON.stringify({ ...wire, adm: [['T666', '2026-07-18T21:03:00.000Z', 'A', 1]] }));
    expect(b.receive(altered, A_ADDR, NOW)).toMatchObject({ learned: 0, logKind: 'forged', log: expect.stringMatching(/bad signature/) });
    const expired = encodeMessage({ ...message, seq: 8 }, signerFor('scn_a', 'A', { expMs: NOW - 1000 }));
    expect(b.receive(expired, A_ADDR, NOW).log).toMatch(/kiosk certificate has expired/);
    expect(b.knownAdmissions).toBe(0);
    expect(b.receive(as({ ...message, seq: 9 }), A_ADDR, NOW).learned).toBe(1);
    // The revocation list names scn_a: from the sync on, its messages are ignored.
    revoked.add('scn_a');
    const after = b.receive(as({ ...message, seq: 10, adm: [admission('T2')] }), A_ADDR, NOW);
    expect(after).toMatchObject({ learned: 0, logKind: 'revoked', log: expect.stringMatching(/scanner scn_a was revoked/) });
  });

  it('a revoked kiosk is sent nothing more: the peer list keeps it, unicast skips it', () => {
    const revoked = new Set<string>();
    const b = kiosk('scn_b', { peers: [B_ADDR] }, { revoked });
    b.receive(kiosk('scn_a').build('hello', NOW)!, A_ADDR, NOW);
    expect(b.destinations(NOW)).toEqual([B_ADDR, A_ADDR]);
    revoked.add('scn_a');
    // B_ADDR was configured and never spoke (no scanner known yet): it keeps its messages.
    expect(b.destinations(NOW)).toEqual([B_ADDR]);
  });

  it('ignores and logs a message for another event', () => {
    const other = new LanPeerState();
    other.setMembership(member('scn_x', 'X', { eid: 'evt_other' }));
    const handling = kiosk('scn_b').receive(other.build('admit', NOW, { adm: [admission('T1')] })!, A_ADDR, NOW);
    expect(handling.log).toMatch(/ignored: for another event \(evt_other\)/);
    expect(handling.learned).toBe(0);
  });

  it('ignores and logs a replay: an older sequence number', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    const first = a.build('admit', NOW, { adm: [admission('T1')] })!;
    const second = a.build('admit', NOW, { adm: [admission('T2')] })!;
    expect(b.receive(second, A_ADDR, NOW).learned).toBe(1);
    const older = b.receive(first, A_ADDR, NOW);
    expect(older).toMatchObject({ learned: 0, logKind: 'replayed' });
    expect(older.log).toMatch(/ignored: replayed \(sequence not newer than \d+\)/);
    expect(b.admissionOf('T1')).toBeUndefined();
  });

  it('the same datagram twice in a row (multicast and unicast) is one message: nothing logged, nothing done twice', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    const hello = a.build('hello', NOW)!;
    expect(b.receive(hello, A_ADDR, NOW).send).toHaveLength(2); // answered once: hello back and a catch-up request
    expect(b.receive(hello, { address: '127.0.0.1', port: 47474 }, NOW)).toEqual({ send: [], learned: 0 });
    // Same sender and seq but other bytes: not a copy, a replay (or a forgery with the key): logged.
    const admit = a.build('admit', NOW, { adm: [admission('T1')] })!;
    expect(b.receive(admit, A_ADDR, NOW).learned).toBe(1);
    const decoded = decodeMessage(admit);
    const twin = { ...(decoded.ok ? decoded.message : message), adm: [admission('T9')] };
    expect(b.receive(sealed(twin), A_ADDR, NOW).log).toMatch(/ignored: replayed/);
    expect(b.admissionOf('T9')).toBeUndefined();
  });

  it('a sequence number far ahead of the sender’s clock is refused, and does not silence the sender', () => {
    const b = kiosk('scn_b');
    const huge: LanMessage = { ...message, seq: Number.MAX_SAFE_INTEGER, adm: [admission('T5')] };
    const handling = b.receive(sealed(huge), A_ADDR, NOW);
    expect(handling).toMatchObject({ learned: 0, logKind: 'replayed' });
    expect(handling.log).toMatch(/sequence number 9007199254740991 runs ahead of its clock/);
    // The real scn_a is still heard.
    expect(b.receive(kiosk('scn_a').build('admit', NOW, { adm: [admission('T1')] })!, A_ADDR, NOW).learned).toBe(1);
  });

  it('admission and annulment times must fall in the event window and not after now plus the replay window', () => {
    const window = eventWindowOf('2026-07-18T18:00:00Z', '2026-07-19T06:00:00Z');
    expect(window).toEqual({
      fromMs: Date.parse('2026-07-18T18:00:00Z') - EVENT_WINDOW_BEFORE_MS,
      toMs: Date.parse('2026-07-18T18:00:00Z') + EVENT_WINDOW_AFTER_MS,
    });
    expect(eventWindowOf('2026-07-18T18:00:00Z', '2026-08-01T00:00:00Z').toMs).toBe(Date.parse('2026-08-01T00:00:00Z'));
    const b = new LanPeerState();
    b.setMembership(member('scn_b', 'scn_b', { eventWindow: window }));
    const a = kiosk('scn_a');
    const old = b.receive(a.build('admit', NOW, { adm: [admission('T1', '2020-01-01T00:00:00.000Z')] })!, A_ADDR, NOW);
    expect(old).toMatchObject({ learned: 0, logKind: 'replayed' });
    expect(old.log).toMatch(/time 2020-01-01T00:00:00\.000Z is outside the event's window/);
    const future = new Date(NOW + 61_000).toISOString();
    expect(b.receive(a.build('admit', NOW + 1, { adm: [admission('T1', future)] })!, A_ADDR, NOW + 1).log).toMatch(/is in the future/);
    // A far-future annulment forgets nothing, and an admission told later is still learned.
    b.receive(a.build('admit', NOW + 2, { adm: [admission('T2')] })!, A_ADDR, NOW + 2);
    const annul = b.receive(a.build('annul', NOW + 3, { adm: [admission('T2', '2099-01-01T00:00:00.000Z')] })!, A_ADDR, NOW + 3);
    expect(annul.log).toMatch(/in the future/);
    expect(b.admissionOf('T2')).toBeDefined();
    expect(
      b.receive(a.build('admit', NOW + 4, { adm: [admission('T3', new Date(NOW + 30_000).toISOString())] })!, A_ADDR, NOW + 4).learned,
    ).toBe(1);
  });

  it('gate, scanner and ticket texts obey the label rules: no control or direction characters', () => {
    const b = kiosk('scn_b');
    for (const patch of [
      { gate: 'VIP\u202Eexit' },
      { from: 'scn\u0000a' },
      { adm: [{ ...admission('T1'), gate: 'A\u2066' }] },
      { adm: [admission('T\n1')] },
    ]) {
      const bad: LanMessage = { ...message, ...patch };
      const handling = b.receive(sealed(bad), A_ADDR, NOW);
      expect(handling, JSON.stringify(patch)).toMatchObject({ learned: 0, logKind: 'malformed' });
    }
    expect(b.knownAdmissions).toBe(0);
    // Letters, marks and emoji are fine.
    expect(
      b.receive(sealed({ ...message, gate: 'Tor Süd 🎟', adm: [{ ...admission('T1'), gate: 'Tor Süd 🎟' }] }), A_ADDR, NOW).learned,
    ).toBe(1);
  });

  it('reports each admission learned, with the peer that told it', () => {
    const b = kiosk('scn_b');
    const handling = b.receive(kiosk('scn_a').build('admit', NOW, { adm: [admission('T1'), admission('T2')] })!, A_ADDR, NOW);
    expect(handling.learnedAdmissions?.map((a) => [a.tid, a.scanner_id])).toEqual([
      ['T1', 'scn_a'],
      ['T2', 'scn_a'],
    ]);
    const lines = new LanLogBudgets().lines(handling, A_ADDR, NOW);
    expect(lines[0]).toBe(
      'LAN: learned admission of ticket T1 at gate A, 2026-07-18T21:03:00.000Z (offline), from scanner scn_a (127.0.0.1:41001).',
    );
  });

  it('ignores and logs a message whose timestamp is outside the window, either way', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b', { replayWindowMs: 60_000 });
    expect(b.receive(a.build('admit', NOW - 61_000, { adm: [admission('T1')] })!, A_ADDR, NOW).log).toMatch(/timestamp -61 s off/);
    expect(b.receive(a.build('admit', NOW + 61_000, { adm: [admission('T2')] })!, A_ADDR, NOW).log).toMatch(/timestamp 61 s off/);
    // A sender whose clock stays put (`a` above ran 61 s ahead: its seq now runs ahead of an earlier ts).
    expect(b.receive(kiosk('scn_a').build('admit', NOW - 59_000, { adm: [admission('T3')] })!, A_ADDR, NOW).learned).toBe(1);
  });

  it('says nothing about its own messages looped back, and nothing before it has joined', () => {
    const a = kiosk('scn_a');
    expect(a.receive(a.build('admit', NOW, { adm: [admission('T1')] })!, A_ADDR, NOW)).toEqual({ send: [], learned: 0 });
    const notJoined = new LanPeerState();
    expect(notJoined.receive(a.build('hello', NOW)!, A_ADDR, NOW)).toEqual({ send: [], learned: 0 });
    expect(notJoined.build('hello', NOW)).toBeNull();
  });

  it('sequence numbers keep increasing across a restart (they start from the clock)', () => {
    const before = kiosk('scn_a');
    const b = kiosk('scn_b');
    b.receive(before.build('hello', NOW)!, A_ADDR, NOW);
    b.receive(before.build('hello', NOW)!, A_ADDR, NOW);
    const restarted = kiosk('scn_a');
    expect(b.receive(restarted.build('admit', NOW + 5, { adm: [admission('T1')] })!, A_ADDR, NOW + 5).learned).toBe(1);
  });

  it('a new event forgets what peers said about the old one', () => {
    const b = kiosk('scn_b');
    b.receive(kiosk('scn_a').build('admit', NOW, { adm: [admission('T1')] })!, A_ADDR, NOW);
    b.setMembership(member('scn_b', 'B', { eid: 'evt_next' }));
    expect(b.admissionOf('T1')).toBeUndefined();
  });
});

describe('the log of ignored messages', () => {
  it('writes the first lines of a minute, counts the rest, and says the count once the minute is over', () => {
    const log = new IgnoredMessageLog();
    const written: string[] = [];
    for (let i = 0; i < 500; i++) written.push(...log.lines(`forged ${i}`, NOW + i));
    expect(written).toEqual(Array.from({ length: IGNORED_LINES_PER_MINUTE }, (_, i) => `forged ${i}`));
    expect(log.due(NOW + 59_999)).toEqual([]);
    // The flood stopped: the timer tells the count; once only.
    const summary = log.due(NOW + 60_000);
    expect(summary).toHaveLength(1);
    expect(summary[0]).toContain(`${500 - IGNORED_LINES_PER_MINUTE} more message(s) ignored in the last minute`);
    expect(log.due(NOW + 120_000)).toEqual([]);
    // A new minute writes its first lines again.
    expect(log.lines('replayed', NOW + 130_000)).toEqual(['replayed']);
  });

  it('a message after a flooded minute brings the count first, then its own line', () => {
    const log = new IgnoredMessageLog(2);
    for (let i = 0; i < 5; i++) log.lines(`bad MAC ${i}`, NOW);
    const lines = log.lines('for another event', NOW + 61_000);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^LAN: 3 more message\(s\) ignored/);
    expect(lines[1]).toBe('for another event');
  });
});

describe('the log budgets', () => {
  const forged = { send: [], learned: 0, log: 'LAN admit … ignored: bad MAC', logKind: 'forged' as const };
  const replayed = { send: [], learned: 0, log: 'LAN admit … ignored: replayed', logKind: 'replayed' as const };

  it('a flood of forged datagrams does not use up the lines of replayed ones', () => {
    const budgets = new LanLogBudgets();
    const written: string[] = [];
    for (let i = 0; i < 1000; i++) written.push(...budgets.lines(forged, A_ADDR, NOW + i));
    written.push(...budgets.lines(replayed, A_ADDR, NOW + 1000));
    expect(written.filter((line) => line.includes('bad MAC'))).toHaveLength(IGNORED_LINES_PER_MINUTE);
    expect(written.at(-1)).toBe(replayed.log);
    const summary = budgets.due(NOW + 60_000);
    expect(summary).toEqual([
      `LAN: ${1000 - IGNORED_LINES_PER_MINUTE} more message(s) with a bad certificate or signature (forged) ignored in the last minute, not logged one by one.`,
    ]);
  });

  it('a revoked kiosk saying hello every few seconds does not use up the lines of forged datagrams', () => {
    const budgets = new LanLogBudgets();
    const revokedHello = { send: [], learned: 0, log: 'LAN hello … ignored: scanner scn_a was revoked', logKind: 'revoked' as const };
    const written: string[] = [];
    for (let i = 0; i < 12; i++) written.push(...budgets.lines(revokedHello, A_ADDR, NOW + i * 5000));
    written.push(...budgets.lines(forged, A_ADDR, NOW + 59_000));
    expect(written.filter((line) => line.includes('was revoked'))).toHaveLength(IGNORED_LINES_PER_MINUTE);
    expect(written.at(-1)).toBe(forged.log);
    expect(budgets.due(NOW + 60_000)).toEqual([
      `LAN: ${12 - IGNORED_LINES_PER_MINUTE} more message(s) from revoked kiosks ignored in the last minute, not logged one by one.`,
    ]);
  });

  it('learned admissions have a budget of their own, counted beyond it', () => {
    const budgets = new LanLogBudgets();
    const many = Array.from({ length: 100 }, (_, i) => ({ ...admission(`T${i}`), scanner_id: 'scn_a' }));
    const lines = budgets.lines({ send: [], learned: 100, learnedAdmissions: many }, A_ADDR, NOW);
    expect(lines).toHaveLength(LEARNED_LINES_PER_MINUTE);
    expect(budgets.due(NOW + 60_000)).toEqual([
      `LAN: ${100 - LEARNED_LINES_PER_MINUTE} more admission(s) learned from peers in the last minute, not logged one by one.`,
    ]);
  });
});

describe('discovery and catch-up', () => {
  it('a hello from a kiosk it never heard adds it to the same peer list configured peers are in, and is answered', () => {
    const b = kiosk('scn_b', { peers: [B_ADDR] });
    expect(b.destinations(NOW)).toEqual([B_ADDR]);
    const handling = b.receive(kiosk('scn_a').build('hello', NOW)!, A_ADDR, NOW);
    expect(b.destinations(NOW)).toEqual([B_ADDR, A_ADDR]);
    // A hello back and a catch-up request, both to the new peer only.
    expect(
      handling.send.map((s) => [s.to, decodeMessage(s.bytes).ok && (decodeMessage(s.bytes) as { message: LanMessage }).message.type]),
    ).toEqual([
      [A_ADDR, 'hello'],
      [A_ADDR, 'catchup'],
    ]);
    // Heard recently: no answer to its next hello.
    expect(b.receive(kiosk('scn_a').build('hello', NOW + 5000)!, A_ADDR, NOW + 5000).send).toEqual([]);
  });

  it('a discovered peer silent past the timeout is dropped; a configured one stays', () => {
    const b = kiosk('scn_b', { peers: [B_ADDR], peerTimeoutMs: 20_000 });
    b.receive(kiosk('scn_a').build('hello', NOW)!, A_ADDR, NOW);
    expect(b.destinations(NOW + 20_000)).toHaveLength(2);
    expect(b.destinations(NOW + 20_001)).toEqual([B_ADDR]);
  });

  it('a peer heard again after a silence is asked from a minute before it was last heard', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b', { peerTimeoutMs: 20_000 });
    b.receive(a.build('hello', NOW)!, A_ADDR, NOW);
    const later = NOW + 10 * 60_000;
    const ask = b.receive(a.build('hello', later)!, A_ADDR, later).send.find((s) => s.bytes.includes('"catchup"'));
    const decoded = decodeMessage(ask!.bytes);
    expect(decoded.ok && decoded.message.since).toBe(new Date(NOW - 60_000).toISOString());
  });

  it('a catch-up request is handed to the kiosk to answer, at most once per sender in two seconds', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    const since = '2026-07-18T20:00:00.000Z';
    expect(b.receive(a.build('catchup', NOW, { since })!, A_ADDR, NOW).catchupFrom).toEqual({ to: A_ADDR, since });
    expect(b.receive(a.build('catchup', NOW + 1000, { since })!, A_ADDR, NOW + 1000).catchupFrom).toBeUndefined();
    expect(b.receive(a.build('catchup', NOW + 2000, { since })!, A_ADDR, NOW + 2000).catchupFrom).toEqual({ to: A_ADDR, since });
  });

  it('a catch-up answer holds the newest admissions, bounded, in small datagrams the asker learns from', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    const own = Array.from({ length: CATCHUP_LIMIT + 50 }, (_, i) => admission(`T${i}`, new Date(NOW - i * 1000).toISOString()));
    const replies = a.catchupReplies(own, NOW);
    expect(replies).toHaveLength(Math.ceil(CATCHUP_LIMIT / ADMISSIONS_PER_DATAGRAM));
    for (const reply of replies) expect(reply.length).toBeLessThan(1400); // no IP fragmentation on Ethernet
    let learned = 0;
    for (const reply of replies) learned += b.receive(reply, A_ADDR, NOW).learned;
    expect(learned).toBe(CATCHUP_LIMIT);
    expect(b.admissionOf('T0')).toBeDefined();
    expect(b.admissionOf(`T${CATCHUP_LIMIT}`)).toBeUndefined(); // the oldest beyond the bound
  });
});

describe('annulments', () => {
  // Admission and annulment times in the past of NOW (a peer's time may not be in the future).
  const at = (minutes: number): string => new Date(NOW + (minutes - 10) * 60_000).toISOString();

  it('an annul message forgets the admissions made up to it, and an admission made after it stands', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    b.receive(a.build('admit', NOW, { adm: [admission('T1', at(0)), admission('T2', at(0))] })!, A_ADDR, NOW);
    const handling = b.receive(a.build('annul', NOW + 1, { adm: [admission('T1', at(1)), admission('T9', at(1))] })!, A_ADDR, NOW + 1);
    expect(handling).toMatchObject({ forgotten: 1, learned: 0 });
    expect(handling.log).toBeUndefined();
    expect(b.admissionOf('T1')).toBeUndefined();
    expect(b.admissionOf('T2')).toBeDefined();
    // Admitted again after the annulment (at A or anywhere): a new admission, known again.
    expect(b.receive(a.build('admit', NOW + 2, { adm: [admission('T1', at(2))] })!, A_ADDR, NOW + 2).learned).toBe(1);
  });

  it('an admission heard late (a catch-up answer) but made before its kiosk’s known annulment is not learned', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    b.receive(a.build('annul', NOW, { adm: [admission('T1', at(5))] })!, A_ADDR, NOW);
    expect(b.receive(a.build('catchup_reply', NOW + 1, { adm: [admission('T1', at(1))] })!, A_ADDR, NOW + 1).learned).toBe(0);
    expect(b.admissionOf('T1')).toBeUndefined();
  });

  it('a forged annulment (a certificate the issuer did not sign) forgets nothing', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    b.receive(a.build('admit', NOW, { adm: [admission('T1', at(0))] })!, A_ADDR, NOW);
    const forger = kiosk('scn_x', {}, { issuer: OTHER_ISSUER });
    const handling = b.receive(forger.build('annul', NOW + 1, { adm: [admission('T1', at(1))] })!, B_ADDR, NOW + 1);
    expect(handling.log).toMatch(/ignored: kiosk certificate key \w+ is not published/);
    expect(b.admissionOf('T1')).toBeDefined();
  });

  it('an annulment from another kiosk than the one that admitted forgets nothing, nor blocks learning it later', () => {
    const a = kiosk('scn_a');
    const c = kiosk('scn_c');
    const b = kiosk('scn_b');
    b.receive(a.build('admit', NOW, { adm: [admission('T1', at(0))] })!, A_ADDR, NOW);
    expect(b.receive(c.build('annul', NOW + 1, { adm: [admission('T1', at(1)), admission('T2', at(1))] })!, B_ADDR, NOW + 1)).toMatchObject(
      {
        forgotten: 0,
      },
    );
    expect(b.admissionOf('T1')).toMatchObject({ scanner_id: 'scn_a' });
    expect(b.receive(a.build('admit', NOW + 2, { adm: [admission('T2', at(0))] })!, A_ADDR, NOW + 2).learned).toBe(1);
  });

  it('a catch-up answer ends with the answering kiosk’s annulments, which the asker applies', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    b.receive(a.build('admit', NOW, { adm: [admission('T7', at(0))] })!, A_ADDR, NOW);
    const replies = a.catchupReplies([admission('T1', at(0))], NOW + 1, [admission('T7', at(1))]);
    expect(replies.map((reply) => (decodeMessage(reply) as { message: LanMessage }).message.type)).toEqual(['catchup_reply', 'annul']);
    for (const reply of replies) b.receive(reply, A_ADDR, NOW + 1);
    expect(b.admissionOf('T1')).toBeDefined();
    expect(b.admissionOf('T7')).toBeUndefined();
  });
});

describe("annulments with the issuer's receipt", () => {
  const at = (minutes: number): string => new Date(NOW + (minutes - 10) * 60_000).toISOString();
  const annulled = (tid: string, minutes: number, receipt: string): LanAdmission => ({ ...admission(tid, at(minutes)), receipt });

  it('an annul from any kiosk of the event, with a receipt, forgets the ticket’s admissions up to it whoever made them', () => {
    const a = kiosk('scn_a');
    const c = kiosk('scn_c');
    const b = kiosk('scn_b');
    b.receive(a.build('admit', NOW, { adm: [admission('T1', at(0)), admission('T2', at(0))] })!, A_ADDR, NOW);
    const receipt = receiptFor('T1', { annulledAtMs: Date.parse(at(1)) });
    const bytes = c.build('annul', NOW + 1, { adm: [annulled('T1', 1, receipt)] })!;
    // The receipt travels with the annulment.
    expect((decodeMessage(bytes) as { message: LanMessage }).message.adm[0]!.receipt).toBe(receipt);
    const handling = b.receive(bytes, B_ADDR, NOW + 1);
    expect(handling).toMatchObject({ forgotten: 1 });
    expect(handling.log).toBeUndefined();
    expect(b.admissionOf('T1')).toBeUndefined();
    expect(b.admissionOf('T2')).toMatchObject({ scanner_id: 'scn_a' });
    // Told late (a catch-up answer), an admission made before the annulment is not learned, whoever made it...
    expect(b.receive(a.build('catchup_reply', NOW + 2, { adm: [admission('T1', at(0))] })!, A_ADDR, NOW + 2).learned).toBe(0);
    // ...and one made after it stands.
    expect(b.receive(a.build('admit', NOW + 3, { adm: [admission('T1', at(2))] })!, A_ADDR, NOW + 3).learned).toBe(1);
  });

  it('another kiosk’s admission after the annulment stands, even when heard before it', () => {
    const a = kiosk('scn_a');
    const c = kiosk('scn_c');
    const d = kiosk('scn_d');
    const b = kiosk('scn_b');
    b.receive(a.build('admit', NOW, { adm: [admission('T1', at(0))] })!, A_ADDR, NOW);
    // D admitted the holder after the annulment; its word arrives first (a catch-up answer, say).
    expect(b.receive(d.build('catchup_reply', NOW + 1, { adm: [admission('T1', at(2))] })!, B_ADDR, NOW + 1).learned).toBe(0);
    expect(b.admissionOf('T1')).toMatchObject({ scanner_id: 'scn_a' });
    const receipt = receiptFor('T1', { annulledAtMs: Date.parse(at(1)) });
    expect(b.receive(c.build('annul', NOW + 2, { adm: [annulled('T1', 1, receipt)] })!, B_ADDR, NOW + 2).forgotten).toBe(1);
    expect(b.admissionsOf('T1')).toEqual([expect.objectContaining({ scanner_id: 'scn_d', admitted_at: at(2) })]);
  });

  it('a receipt that does not hold leaves only the sender’s own word, with a log line', () => {
    const a = kiosk('scn_a');
    const c = kiosk('scn_c');
    const b = kiosk('scn_b');
    b.receive(a.build('admit', NOW, { adm: [admission('T1', at(0))] })!, A_ADDR, NOW);
    const bad: Array<[string, RegExp]> = [
      [receiptFor('T1', { issuer: OTHER_ISSUER }), /key_known/],
      [receiptFor('T1', { eid: 'evt_other' }), /event/],
      [receiptFor('T2'), /ticket/],
      [receiptFor('T1', { issuer: RETIRED_ISSUER }), /key_window/],
      [receiptFor('T1', { annulledAtMs: NOW + 3_600_000, iatMs: NOW + 3_600_000 }), /in the future/],
      [receiptFor('T1').slice(0, -3) + (receiptFor('T1').endsWith('AAA') ? 'BBB' : 'AAA'), /signature/],
    ];
    for (const [i, [receipt, why]] of bad.entries()) {
      const handling = b.receive(c.build('annul', NOW + 1 + i, { adm: [annulled('T1', 1, receipt)] })!, B_ADDR, NOW + 1 + i);
      expect(handling.forgotten, String(why)).toBe(0);
      expect(handling.log, String(why)).toMatch(/receipt for ticket T1 not believed/);
      expect(handling.log, String(why)).toMatch(why);
    }
    expect(b.admissionOf('T1')).toMatchObject({ scanner_id: 'scn_a' });
    // From the admitting kiosk itself, the old rule still holds whatever its receipt.
    expect(b.receive(a.build('annul', NOW + 10, { adm: [annulled('T1', 1, bad[0]![0])] })!, A_ADDR, NOW + 10).forgotten).toBe(1);
  });

  it('receipts travel only in annul messages, one per annulment; a catch-up answer sends them one to a datagram', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    const c = kiosk('scn_c');
    c.receive(b.build('admit', NOW, { adm: [admission('T5', at(0)), admission('T6', at(0))] })!, B_ADDR, NOW);
    const replies = a.catchupReplies([], NOW + 1, [
      annulled('T5', 1, receiptFor('T5', { annulledAtMs: Date.parse(at(1)) })),
      annulled('T6', 1, receiptFor('T6', { annulledAtMs: Date.parse(at(1)) })),
      admission('T7', at(1)),
    ]);
    const decoded = replies.map((reply) => (decodeMessage(reply) as { message: LanMessage }).message);
    expect(decoded.map((m) => [m.type, m.adm.length])).toEqual([
      ['annul', 1],
      ['annul', RECEIPTS_PER_DATAGRAM],
      ['annul', RECEIPTS_PER_DATAGRAM],
    ]);
    for (const reply of replies) expect(reply.length).toBeLessThan(1400);
    for (const reply of replies) c.receive(reply, A_ADDR, NOW + 1);
    expect(c.admissionOf('T5')).toBeUndefined();
    expect(c.admissionOf('T6')).toBeUndefined();
    // A receipts list on another type, or of another length, is malformed.
    const wire = JSON.parse(replies[1]!.toString()) as Record<string, unknown>;
    expect(decodeMessage(Buffer.from(JSON.stringify({ ...wire, type: 'admit' })))).toMatchObject({
      ok: false,
      problem: 'bad receipts list',
    });
    expect(decodeMessage(Buffer.from(JSON.stringify({ ...wire, rcpt: [] })))).toMatchObject({ ok: false, problem: 'bad receipts list' });
  });
});

describe('the offline check', () => {
  it('seen_by_peer comes right after seen_here and refuses as admitted_at_other_gate', () => {
    expect(OFFLINE_CHECKS.indexOf('seen_by_peer')).toBe(OFFLINE_CHECKS.indexOf('seen_here') + 1);
    expect(CHECK_REASON.seen_by_peer).toBe('admitted_at_other_gate');
  });
});

describe('a party part\'s people over the LAN (docs/protocol.md "LAN messages between kiosks (project extension)", ppl)', () => {
  it('a signed count is learned; an altered count (psig no longer verifies) counts one person', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    const bytes = a.build('admit', NOW, { adm: [{ ...admission('T1'), people: 3 }] })!;
    expect(b.receive(bytes, A_ADDR, NOW).learned).toBe(1);
    expect(b.peopleAfter('T1', null)).toBe(3);
    const c = kiosk('scn_c');
    const wire = JSON.parse(bytes.toString('utf8')) as { ppl: [string, string, number][] };
    wire.ppl[0]![2] = 1000;
    const altered = c.receive(Buffer.from(JSON.stringify(wire)), A_ADDR, NOW);
    expect(altered.learned).toBe(1);
    expect(altered.log).toMatch(/people counts not believed \(bad people signature\)/);
    expect(c.peopleAfter('T1', null)).toBe(1);
  });
});
