/** The party rules (protocol/party.ts; docs/protocol.md "Party tickets (project extension)"), pure. */
import { describe, expect, it } from 'vitest';
import {
  afterEntry,
  countsOf,
  isPartyRow,
  judgePartyEntry,
  judgePartyExit,
  parsePartySize,
  partySizeOf,
  partyState,
  partyStateFrom,
  remainingOf,
} from '../../../protocol/party.js';

describe('party sizes', () => {
  it('takes a whole number 1 to 1000 and nothing else', () => {
    expect(['1', '5', ' 12 ', '1000'].map(parsePartySize)).toEqual([1, 5, 12, 1000]);
    for (const bad of ['0', '1001', '-1', '2.5', '05', 'five', '', '1e3']) expect(parsePartySize(bad), bad).toBeNull();
  });
  it('a stored NULL is one person', () => {
    expect([null, undefined, 0, 1, 7].map(partySizeOf)).toEqual([1, 1, 1, 1, 7]);
  });
});

describe('counts', () => {
  it('a row written for one person stands for one, inside or not; annulled is nobody', () => {
    expect(countsOf(undefined)).toEqual({ inside: 0, admitted: 0 });
    expect(countsOf({ state: 'inside' })).toEqual({ inside: 1, admitted: 1 });
    expect(countsOf({ state: 'outside', party_inside: null, party_admitted: null })).toEqual({ inside: 0, admitted: 1 });
    expect(countsOf({ state: 'annulled', party_inside: 3, party_admitted: 3 })).toEqual({ inside: 0, admitted: 0 });
    expect(countsOf({ state: 'inside', party_inside: 2, party_admitted: 4 })).toEqual({ inside: 2, admitted: 4 });
  });
  it('single entry: remaining is those never admitted; re-entry: those not inside', () => {
    expect(remainingOf(5, { inside: 1, admitted: 4 }, 'single')).toBe(1);
    expect(remainingOf(5, { inside: 1, admitted: 4 }, 'reentry')).toBe(4);
  });
});

describe('an entry of a part', () => {
  it('admits up to what remains; a live part larger is too_many; nothing left is full', () => {
    expect(judgePartyEntry(5, { inside: 0, admitted: 0 }, 'single', 3, false)).toEqual({
      kind: 'admit',
      people: 3,
      refused: 0,
      after: { inside: 3, admitted: 3 },
    });
    expect(judgePartyEntry(5, { inside: 3, admitted: 3 }, 'single', 3, false)).toEqual({ kind: 'too_many', remaining: 2 });
    expect(judgePartyEntry(5, { inside: 5, admitted: 5 }, 'single', 1, false)).toEqual({ kind: 'full' });
    // Out again under single entry: still used up.
    expect(judgePartyEntry(5, { inside: 0, admitted: 5 }, 'single', 1, false)).toEqual({ kind: 'full' });
  });
  it('a part admitted offline has happened: what fits is counted, the rest refused', () => {
    expect(judgePartyEntry(5, { inside: 4, admitted: 4 }, 'single', 3, true)).toEqual({
      kind: 'admit',
      people: 1,
      refused: 2,
      after: { inside: 5, admitted: 5 },
    });
    expect(judgePartyEntry(5, { inside: 5, admitted: 5 }, 'single', 3, true)).toEqual({ kind: 'full' });
  });
  it('under re-entry people who were in come back first: admitted never exceeds the size', () => {
    expect(afterEntry({ inside: 1, admitted: 4 }, 2, 'reentry')).toEqual({ inside: 3, admitted: 4 });
    expect(afterEntry({ inside: 1, admitted: 2 }, 3, 'reentry')).toEqual({ inside: 4, admitted: 4 });
    expect(afterEntry({ inside: 1, admitted: 2 }, 3, 'single')).toEqual({ inside: 4, admitted: 5 });
  });
});

describe('an exit of a part', () => {
  it('nobody inside is not_inside; otherwise up to those inside go out', () => {
    expect(judgePartyExit({ inside: 0, admitted: 3 }, 1)).toEqual({ kind: 'not_inside' });
    expect(judgePartyExit({ inside: 3, admitted: 3 }, 2)).toEqual({ kind: 'exit', people: 2, after: { inside: 1, admitted: 3 } });
    expect(judgePartyExit({ inside: 3, admitted: 3 }, 9)).toEqual({ kind: 'exit', people: 3, after: { inside: 0, admitted: 3 } });
  });
});

describe('the wire', () => {
  it('an answer carries size, inside, admitted_total, remaining and, for a late part, refused', () => {
    expect(partyState(5, { inside: 3, admitted: 3 }, 'single')).toEqual({ size: 5, inside: 3, admitted_total: 3, remaining: 2 });
    expect(partyState(5, { inside: 5, admitted: 5 }, 'single', 2)).toEqual({
      size: 5,
      inside: 5,
      admitted_total: 5,
      remaining: 0,
      refused: 2,
    });
  });
  it('reads a party back, and refuses malformed ones', () => {
    const good = { size: 5, inside: 3, admitted_total: 3, remaining: 2 };
    expect(partyStateFrom(good)).toEqual(good);
    expect(partyStateFrom({ ...good, refused: 1 })).toEqual({ ...good, refused: 1 });
    for (const bad of [null, 'x', { ...good, size: 0 }, { ...good, size: 1001 }, { ...good, inside: -1 }, { ...good, remaining: 1.5 }]) {
      expect(partyStateFrom(bad)).toBeNull();
    }
  });
  it('a notes list row is [tid, size 2..1000]', () => {
    expect(isPartyRow(['t1', 5])).toBe(true);
    for (const bad of [['t1', 1], ['t1', 1001], ['t1', '5'], [5, 5], ['t1'], 't1']) expect(isPartyRow(bad)).toBe(false);
  });
});
