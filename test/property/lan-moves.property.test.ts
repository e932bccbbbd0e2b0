/**
 * Exits and handouts on the LAN (docs/protocol.md "LAN messages between kiosks (project extension)", types `exit`
 * and `handout`; main/kiosk/sync/lan-moves.ts), generated: at least 1,000 datagrams carrying hostile exit or handout
 * fields, each SIGNED BY THE SENDER'S OWN CERTIFIED KEY (so only the field checks stand between them and the
 * receiver): people counts of 0, 1001, fractions, negative or strings; ticket, gate, scanner and item texts with
 * control or direction characters, empty or too long; another gate than the certificate's; times that are not times,
 * in the future or outside the event's window; bad handout ids; entries of the wrong length; exits or handouts in
 * another type's message, or with admissions. None changes what the receiver knows; nothing throws; afterwards the
 * real peer's exit and handout are learned.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeMessage, eventWindowOf, LanPeerState, type LanMessage } from '../../main/kiosk/sync/lan-peers.js';
import { EID, member, NOW } from '../unit/kiosk/lan-fixtures.js';

const RUNS = 1_200;
const A = { address: '10.0.4.17', port: 47474 };
const WINDOW = eventWindowOf('2026-07-18T18:00:00Z', null);
const BAD_CHARACTERS = ['\u202E', '\u2066', '\u200F', '\u0000', '\n', '\u007F', '\u2028'];
const at = (ms: number): string => new Date(ms).toISOString();
const GOOD_EXIT: unknown[] = ['T1', at(NOW - 5_000), 'A', 1, 2];
const GOOD_HANDOUT: unknown[] = ['3f8a2c1e-0b7d-4e5f-9a61-2d4c8b0e7f13', 'T1', 'wristband', at(NOW - 5_000), 'A', 'Door 1 (North)'];

const badText = fc
  .tuple(fc.string({ maxLength: 6 }), fc.constantFrom(...BAD_CHARACTERS), fc.string({ maxLength: 6 }))
  .map(([before, bad, after]) => `${before}${bad}${after}`);
const badTime = fc.constantFrom('yesterday', '', at(NOW + 3_600_000), at(WINDOW.fromMs - 1), '2099-01-01T00:00:00.000Z', 42);
const badPeople = fc.oneof(fc.constantFrom(0, -1, 1001, 1.5, '3', null, Number.MAX_SAFE_INTEGER + 2), fc.integer({ max: 0 }));

/** One hostile exit entry: a good one with one field replaced (by index) with a hostile value. */
const hostileExit = fc.oneof(
  fc.tuple(fc.constant(0), fc.oneof(badText, fc.constantFrom('', 'T'.repeat(129), 7))),
  fc.tuple(fc.constant(1), badTime),
  fc.tuple(fc.constant(2), fc.oneof(badText, fc.constantFrom('B', '', 5))),
  fc.tuple(fc.constant(3), fc.constantFrom(2, true, '1', null)),
  fc.tuple(fc.constant(4), badPeople),
  fc.tuple(fc.constant(5), fc.constant('extra')),
);
/** One hostile handout entry, likewise. */
const hostileHandout = fc.oneof(
  fc.tuple(fc.constant(0), fc.oneof(badText, fc.constantFrom('', 'x'.repeat(65), 'id with spaces', 12))),
  fc.tuple(fc.constant(1), fc.oneof(badText, fc.constantFrom('', 9))),
  fc.tuple(fc.constant(2), fc.oneof(badText, fc.constantFrom('', ' wristband', 'w'.repeat(41), 3))),
  fc.tuple(fc.constant(3), badTime),
  fc.tuple(fc.constant(4), fc.oneof(badText, fc.constantFrom('B', ''))),
  fc.tuple(fc.constant(5), fc.oneof(badText, fc.constantFrom('', 's'.repeat(101), null))),
  fc.tuple(fc.constant(6), fc.constant('extra')),
);

/** A datagram of `type` whose entries are `entries`, signed by A's own key over exactly what it carries. */
function signedByA(
  type: 'exit' | 'handout' | 'admit',
  entries: { ext?: ReadonlyArray<readonly unknown[]>; hnd?: ReadonlyArray<readonly unknown[]>; adm?: ReadonlyArray<readonly unknown[]> },
  seq: number,
): Buffer {
  const message = {
    type,
    eid: EID,
    from: 'scn_a',
    gate: 'A',
    seq,
    ts: NOW,
    since: null,
    adm: [],
    ...(entries.adm
      ? {
          adm: entries.adm.map(([tid, admittedAt, gate, offline]: readonly unknown[]) => ({
            tid,
            admitted_at: admittedAt,
            gate,
            offline: offline === 1,
          })),
        }
      : {}),
    ...(entries.ext
      ? {
          exits: entries.ext.map(([tid, exitedAt, gate, offline, people]: readonly unknown[]) => ({
            tid,
            exited_at: exitedAt,
            gate,
            offline: offline === 1,
            people,
          })),
        }
      : {}),
    ...(entries.hnd
      ? {
          handouts: entries.hnd.map(([hid, tid, item, givenAt, gate, scanner]: readonly unknown[]) => ({
            hid,
            tid,
            item,
            given_at: givenAt,
            gate,
            scanner,
          })),
        }
      : {}),
  } as unknown as LanMessage;
  const wire = JSON.parse(encodeMessage(message, A_MEMBER.signer).toString('utf8')) as Record<string, unknown>;
  // The wire as the hostile sender writes it: the raw entries (wireExits would have turned offline into 0/1), the
  // signature still the sender's own over the message it means.
  if (entries.ext) wire['ext'] = entries.ext;
  if (entries.hnd) wire['hnd'] = entries.hnd;
  if (type === 'admit' && entries.ext) wire['ext'] = entries.ext;
  return Buffer.from(JSON.stringify(wire), 'utf8');
}

const A_MEMBER = member('scn_a', 'A');

function receiver(): LanPeerState {
  const b = new LanPeerState();
  b.setMembership(member('scn_b', 'B', { eventWindow: WINDOW }));
  return b;
}

const known = (b: LanPeerState): string => JSON.stringify([b.knownExits, b.knownHandouts, b.exitsOf('T1'), b.handoutsOf('T1')]);

describe('hostile exit and handout fields, signed by the sender itself', () => {
  it(`${RUNS} datagrams change nothing; the real peer's exit and handout are learned afterwards`, () => {
    const b = receiver();
    let seq = NOW * 1000 - 10_000_000;
    const before = known(b);
    fc.assert(
      fc.property(
        fc.oneof(
          hostileExit.map(([index, value]) => {
            const entry = [...GOOD_EXIT];
            entry[index] = value;
            return { type: 'exit' as const, entries: { ext: [entry] } };
          }),
          hostileHandout.map(([index, value]) => {
            const entry = [...GOOD_HANDOUT];
            entry[index] = value;
            return { type: 'handout' as const, entries: { hnd: [entry] } };
          }),
          fc.constantFrom(
            // Exits in an admission, an exit with an admission, an empty or missing list, too many entries.
            { type: 'admit' as const, entries: { adm: [['T1', at(NOW - 5_000), 'A', 1]], ext: [GOOD_EXIT] } },
            { type: 'exit' as const, entries: { ext: [GOOD_EXIT], adm: [['T1', at(NOW - 5_000), 'A', 1]] } },
            { type: 'exit' as const, entries: { ext: [] } },
            { type: 'handout' as const, entries: {} },
            { type: 'exit' as const, entries: { ext: Array.from({ length: 65 }, () => GOOD_EXIT) } },
          ),
        ),
        ({ type, entries }) => {
          seq += 1;
          const handling = b.receive(signedByA(type, entries, seq), A, NOW);
          expect(handling.learnedExits ?? []).toEqual([]);
          expect(handling.learnedHandouts ?? []).toEqual([]);
          expect(known(b)).toBe(before);
        },
      ),
      { numRuns: RUNS },
    );
    // The real peer is still heard.
    const a = new LanPeerState();
    a.setMembership(A_MEMBER);
    expect(
      b.receive(a.build('exit', NOW, { exits: [{ tid: 'T1', exited_at: at(NOW - 1_000), gate: 'A', offline: true, people: 2 }] })!, A, NOW),
    ).toMatchObject({ learnedExits: [{ tid: 'T1', people: 2, scanner_id: 'scn_a' }] });
    const handout = {
      hid: GOOD_HANDOUT[0] as string,
      tid: 'T1',
      item: 'wristband',
      given_at: at(NOW - 1_000),
      gate: 'A',
      scanner: 'Door 1',
    };
    expect(b.receive(a.build('handout', NOW, { handouts: [handout] })!, A, NOW)).toMatchObject({ learnedHandouts: [{ hid: handout.hid }] });
    expect(b.handoutsOf('T1')).toEqual([{ hid: handout.hid, item: 'wristband', at: handout.given_at, gate: 'A', scanner: 'Door 1' }]);
  });
});
