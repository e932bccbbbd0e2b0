/**
 * A party's parts at other doors (docs/kiosk.md "Party tickets", "Kiosks on one LAN"; main/kiosk/sync/lan-peers.ts):
 * a kiosk keeps a party ticket's admissions from its peers up to the party's size (a party of 10 may come in in 10
 * parts), an ordinary ticket's at most MAX_ADMISSIONS_PER_TICKET, and every ticket's together at most
 * MAX_KNOWN_PARTS, so a hostile peer cannot grow its memory without bound.
 */
import { describe, expect, it } from 'vitest';
import {
  LanPeerState,
  MAX_ADMISSIONS_PER_TICKET,
  MAX_KNOWN_ADMISSIONS,
  MAX_KNOWN_PARTS,
  type LanAdmission,
} from '../../../main/kiosk/sync/lan-peers.js';
import { MAX_PARTY } from '../../../protocol/party.js';
import { member, NOW } from './lan-fixtures.js';

const A_ADDR = { address: '127.0.0.1', port: 41001 };
const at = (ms: number): string => new Date(ms).toISOString();
const part = (tid: string, ms: number, people?: number): LanAdmission => ({
  tid,
  admitted_at: at(ms),
  gate: 'A',
  offline: true,
  ...(people === undefined ? {} : { people }),
});

/** Receiver B knows the party sizes given; A tells admissions, eight a datagram. */
function pair(sizes: Record<string, number>, maxKnownParts?: number): { b: LanPeerState; tell: (adm: LanAdmission[]) => void } {
  const a = new LanPeerState();
  a.setMembership(member('scn_a', 'A'));
  const b = new LanPeerState(maxKnownParts === undefined ? {} : { maxKnownParts });
  b.setMembership({ ...member('scn_b', 'B'), partySize: (tid) => sizes[tid] ?? 1 });
  return {
    b,
    tell: (adm) => {
      for (let i = 0; i < adm.length; i += 8) b.receive(a.build('admit', NOW, { adm: adm.slice(i, i + 8) })!, A_ADDR, NOW);
    },
  };
}

describe('a party ticket’s parts from LAN peers', () => {
  it('a party of 10 let in in 10 parts of one at another door: all 10 known offline; an ordinary ticket keeps 4', () => {
    const { b, tell } = pair({ P10: 10 });
    tell(Array.from({ length: 12 }, (_, i) => part('P10', NOW - 60_000 + i * 1000)));
    expect(b.admissionsOf('P10')).toHaveLength(10);
    expect(b.peopleAfter('P10', null)).toBe(10);
    tell(Array.from({ length: 6 }, (_, i) => part('T1', NOW - 60_000 + i * 1000)));
    expect(b.admissionsOf('T1')).toHaveLength(MAX_ADMISSIONS_PER_TICKET);
    expect(b.admissionOf('T1')?.admitted_at).toBe(at(NOW - 60_000));
  });

  it('keeps the earliest parts: a later part beyond the bound changes nothing, an earlier one takes the latest one’s place', () => {
    const { b, tell } = pair({ P5: 5 });
    tell(Array.from({ length: 5 }, (_, i) => part('P5', NOW - 50_000 + i * 1000, 2)));
    expect(b.knownParts).toBe(5);
    tell([part('P5', NOW - 1000, 3)]);
    expect(b.admissionsOf('P5').map((p) => p.admitted_at)).toEqual(Array.from({ length: 5 }, (_, i) => at(NOW - 50_000 + i * 1000)));
    tell([part('P5', NOW - 90_000, 3)]);
    expect(b.admissionsOf('P5')[0]).toMatchObject({ admitted_at: at(NOW - 90_000), people: 3 });
    expect(b.admissionsOf('P5')).toHaveLength(5);
    expect(b.knownParts).toBe(5);
  });

  it('a size the list does not give is one person’s bound; a size above MAX_PARTY keeps MAX_PARTY', () => {
    const { b, tell } = pair({ HUGE: 10 * MAX_PARTY, ODD: Number.NaN });
    tell(Array.from({ length: 8 }, (_, i) => part('ODD', NOW - 60_000 + i)));
    expect(b.admissionsOf('ODD')).toHaveLength(MAX_ADMISSIONS_PER_TICKET);
    tell(Array.from({ length: MAX_PARTY + 16 }, (_, i) => part('HUGE', NOW - 3_000_000 + i)));
    expect(b.admissionsOf('HUGE')).toHaveLength(MAX_PARTY);
  });

  it('every ticket’s admissions together stay within the bound on all parts: the tickets learned first go', () => {
    expect(MAX_KNOWN_PARTS).toBeGreaterThanOrEqual(MAX_KNOWN_ADMISSIONS);
    // A bound of 100 parts (the kiosk's is MAX_KNOWN_PARTS), parties of 30 each told in full.
    const sizes = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`P${i}`, 30]));
    const { b, tell } = pair(sizes, 100);
    for (let t = 0; t < 6; t += 1) {
      tell(Array.from({ length: 30 }, (_, i) => part(`P${t}`, NOW - 300_000 + i * 1000)));
      expect(b.knownParts).toBeLessThanOrEqual(100);
    }
    expect(b.knownParts).toBe(90);
    expect(['P0', 'P1', 'P2'].map((tid) => b.admissionsOf(tid).length)).toEqual([0, 0, 0]);
    expect(['P3', 'P4', 'P5'].map((tid) => b.peopleAfter(tid, null))).toEqual([30, 30, 30]);
    // One more part of a kept party that no longer fits: the tickets learned first make room for it.
    tell([part('P3', NOW - 900_000)]);
    expect(b.knownParts).toBeLessThanOrEqual(100);
    expect(b.admissionsOf('P3')[0]?.admitted_at).toBe(at(NOW - 900_000));
  });
});
