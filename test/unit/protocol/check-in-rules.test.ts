/**
 * Check-in rules, the pure function and the rules file's validator (protocol/check-in-rules.ts;
 * docs/protocol.md "Check-in rules"): gate/type matrices, windows across midnight, time zones and DST,
 * entries per day, and validation errors that name their path.
 */
import { describe, expect, it } from 'vitest';
import {
  entriesOnLocalDay,
  evaluateRules,
  localParts,
  parseRules,
  ruleMessageEn,
  validateRules,
  RulesValidationError,
  type CheckInRule,
  type CheckInRules,
  type RuleFacts,
} from '../../../protocol/check-in-rules.js';

const rules = (list: CheckInRule[], timeZone = 'UTC'): CheckInRules => ({ version: 1, time_zone: timeZone, rules: list });

const facts = (over: Partial<RuleFacts> = {}): RuleFacts => ({
  ticketType: 'Standard',
  gateId: 'A',
  direction: 'entry',
  at: Date.parse('2026-07-10T19:00:00Z'),
  entriesToday: 0,
  entryPolicy: 'reentry',
  ...over,
});

/** `pass`, or the refusal's code and rule index. */
const outcome = (r: CheckInRules, f: Partial<RuleFacts>): string => {
  const result = evaluateRules(r, facts(f));
  return result.pass ? 'pass' : `${result.refusal.code}#${result.refusal.rule}`;
};

describe('gates and ticket types', () => {
  const festival = rules([
    { name: 'VIP entrance', gates: ['VIP'], only_ticket_types: ['VIP'], message: { en: 'VIP entrance only', de: 'Nur VIP-Eingang' } },
    { name: 'Crew gate', ticket_types: ['Crew'], only_gates: ['C'] },
  ]);

  it.each([
    // ticket type, gate → outcome
    ['VIP', 'VIP', 'pass'],
    ['Standard', 'VIP', 'ticket_type_not_allowed#0'],
    [null, 'VIP', 'ticket_type_not_allowed#0'],
    ['VIP', 'A', 'pass'],
    ['Standard', 'A', 'pass'],
    ['Crew', 'C', 'pass'],
    ['Crew', 'A', 'wrong_gate#1'],
    ['Crew', 'VIP', 'ticket_type_not_allowed#0'], // the first failing rule decides
    ['Crew', null, 'wrong_gate#1'], // a scanner without a gate is gate ""
  ] as const)('%s at gate %s: %s', (ticketType, gateId, expected) => {
    expect(outcome(festival, { ticketType, gateId })).toBe(expected);
  });

  it('names the rule in words: its own message, else the generated one', () => {
    const refused = evaluateRules(festival, facts({ gateId: 'VIP' }));
    expect(refused).toEqual({
      pass: false,
      refusal: {
        code: 'ticket_type_not_allowed',
        rule: 0,
        name: 'VIP entrance',
        message: 'VIP entrance only',
        messages: { en: 'VIP entrance only', de: 'Nur VIP-Eingang' },
        ticket_types: ['VIP'],
      },
    });
    const crew = evaluateRules(festival, facts({ ticketType: 'Crew', gateId: 'A' }));
    expect(crew).toEqual({ pass: false, refusal: { code: 'wrong_gate', rule: 1, name: 'Crew gate', message: 'Use gate C', gates: ['C'] } });
  });

  it('"" matches a ticket without a type', () => {
    const r = rules([{ name: 'Typed tickets only at B', gates: ['B'], only_ticket_types: ['Standard', 'VIP'] }]);
    expect(outcome(r, { ticketType: undefined, gateId: 'B' })).toBe('ticket_type_not_allowed#0');
    const untyped = rules([{ name: 'Untyped at B', gates: ['B'], only_ticket_types: [''] }]);
    expect(outcome(untyped, { ticketType: null, gateId: 'B' })).toBe('pass');
  });

  it('never refuses an exit', () => {
    expect(outcome(festival, { gateId: 'VIP', direction: 'exit' })).toBe('pass');
  });

  it('no rules: everything passes', () => {
    expect(outcome(rules([]), {})).toBe('pass');
  });
});

describe('time windows', () => {
  const early = rules(
    [
      { name: 'VIP early entry', ticket_types: ['VIP'], window: { from: '17:00', to: '23:00' } },
      { name: 'Doors', except_ticket_types: ['VIP'], window: { from: '18:00', to: '23:00' } },
    ],
    'Europe/Berlin',
  );
  // 2026-07-10 is summer time in Berlin: UTC+2.
  const berlin = (time: string): number => Date.parse(`2026-07-10T${time}:00+02:00`);

  it.each([
    ['VIP', '16:59', 'not_open_yet#0'],
    ['VIP', '17:00', 'pass'],
    ['Standard', '17:30', 'not_open_yet#1'],
    ['Standard', '18:00', 'pass'],
    ['Standard', '22:59', 'pass'],
    ['Standard', '23:00', 'closed#1'],
    ['VIP', '23:30', 'closed#0'],
  ] as const)('%s at %s Berlin time: %s', (ticketType, time, expected) => {
    expect(outcome(early, { ticketType, at: berlin(time) })).toBe(expected);
  });

  it('says when it opens and when it closed, in the event’s time', () => {
    const before = evaluateRules(early, facts({ at: berlin('17:30') }));
    expect(before.pass === false && before.refusal).toMatchObject({ code: 'not_open_yet', time: '18:00', message: 'Opens at 18:00' });
    const after = evaluateRules(early, facts({ at: berlin('23:10') }));
    expect(after.pass === false && after.refusal).toMatchObject({ code: 'closed', time: '23:00', message: 'Closed since 23:00' });
  });

  it('a window across midnight (22:00-04:00) is open late at night and early in the morning', () => {
    const night = rules([{ name: 'Night', window: { from: '22:00', to: '04:00' } }]);
    expect(outcome(night, { at: Date.parse('2026-07-10T23:30:00Z') })).toBe('pass');
    expect(outcome(night, { at: Date.parse('2026-07-11T00:00:00Z') })).toBe('pass');
    expect(outcome(night, { at: Date.parse('2026-07-11T03:59:00Z') })).toBe('pass');
    expect(outcome(night, { at: Date.parse('2026-07-11T04:00:00Z') })).toBe('not_open_yet#0');
    expect(outcome(night, { at: Date.parse('2026-07-11T21:59:00Z') })).toBe('not_open_yet#0');
  });

  it('judges in the rules’ time zone, not UTC: the same instant opens in Berlin and not in New York', () => {
    const list: CheckInRule[] = [{ name: 'Doors', window: { from: '18:00', to: '23:00' } }];
    const at = Date.parse('2026-07-10T17:00:00Z'); // 19:00 in Berlin, 13:00 in New York
    expect(outcome(rules(list, 'Europe/Berlin'), { at })).toBe('pass');
    expect(outcome(rules(list, 'America/New_York'), { at })).toBe('not_open_yet#0');
    expect(outcome(rules(list, 'UTC'), { at })).toBe('not_open_yet#0');
  });

  it('follows DST: 18:00 Berlin is 16:00 UTC in summer and 17:00 UTC in winter', () => {
    const r = rules([{ name: 'Doors', window: { from: '18:00', to: '23:00' } }], 'Europe/Berlin');
    expect(outcome(r, { at: Date.parse('2026-07-10T16:00:00Z') })).toBe('pass');
    expect(outcome(r, { at: Date.parse('2026-12-10T16:00:00Z') })).toBe('not_open_yet#0');
    expect(outcome(r, { at: Date.parse('2026-12-10T17:00:00Z') })).toBe('pass');
  });

  it('on the night clocks go forward, a window from 02:30 opens at 03:00 (02:30 never happens)', () => {
    // 2026-03-29 in Berlin: 02:00 CET becomes 03:00 CEST (01:00 UTC).
    const r = rules([{ name: 'Early', window: { from: '02:30', to: '06:00' } }], 'Europe/Berlin');
    expect(localParts(Date.parse('2026-03-29T00:59:00Z'), 'Europe/Berlin')).toEqual({ date: '2026-03-29', minutes: 1 * 60 + 59 });
    expect(outcome(r, { at: Date.parse('2026-03-29T00:59:00Z') })).toBe('not_open_yet#0');
    expect(localParts(Date.parse('2026-03-29T01:00:00Z'), 'Europe/Berlin')).toEqual({ date: '2026-03-29', minutes: 3 * 60 });
    expect(outcome(r, { at: Date.parse('2026-03-29T01:00:00Z') })).toBe('pass');
  });

  it('dates limit a rule to local calendar days', () => {
    const r = rules([{ name: 'Day 1 doors', dates: ['2026-07-10'], window: { from: '18:00', to: '23:00' } }], 'Europe/Berlin');
    expect(outcome(r, { at: Date.parse('2026-07-10T14:00:00Z') })).toBe('not_open_yet#0'); // 16:00 on the 10th
    expect(outcome(r, { at: Date.parse('2026-07-11T14:00:00Z') })).toBe('pass'); // the 11th: the rule does not apply
    // 23:30 UTC on the 9th is already the 10th in Berlin (01:30).
    expect(outcome(r, { at: Date.parse('2026-07-09T23:30:00Z') })).toBe('not_open_yet#0');
  });
});

describe('entries per day', () => {
  const limited = rules([{ name: 'Day pass', max_entries_per_day: 2 }], 'Europe/Berlin');

  it('refuses once the day’s entries reach the limit, on a re-entry event', () => {
    expect(outcome(limited, { entriesToday: 1 })).toBe('pass');
    expect(outcome(limited, { entriesToday: 2 })).toBe('daily_limit#0');
    const refused = evaluateRules(limited, facts({ entriesToday: 2 }));
    expect(refused.pass === false && refused.refusal).toMatchObject({ limit: 2, message: 'Entry limit reached: 2 per day' });
  });

  it('does not apply on a single-entry event (a ticket enters once anyway; the second scan is already used)', () => {
    expect(outcome(limited, { entriesToday: 5, entryPolicy: 'single' })).toBe('pass');
  });

  it('counts entries on the scan’s local calendar day in the rules’ time zone', () => {
    const entries = ['2026-07-10T08:00:00Z', '2026-07-10T21:30:00Z', '2026-07-10T22:30:00Z'];
    // In Berlin, 22:30 UTC is 00:30 on the 11th: a new day.
    expect(entriesOnLocalDay(entries, Date.parse('2026-07-10T12:00:00Z'), 'Europe/Berlin')).toBe(2);
    expect(entriesOnLocalDay(entries, Date.parse('2026-07-11T09:00:00Z'), 'Europe/Berlin')).toBe(1);
    expect(entriesOnLocalDay(entries, Date.parse('2026-07-10T23:59:00Z'), 'UTC')).toBe(3);
  });
});

describe('generated words', () => {
  it('lists gates and types, "" as (none)', () => {
    expect(ruleMessageEn({ code: 'wrong_gate', gates: ['A', 'B'] })).toBe('Use gate A, B');
    expect(ruleMessageEn({ code: 'ticket_type_not_allowed', ticket_types: ['VIP', ''] })).toBe('VIP, (none) tickets only');
  });
});

describe('validateRules', () => {
  const good = {
    version: 1,
    time_zone: 'Europe/Berlin',
    rules: [
      { name: 'VIP entrance', gates: ['VIP'], only_ticket_types: ['VIP'], message: { en: 'VIP entrance only' } },
      { name: 'Doors', except_ticket_types: ['VIP'], window: { from: '18:00', to: '02:00' } },
      { name: 'Day pass', dates: ['2026-07-10', '2026-07-11'], max_entries_per_day: 3 },
    ],
  };

  it('accepts the documented example and keeps only its known fields', () => {
    const result = validateRules(good);
    expect(result).toEqual({ ok: true, rules: good });
  });

  it('defaults the time zone to UTC and the version to 1', () => {
    expect(validateRules({ rules: [] })).toEqual({ ok: true, rules: { version: 1, time_zone: 'UTC', rules: [] } });
  });

  it.each([
    [
      { rules: [{ name: 'a' }, { name: 'b' }, { name: 'Doors', window: { from: '25:00', to: '02:00' } }] },
      'rules[2].window.from: "25:00" is not a time HH:MM',
    ],
    [{ rules: [{ name: 'Doors', window: { from: '18:00', to: '18:00' } }] }, 'rules[0].window: from and to are both 18:00'],
    [{ time_zone: 'Mars/Olympus', rules: [] }, 'time_zone: "Mars/Olympus" is not an IANA time zone'],
    [{ version: 2, rules: [] }, 'version: 2 is not a supported version (1)'],
    [{ rules: {} }, 'rules: must be a list of rules'],
    [{ rules: [{ name: 'x', only_gates: ['A'], window: { from: '18:00', to: '19:00' } }] }, 'rules[0]: needs exactly one of'],
    [{ rules: [{ name: 'x' }] }, 'rules[0]: needs exactly one of only_ticket_types, only_gates, window, max_entries_per_day'],
    [{ rules: [{ name: '', only_gates: ['A'] }] }, 'rules[0].name: "" must be a text of 1-200 characters'],
    [{ rules: [{ name: 'x', only_gates: [] }] }, 'rules[0].only_gates: must be a non-empty list of texts'],
    [{ rules: [{ name: 'x', only_gates: ['A', 7] }] }, 'rules[0].only_gates[1]: 7 must be a text'],
    [{ rules: [{ name: 'x', dates: ['2026-02-30'], only_gates: ['A'] }] }, 'rules[0].dates[0]: "2026-02-30" is not a date YYYY-MM-DD'],
    [{ rules: [{ name: 'x', max_entries_per_day: 0 }] }, 'rules[0].max_entries_per_day: 0 is not a whole number of at least 1'],
    [{ rules: [{ name: 'x', max_entries_per_day: 1.5 }] }, 'rules[0].max_entries_per_day: 1.5 is not a whole number'],
    [{ rules: [{ name: 'x', only_gates: ['A'], windw: {} }] }, 'rules[0].windw: unknown field'],
    [{ rules: [{ name: 'x', only_gates: ['A'], message: { it: 'Solo' } }] }, 'rules[0].message.it: not a language of the kiosk'],
    [
      { rules: [{ name: 'x', ticket_types: ['A'], except_ticket_types: ['B'], only_gates: ['A'] }] },
      'rules[0]: give ticket_types or except_ticket_types, not both',
    ],
    [{ rule: [] }, 'rule: unknown field'],
    [[], '(top): must be an object'],
  ])('%j → %s', (input, problem) => {
    const result = validateRules(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.join('\n')).toContain(problem);
  });

  it('reports every problem, not just the first', () => {
    const result = validateRules({ time_zone: 'Nowhere', rules: [{ name: 'a', window: { from: '9:00', to: '24:00' } }] });
    expect(result.ok === false && result.problems).toEqual([
      'time_zone: "Nowhere" is not an IANA time zone',
      'rules[0].window.from: "9:00" is not a time HH:MM',
      'rules[0].window.to: "24:00" is not a time HH:MM',
    ]);
  });

  it('parseRules throws the problems as one RulesValidationError', () => {
    expect(() => parseRules({ rules: 3 })).toThrow(RulesValidationError);
    expect(() => parseRules({ rules: 3 })).toThrow('rules: must be a list of rules');
  });
});
