/** docs/protocol.md "Handouts (project extension)": the pure rules, as the issuer and the kiosk both apply them. */
import { describe, expect, it } from 'vitest';
import {
  decideHandout,
  formatHandouts,
  handoutListProblem,
  handoutsFromAnswer,
  handoutsOf,
  isTicketHandoutRow,
  isTypeHandoutRow,
  MAX_HANDOUT_COUNT,
  MAX_HANDOUT_ITEM_LENGTH,
  MAX_HANDOUT_ITEMS,
  mergeHandouts,
  parseHandout,
  remainingOf,
} from '../../../protocol/handouts.js';

const given = (hid: string, item: string, at: string, scanner = 'Door 1', gate: string | null = 'North') => ({
  hid,
  item,
  at,
  gate,
  scanner,
});

describe('parseHandout', () => {
  it('reads a count before the name, 1 without, and keeps the name whole', () => {
    expect(parseHandout('2 drink voucher')).toEqual({ item: 'drink voucher', count: 2 });
    expect(parseHandout('wristband')).toEqual({ item: 'wristband', count: 1 });
    expect(parseHandout('  T-shirt   M ')).toEqual({ item: 'T-shirt M', count: 1 });
    expect(parseHandout('0 wristband')).toEqual({ item: 'wristband', count: 0 });
    // A number alone is a name, not a count of nothing.
    expect(parseHandout('42')).toEqual({ item: '42', count: 1 });
  });

  it('refuses a count above the most, an empty or too long name, and control characters', () => {
    expect(parseHandout(`${MAX_HANDOUT_COUNT + 1} cups`)).toHaveProperty('problem');
    expect(parseHandout('   ')).toHaveProperty('problem');
    expect(parseHandout('x'.repeat(MAX_HANDOUT_ITEM_LENGTH + 1))).toHaveProperty('problem');
    expect(parseHandout('wrist\u0000band')).toHaveProperty('problem');
    expect(parseHandout('cap\u202e')).toHaveProperty('problem');
  });

  it('writes a list back as the CLI takes it', () => {
    expect(
      formatHandouts([
        { item: 'wristband', count: 1 },
        { item: 'drink voucher', count: 2 },
      ]),
    ).toBe('wristband, 2 drink voucher');
  });
});

describe('handoutListProblem', () => {
  it('refuses too many items, a name twice and a count out of range', () => {
    const many = Array.from({ length: MAX_HANDOUT_ITEMS + 1 }, (_, i) => ({ item: `item ${i}`, count: 1 }));
    expect(handoutListProblem(many)).toMatch(/at most/);
    expect(
      handoutListProblem([
        { item: 'cap', count: 1 },
        { item: 'cap', count: 2 },
      ]),
    ).toMatch(/twice/);
    expect(handoutListProblem([{ item: 'cap', count: 1.5 }])).toMatch(/whole number/);
    expect(handoutListProblem([{ item: 'cap', count: 2 }])).toBeNull();
  });
});

describe('mergeHandouts', () => {
  it("takes the type's items, then the ticket's; the ticket's count wins and 0 takes an item away", () => {
    const type = [
      { item: 'wristband', count: 1 },
      { item: 'drink voucher', count: 2 },
    ];
    expect(mergeHandouts(type, null)).toEqual(type);
    expect(
      mergeHandouts(type, [
        { item: 'drink voucher', count: 4 },
        { item: 'T-shirt M', count: 1 },
      ]),
    ).toEqual([
      { item: 'wristband', count: 1 },
      { item: 'drink voucher', count: 4 },
      { item: 'T-shirt M', count: 1 },
    ]);
    expect(mergeHandouts(type, [{ item: 'wristband', count: 0 }])).toEqual([{ item: 'drink voucher', count: 2 }]);
    expect(mergeHandouts(undefined, undefined)).toEqual([]);
  });
});

describe('decideHandout', () => {
  const items = [
    { item: 'wristband', count: 1 },
    { item: 'drink voucher', count: 2 },
  ];

  it('gives an item while some of its count is left, oldest handout first', () => {
    const handouts = handoutsOf(items, [
      given('b', 'drink voucher', '2026-06-01T20:05:00Z'),
      given('a', 'drink voucher', '2026-06-01T20:00:00Z'),
    ]);
    expect(handouts[1]!.given.map((record) => record.hid)).toEqual(['a', 'b']);
    expect(remainingOf(handouts[0]!)).toBe(1);
    expect(decideHandout(handouts, 'wristband')).toMatchObject({ ok: true });
  });

  it('refuses an item not listed, then one whose count is used up, saying when and where', () => {
    const handouts = handoutsOf(items, [given('a', 'wristband', '2026-06-01T20:00:00Z', 'Merch 2', 'West')]);
    expect(decideHandout(handouts, 'T-shirt M')).toEqual({ ok: false, reason: 'not_listed' });
    const refused = decideHandout(handouts, 'wristband');
    expect(refused).toEqual({
      ok: false,
      reason: 'already_given',
      given: [{ hid: 'a', at: '2026-06-01T20:00:00Z', gate: 'West', scanner: 'Merch 2' }],
    });
  });

  it('the same handout id again is the same handout, not a second one', () => {
    const handouts = handoutsOf(items, [given('a', 'wristband', '2026-06-01T20:00:00Z')]);
    expect(decideHandout(handouts, 'wristband', 'a')).toMatchObject({ ok: true });
    expect(decideHandout(handouts, 'wristband', 'other')).toMatchObject({ ok: false, reason: 'already_given' });
  });
});

describe('wire checks', () => {
  it('accepts what the issuer sends and refuses the malformed', () => {
    const answer = { handouts: handoutsOf([{ item: 'cap', count: 1 }], [given('a', 'cap', '2026-06-01T20:00:00Z')]) };
    expect(handoutsFromAnswer(answer)).toEqual(answer.handouts);
    expect(handoutsFromAnswer({})).toBeNull();
    expect(handoutsFromAnswer({ handouts: [{ item: 'cap', count: 0, given: [] }] })).toBeNull();
    expect(handoutsFromAnswer({ handouts: [{ item: 'cap\u0007', count: 1, given: [] }] })).toBeNull();
    expect(isTypeHandoutRow({ ticket_type: 'VIP', items: [{ item: 'cap', count: 1 }] })).toBe(true);
    expect(isTypeHandoutRow({ ticket_type: 'VIP', items: [{ item: 'cap', count: 0 }] })).toBe(false);
    expect(isTicketHandoutRow(['t1', [{ item: 'cap', count: 0 }], [given('a', 'cap', '2026-06-01T20:00:00Z')]])).toBe(true);
    expect(isTicketHandoutRow(['t1', [], [{ hid: 'a', at: 'x', gate: null }]])).toBe(false);
  });
});
