/**
 * Exits and handouts from LAN peers (docs/kiosk.md "Kiosks on one LAN", "Party tickets", "Handouts";
 * main/kiosk/sync/lan-moves.ts, lan-learned-moves.ts, decide/party.ts): the pure decisions. A party's counts merge
 * this kiosk's own moves with its peers' in time order; a peer's exit is kept once, up to the party's size, the
 * latest first; every ticket's exits and handouts together stay under a fixed bound; a handout is one by its id;
 * an annulment takes the exits it undoes with it; a catch-up answer carries exits and handouts; a handout a peer
 * gave is refused here with when and where, as the issuer would (protocol/handouts.ts decideHandout).
 */
import { describe, expect, it } from 'vitest';
import { knownParty, type PartyMove } from '../../../main/kiosk/decide/party.js';
import { decodeMessage, LanPeerState, MAX_HANDOUTS_PER_TICKET, type LanExit, type LanHandout } from '../../../main/kiosk/sync/lan-peers.js';
import { decideHandout, handoutsOf } from '../../../protocol/handouts.js';
import { member, NOW, receiptFor } from './lan-fixtures.js';

const A_ADDR = { address: '127.0.0.1', port: 41001 };
const at = (ms: number): string => new Date(ms).toISOString();
const exit = (tid: string, ms: number, people = 1, offline = true): LanExit => ({ tid, exited_at: at(ms), gate: 'A', offline, people });
const handout = (hid: string, tid: string, item: string, ms: number): LanHandout => ({
  hid,
  tid,
  item,
  given_at: at(ms),
  gate: 'A',
  scanner: 'Door 1 (North)',
});

function pair(
  options: { maxKnownExits?: number; maxKnownHandouts?: number } = {},
  sizes: Record<string, number> = {},
): { a: LanPeerState; b: LanPeerState } {
  const a = new LanPeerState();
  a.setMembership(member('scn_a', 'A'));
  const b = new LanPeerState(options);
  b.setMembership({ ...member('scn_b', 'B'), partySize: (tid) => sizes[tid] ?? 1 });
  return { a, b };
}

const move = (action: 'entry' | 'exit', people: number, ms: number): PartyMove => ({ action, people, at: at(ms) });

describe('knownParty with the moves peers told of', () => {
  it('merges this kiosk’s moves and its peers’ in the order they were made', () => {
    // Own: 3 came in at t1. Peer: 2 went out at t2. In order: 3 inside, then 1.
    const state = knownParty(5, null, [move('entry', 3, 1_000)], [move('exit', 2, 2_000)], 'reentry');
    expect(state).toMatchObject({ inside: 1, admitted_total: 3 });
    // The same exit heard before the entry was made cannot take out people who were not in yet.
    expect(knownParty(5, null, [move('entry', 3, 2_000)], [move('exit', 2, 1_000)], 'reentry')).toMatchObject({ inside: 3 });
  });

  it('a re-entry event offers again the places of those who left; a single-entry event does not', () => {
    const peers = [move('entry', 5, 1_000), move('exit', 2, 2_000)];
    expect(knownParty(5, null, [], peers, 'reentry')).toMatchObject({ inside: 3, remaining: 2 });
    expect(knownParty(5, null, [], peers, 'single')).toMatchObject({ inside: 3, remaining: 0 });
  });

  it('never takes out more than are inside, never lets in more than the size', () => {
    expect(knownParty(4, { inside: 1, admitted_total: 1 }, [], [move('exit', 3, 1_000)], 'reentry')).toMatchObject({ inside: 0 });
    expect(knownParty(4, null, [move('entry', 3, 1_000)], [move('entry', 3, 2_000)], 'single')).toMatchObject({ inside: 4, remaining: 0 });
  });
});

describe('exits learned from a peer', () => {
  it('counts those made offline always, and online ones only after the issuer’s last answer here', () => {
    const { a, b } = pair({}, { P: 6 });
    b.receive(a.build('exit', NOW, { exits: [exit('P', NOW - 50_000, 2, false), exit('P', NOW - 40_000, 1, true)] })!, A_ADDR, NOW);
    expect(b.partyMovesAfter('P', at(NOW - 45_000))).toEqual([{ action: 'exit', people: 1, at: at(NOW - 40_000) }]);
    expect(b.partyMovesAfter('P', null).map((m) => m.people)).toEqual([2, 1]);
  });

  it('keeps one exit once, the latest up to the party’s size, and every ticket’s together under the bound', () => {
    const { a, b } = pair({ maxKnownExits: 10 }, { P: 6 });
    const tell = (exits: LanExit[]): void => {
      for (let i = 0; i < exits.length; i += 8) b.receive(a.build('exit', NOW, { exits: exits.slice(i, i + 8) })!, A_ADDR, NOW);
    };
    tell(Array.from({ length: 9 }, (_, i) => exit('P', NOW - 60_000 + i * 1_000)));
    expect(b.exitsOf('P').map((e) => e.exited_at)).toEqual(Array.from({ length: 6 }, (_, i) => at(NOW - 57_000 + i * 1_000)));
    tell([exit('P', NOW - 52_000)]); // told again: one exit
    expect(b.knownExits).toBe(6);
    // Ordinary tickets (4 exits kept each) fill the bound; beyond it the ticket learned first goes whole.
    tell(Array.from({ length: 4 }, (_, i) => exit('T1', NOW - 30_000 + i)));
    expect(b.knownExits).toBe(10);
    tell(Array.from({ length: 5 }, (_, i) => exit('T2', NOW - 20_000 + i)));
    expect(b.knownExits).toBe(8);
    expect(b.exitsOf('P')).toEqual([]);
    expect(b.exitsOf('T1')).toHaveLength(4);
    expect(b.exitsOf('T2')).toHaveLength(4);
  });

  it('an annulment the issuer vouches for takes the ticket’s exits up to it with the admissions', () => {
    const { a, b } = pair();
    b.receive(a.build('exit', NOW, { exits: [exit('T1', NOW - 120_000)] })!, A_ADDR, NOW);
    expect(b.exitsOf('T1')).toHaveLength(1);
    const annul = { tid: 'T1', admitted_at: at(NOW - 60_000), gate: 'A', offline: false, receipt: receiptFor('T1') };
    b.receive(a.build('annul', NOW + 1, { adm: [annul] })!, A_ADDR, NOW);
    expect(b.exitsOf('T1')).toEqual([]);
  });
});

describe('handouts learned from a peer', () => {
  it('are one by their id, and a second of an item all given is refused with when and where', () => {
    const { a, b } = pair();
    const given = handout('hid-1', 'T1', 'wristband', NOW - 10_000);
    b.receive(a.build('handout', NOW, { handouts: [given] })!, A_ADDR, NOW);
    b.receive(a.build('handout', NOW + 1, { handouts: [given] })!, A_ADDR, NOW);
    expect(b.handoutsOf('T1')).toEqual([{ hid: 'hid-1', item: 'wristband', at: given.given_at, gate: 'A', scanner: 'Door 1 (North)' }]);
    const decision = decideHandout(handoutsOf([{ item: 'wristband', count: 1 }], b.handoutsOf('T1')), 'wristband');
    expect(decision).toEqual({
      ok: false,
      reason: 'already_given',
      given: [{ hid: 'hid-1', at: given.given_at, gate: 'A', scanner: 'Door 1 (North)' }],
    });
  });

  it('a ticket keeps at most MAX_HANDOUTS_PER_TICKET, and every ticket’s together stay under the bound', () => {
    const { a, b } = pair({ maxKnownHandouts: 250 });
    const many = Array.from({ length: MAX_HANDOUTS_PER_TICKET + 8 }, (_, i) => handout(`h${i}`, 'T1', 'drink voucher', NOW - 100_000 + i));
    for (let i = 0; i < many.length; i += 8) b.receive(a.build('handout', NOW + i, { handouts: many.slice(i, i + 8) })!, A_ADDR, NOW);
    expect(b.handoutsOf('T1')).toHaveLength(MAX_HANDOUTS_PER_TICKET);
    const more = Array.from({ length: 60 }, (_, i) => handout(`k${i}`, `U${i}`, 'wristband', NOW - 1_000));
    for (let i = 0; i < more.length; i += 8)
      b.receive(a.build('handout', NOW + 1_000 + i, { handouts: more.slice(i, i + 8) })!, A_ADDR, NOW);
    expect(b.knownHandouts).toBeLessThanOrEqual(250);
    expect(b.handoutsOf('T1')).toEqual([]);
    expect(b.handoutsOf('U59')).toHaveLength(1);
  });
});

describe('catching up', () => {
  it('an answer carries this kiosk’s exits and handouts, eight to a datagram, after its admissions', () => {
    const { a } = pair();
    const exits = Array.from({ length: 9 }, (_, i) => exit(`T${i}`, NOW - 10_000 + i));
    const replies = a.catchupReplies([], NOW, [], { exits, handouts: [handout('h1', 'T1', 'wristband', NOW - 5_000)] });
    const decoded = replies.map((bytes) => decodeMessage(bytes));
    expect(decoded.map((d) => (d.ok ? [d.message.type, (d.message.exits ?? d.message.handouts ?? []).length] : d.problem))).toEqual([
      ['exit', 8],
      ['exit', 1],
      ['handout', 1],
    ]);
  });
});
