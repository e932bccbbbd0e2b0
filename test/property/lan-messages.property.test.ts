/**
 * Kiosks on one LAN (docs/kiosk.md "Kiosks on one LAN"; main/kiosk/sync/lan-peers.ts), generated: at least 1,000
 * datagrams that a hostile device or a compromised kiosk could send (forged certificates, altered signed messages,
 * replays of a real peer's datagrams, signed messages out of time or out of the event's window, messages of one
 * kiosk speaking for another scanner or gate, annulments of another kiosk's admission, annulments carrying an issuer
 * receipt that does not hold (forged, of another event or ticket, by a retired key, dated in the future), a revoked
 * kiosk's messages, texts with control or direction characters, random bytes). None changes what the receiver knows of admissions;
 * nothing throws; afterwards a real peer's admission and annulment still work. And as many authentic admissions
 * carrying hostile party people counts (`ppl`/`psig`, main/kiosk/sync/lan-people.ts: counts of 0, 1001, fractions,
 * negative, strings; a count for an admission the message does not tell; a bad, foreign or missing signature), each
 * even signed by the sender's own key: the admission is learned as one person, no count is believed.
 */
import { sign } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { peopleCanonicalBytes } from '../../main/kiosk/sync/lan-people.js';
import {
  canonicalBytes,
  decodeMessage,
  encodeMessage,
  eventWindowOf,
  LanPeerState,
  type LanAdmission,
  type LanMessage,
  type LanMessageType,
} from '../../main/kiosk/sync/lan-peers.js';
import { EID, member, NOW, OTHER_ISSUER, receiptFor, RETIRED_ISSUER, signerFor } from '../unit/kiosk/lan-fixtures.js';

const RUNS = 1_500;
const A = { address: '10.0.4.17', port: 47474 };
const WINDOW = eventWindowOf('2026-07-18T18:00:00Z', null);
const TIDS = ['T1', 'T2', 'T3', 'T4'];
const BAD_CHARACTERS = ['\u202E', '\u202D', '\u2066', '\u2069', '\u200F', '\u061C', '\u0000', '\n', '\r', '\u007F', '\u0085', '\u2028'];
const at = (ms: number): string => new Date(ms).toISOString();

/** The receiver B, and the real peer A's datagrams it has heard (the last one is the newest it accepted). */
function setup(): { b: LanPeerState; a: LanPeerState; heard: Buffer[]; revoked: Set<string> } {
  const revoked = new Set(['scn_stolen']);
  const b = new LanPeerState();
  b.setMembership(member('scn_b', 'B', { revoked, eventWindow: WINDOW }));
  const a = new LanPeerState();
  a.setMembership(member('scn_a', 'A'));
  const heard: Buffer[] = [];
  for (const [i, tid] of ['T1', 'T2'].entries()) {
    const bytes = a.build('admit', NOW - 30_000 + i, { adm: [{ tid, admitted_at: at(NOW - 60_000 + i), gate: 'A', offline: true }] })!;
    expect(b.receive(bytes, A, NOW).learned).toBe(1);
    heard.push(bytes);
  }
  heard.push(a.build('hello', NOW - 20_000)!);
  expect(b.receive(heard.at(-1)!, A, NOW).log).toBeUndefined();
  return { b, a, heard, revoked };
}

function snapshot(b: LanPeerState): string {
  return JSON.stringify([b.knownAdmissions, ...TIDS.map((tid) => b.admissionsOf(tid))]);
}

const tid = fc.oneof(fc.constantFrom(...TIDS), fc.string({ minLength: 1, maxLength: 20 }));
const goodTime = fc.integer({ min: NOW - 3_600_000, max: NOW }).map(at);
const type = fc.constantFrom<LanMessageType>('admit', 'catchup_reply', 'annul', 'hello', 'catchup');
const admissionOf = (time: fc.Arbitrary<string>, gate: fc.Arbitrary<string | null> = fc.constant('A')): fc.Arbitrary<LanAdmission> =>
  fc.record({ tid, admitted_at: time, gate, offline: fc.boolean() });
/** A sequence number newer than any of A's so far, consistent with a `ts` of about now. */
const freshSeq = fc.integer({ min: 1, max: 50_000_000 }).map((n) => NOW * 1000 + n);
const withBadCharacter = fc
  .tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...BAD_CHARACTERS), fc.string({ maxLength: 8 }))
  .map(([before, bad, after]) => `${before}${bad}${after}`);

function message(fields: Partial<LanMessage>): LanMessage {
  return { type: 'admit', eid: EID, from: 'scn_a', gate: 'A', seq: NOW * 1000 + 1, ts: NOW, since: null, adm: [], ...fields };
}

/** Each generator makes one hostile datagram, and names its kind (to check every kind is exercised). */
const hostile = (heard: readonly Buffer[]): fc.Arbitrary<[string, Buffer]> =>
  fc.oneof(
    // A certificate the issuer never signed, whatever it claims.
    fc
      .record({
        type,
        from: fc.constantFrom('scn_a', 'scn_c', 'scn_b'),
        gate: fc.constantFrom('A', 'B', null),
        seq: freshSeq,
        adm: fc.array(admissionOf(goodTime), { maxLength: 3 }),
      })
      .map(
        ({ type: t, from, gate, seq, adm }) =>
          ['forged', encodeMessage(message({ type: t, from, gate, seq, adm }), signerFor(from, gate, { issuer: OTHER_ISSUER }))] as [
            string,
            Buffer,
          ],
      ),
    // A real message of A altered on the way (a field changed after it was signed).
    fc
      .record({
        field: fc.constantFrom('tid', 'admitted_at', 'type', 'seq', 'ts', 'gate_of_admission'),
        seq: freshSeq,
        value: fc.string({ minLength: 1, maxLength: 12 }),
      })
      .map(({ field, seq, value }) => {
        const signed = JSON.parse(
          encodeMessage(
            message({ seq, adm: [{ tid: 'T3', admitted_at: at(NOW - 1000), gate: 'A', offline: true }] }),
            signerFor('scn_a', 'A'),
          ).toString(),
        ) as Record<string, unknown>;
        const adm = signed['adm'] as unknown[][];
        if (field === 'tid') adm[0]![0] = `T1${value}`;
        if (field === 'admitted_at') adm[0]![1] = at(NOW - 5000);
        if (field === 'type') signed['type'] = 'annul';
        if (field === 'seq') signed['seq'] = (signed['seq'] as number) + 1;
        if (field === 'ts') signed['ts'] = (signed['ts'] as number) - 1;
        if (field === 'gate_of_admission') adm[0]![2] = 'VIP';
        return ['altered', Buffer.from(JSON.stringify(signed))] as [string, Buffer];
      }),
    // A's own datagrams again: older ones are replays, the newest is the second copy of one message.
    fc.constantFrom(...heard).map((bytes) => ['replayed', bytes] as [string, Buffer]),
    // Signed by A, but out of time: ts outside the replay window, seq far ahead of ts, or a date out of bounds.
    fc
      .oneof(
        fc.integer({ min: 61_000, max: 10 * 86_400_000 }).map((off) => message({ ts: NOW - off, seq: (NOW - off) * 1000 })),
        fc.integer({ min: 61_000, max: 10 * 86_400_000 }).map((off) => message({ ts: NOW + off, seq: (NOW + off) * 1000 })),
        fc
          .integer({ min: 61_001, max: 9_000_000_000 })
          .map((ahead) => message({ seq: Math.min(Number.MAX_SAFE_INTEGER, (NOW + ahead) * 1000) })),
        fc.constantFrom('2020-01-01T00:00:00.000Z', at(WINDOW.fromMs - 1), '2099-01-01T00:00:00.000Z', at(NOW + 61_000)).chain((time) =>
          fc
            .record({
              type: fc.constantFrom<LanMessageType>('admit', 'catchup_reply', 'annul'),
              seq: freshSeq,
              t: fc.constantFrom(...TIDS),
            })
            .map(({ type: t, seq, t: ticket }) =>
              message({ type: t, seq, adm: [{ tid: ticket, admitted_at: time, gate: 'A', offline: true }] }),
            ),
        ),
      )
      .map((m) => ['out of time', encodeMessage(m, signerFor('scn_a', 'A'))] as [string, Buffer]),
    // A real kiosk speaking for another scanner or gate.
    fc
      .record({
        from: fc.constantFrom('scn_a', 'scn_c', 'scn_b', 'scn_stolen'),
        gate: fc.constantFrom('A', 'B', null),
        seq: freshSeq,
        adm: fc.array(admissionOf(goodTime), { minLength: 1, maxLength: 3 }),
      })
      .filter(({ from, gate }) => from !== 'scn_a' || gate !== 'A')
      .map(
        ({ from, gate, seq, adm }) =>
          ['other scanner', encodeMessage(message({ from, gate, seq, adm }), signerFor('scn_a', 'A'))] as [string, Buffer],
      ),
    // Another real kiosk (C, certified) annulling what A admitted: only A may.
    fc.record({ seq: freshSeq, tickets: fc.subarray(['T1', 'T2'], { minLength: 1 }), time: goodTime }).map(
      ({ seq, tickets, time }) =>
        [
          'annul of another kiosk',
          encodeMessage(
            message({
              type: 'annul',
              from: 'scn_c',
              gate: 'C',
              seq,
              adm: tickets.map((t) => ({ tid: t, admitted_at: time, gate: 'C', offline: false })),
            }),
            signerFor('scn_c', 'C'),
          ),
        ] as [string, Buffer],
    ),
    // Another real kiosk (C) annulling what A admitted, with an issuer receipt that does not hold.
    fc
      .record({
        seq: freshSeq,
        ticket: fc.constantFrom('T1', 'T2'),
        bad: fc.constantFrom('forged', 'other event', 'other ticket', 'retired key', 'future', 'altered'),
        minutesAgo: fc.integer({ min: 0, max: 50 }),
      })
      .map(({ seq, ticket, bad, minutesAgo }) => {
        const annulledAtMs = NOW - minutesAgo * 60_000;
        const good = (tid: string): string => receiptFor(tid, { annulledAtMs });
        const receipt = {
          forged: () => receiptFor(ticket, { annulledAtMs, issuer: OTHER_ISSUER }),
          'other event': () => receiptFor(ticket, { annulledAtMs, eid: 'evt_other' }),
          'other ticket': () => good(ticket === 'T1' ? 'T2' : 'T1'),
          'retired key': () => receiptFor(ticket, { annulledAtMs, issuer: RETIRED_ISSUER }),
          future: () => receiptFor(ticket, { annulledAtMs: NOW + 3_600_000, iatMs: NOW + 3_600_000 }),
          altered: () => {
            const [prefix, payload, signature] = good(ticket).split('.') as [string, string, string];
            const fields = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
            fields['annulled_at'] = at(NOW);
            return `${prefix}.${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${signature}`;
          },
        }[bad]();
        const adm = [{ tid: ticket, admitted_at: at(annulledAtMs), gate: 'C', offline: false, receipt }];
        return ['bad receipt', encodeMessage(message({ type: 'annul', from: 'scn_c', gate: 'C', seq, adm }), signerFor('scn_c', 'C'))] as [
          string,
          Buffer,
        ];
      }),
    // A revoked kiosk, with its (still unexpired) certificate.
    fc
      .record({
        type: fc.constantFrom<LanMessageType>('admit', 'annul', 'catchup_reply'),
        seq: freshSeq,
        adm: fc.array(admissionOf(goodTime, fc.constant('S')), { minLength: 1, maxLength: 3 }),
      })
      .map(
        ({ type: t, seq, adm }) =>
          ['revoked', encodeMessage(message({ type: t, from: 'scn_stolen', gate: 'S', seq, adm }), signerFor('scn_stolen', 'S'))] as [
            string,
            Buffer,
          ],
      ),
    // Texts with control or direction characters, signed by a kiosk certified for them.
    fc
      .record({ where: fc.constantFrom('gate', 'tid', 'admission gate'), text: withBadCharacter, seq: freshSeq })
      .map(({ where, text, seq }) => {
        const gate = where === 'gate' ? text : 'A';
        const adm = [
          { tid: where === 'tid' ? text : 'T3', admitted_at: at(NOW - 1000), gate: where === 'admission gate' ? text : 'A', offline: true },
        ];
        return ['bad text', encodeMessage(message({ gate, seq, adm }), signerFor('scn_a', gate))] as [string, Buffer];
      }),
    // Anything at all.
    fc.uint8Array({ maxLength: 600 }).map((bytes) => ['random bytes', Buffer.from(bytes)] as [string, Buffer]),
  );

describe('LAN messages that must change nothing', () => {
  it(`${RUNS} generated hostile datagrams change nothing the receiver knows; a real peer still works`, () => {
    const { b, a, heard } = setup();
    const before = snapshot(b);
    const kinds = new Map<string, number>();
    fc.assert(
      fc.property(hostile(heard), ([kind, bytes]) => {
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        const handling = b.receive(bytes, A, NOW);
        expect(handling.learned, kind).toBe(0);
        expect(handling.forgotten ?? 0, kind).toBe(0);
        expect(snapshot(b), kind).toBe(before);
      }),
      { numRuns: RUNS, seed: 2326 },
    );
    expect([...kinds.keys()].sort()).toEqual(
      [
        'altered',
        'annul of another kiosk',
        'bad receipt',
        'bad text',
        'forged',
        'other scanner',
        'out of time',
        'random bytes',
        'replayed',
        'revoked',
      ].sort(),
    );

    // A, the real peer, is still heard: a new admission is learned, and its annulment of T1 is applied.
    expect(
      b.receive(a.build('admit', NOW, { adm: [{ tid: 'T4', admitted_at: at(NOW - 1000), gate: 'A', offline: true }] })!, A, NOW).learned,
    ).toBe(1);
    expect(
      b.receive(a.build('annul', NOW, { adm: [{ tid: 'T1', admitted_at: at(NOW - 500), gate: 'A', offline: false }] })!, A, NOW).forgotten,
    ).toBe(1);
    expect(b.admissionOf('T1')).toBeUndefined();
    expect(b.admissionOf('T4')).toMatchObject({ scanner_id: 'scn_a', gate: 'A' });
    // Another real kiosk with the issuer's real receipt: A's admission of T2 is forgotten.
    const receipt = receiptFor('T2', { annulledAtMs: NOW - 100 });
    const c = new LanPeerState();
    c.setMembership(member('scn_c', 'C'));
    // (Later than every generated sequence number of C's: some of those were authentic, if hostile.)
    const annulled = c.build('annul', NOW + 55_000, {
      adm: [{ tid: 'T2', admitted_at: at(NOW - 100), gate: 'C', offline: false, receipt }],
    })!;
    expect(b.receive(annulled, { address: '10.0.4.18', port: 47474 }, NOW + 55_000).forgotten).toBe(1);
    expect(b.admissionOf('T2')).toBeUndefined();
  });
});

/** One admission of a party's part by A, new to the receiver, with a hostile `ppl`/`psig` (named by its kind). */
const HOSTILE_COUNTS: readonly unknown[] = [0, 1001, 2.5, -3, '3', null, true, 1e9, Number.MAX_SAFE_INTEGER + 2, [3], { n: 3 }];
const hostilePeople = fc.oneof(
  // A count outside 1..1000 or not a whole number, under the sender's own valid second signature.
  fc
    .constantFrom(...HOSTILE_COUNTS)
    .map((count) => ({ kind: 'bad count', ppl: (tid: string, at: string): unknown => [[tid, at, count]], psig: 'own' })),
  // A count for an admission the message does not tell (another ticket, another time), validly signed.
  fc.constantFrom('other ticket', 'other time', 'twice').map((how) => ({
    kind: 'unmatched',
    ppl: (tid: string, at: string): unknown =>
      how === 'other ticket'
        ? [['T1', at, 4]]
        : how === 'other time'
          ? [[tid, '2026-07-18T20:00:00.000Z', 4]]
          : [
              [tid, at, 4],
              [tid, at, 5],
            ],
    psig: 'own',
  })),
  // Not a list of [tid, time, count], validly signed.
  fc
    .constantFrom<unknown>({}, 'x', 5, [], [['T']], [[1, 2, 3, 4]])
    .map((ppl) => ({ kind: 'bad list', ppl: (): unknown => ppl, psig: 'own' })),
  // A plausible count whose signature does not hold: missing, not a string, of another length, random, another
  // kiosk's key, or the sender's key over another message.
  fc
    .constantFrom('missing', 'number', 'short', 'random', 'other key', 'other message')
    .map((psig) => ({ kind: 'bad signature', ppl: (tid: string, at: string): unknown => [[tid, at, 7]], psig })),
);

describe('party people counts that must not be believed', () => {
  it(`${RUNS} authentic admissions with hostile ppl/psig each count one person`, () => {
    const b = new LanPeerState();
    b.setMembership(member('scn_b', 'B', { eventWindow: WINDOW }));
    const a = new LanPeerState();
    a.setMembership(member('scn_a', 'A'));
    const signer = signerFor('scn_a', 'A');
    const kinds = new Map<string, number>();
    let n = 0;
    fc.assert(
      fc.property(hostilePeople, fc.integer({ min: 0, max: 3_000_000 }), ({ kind, ppl: pplOf, psig }, offset) => {
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        n += 1;
        const tid = `P${n}`;
        const admittedAt = at(NOW - offset);
        const sent = a.build('admit', NOW, { adm: [{ tid, admitted_at: admittedAt, gate: 'A', offline: true }] })!;
        const wire = JSON.parse(sent.toString('utf8')) as Record<string, unknown>;
        const decoded = decodeMessage(sent);
        if (!decoded.ok) throw new Error(decoded.problem);
        const message = decoded.message;
        const ppl = pplOf(tid, admittedAt);
        const signedBy = (key: typeof signer.privateKey, over: unknown, fields = canonicalBytes(message)): string =>
          sign(null, peopleCanonicalBytes(fields, over), key).toString('base64url');
        wire['ppl'] = ppl;
        if (psig === 'own') wire['psig'] = signedBy(signer.privateKey, ppl);
        if (psig === 'number') wire['psig'] = 12345;
        if (psig === 'short') wire['psig'] = signedBy(signer.privateKey, ppl).slice(0, 40);
        if (psig === 'random') wire['psig'] = 'A'.repeat(86);
        if (psig === 'other key') wire['psig'] = signedBy(signerFor('scn_c', 'C').privateKey, ppl);
        if (psig === 'other message') wire['psig'] = signedBy(signer.privateKey, ppl, canonicalBytes({ ...message, seq: message.seq + 1 }));
        const handling = b.receive(Buffer.from(JSON.stringify(wire)), A, NOW);
        expect(handling.learned, kind).toBe(1);
        expect(handling.log, kind).toMatch(/people counts not believed/);
        expect(b.admissionsOf(tid), kind).toEqual([{ tid, admitted_at: admittedAt, gate: 'A', offline: true, scanner_id: 'scn_a' }]);
        expect(b.peopleAfter(tid, null), kind).toBe(1);
      }),
      { numRuns: RUNS, seed: 2427 },
    );
    expect([...kinds.keys()].sort()).toEqual(['bad count', 'bad list', 'bad signature', 'unmatched']);
    // The same sender's honest count is still believed.
    const honest = a.build('admit', NOW, { adm: [{ tid: 'P-honest', admitted_at: at(NOW - 1000), gate: 'A', offline: true, people: 4 }] })!;
    expect(b.receive(honest, A, NOW).learned).toBe(1);
    expect(b.peopleAfter('P-honest', null)).toBe(4);
  });
});
