/** The pure rules of ID and age checks (protocol/id-check.ts; docs/protocol.md "ID checks (project extension)"). */
import { describe, expect, it } from 'vitest';
import {
  ageBand,
  ageOn,
  formatIdCheck,
  idCheckFromAnswer,
  idCheckFromList,
  idCheckLine,
  idCheckOf,
  isBandRow,
  parseDob,
  parseIdCheck,
  shortHolder,
} from '../../../protocol/id-check.js';

describe('id_check parsing', () => {
  it('accepts none, name and age:N (1 to 120), any case and around spaces', () => {
    expect(parseIdCheck('none')).toEqual({ kind: 'none' });
    expect(parseIdCheck(' Name ')).toEqual({ kind: 'name' });
    expect(parseIdCheck('age:18')).toEqual({ kind: 'age', min_age: 18 });
    expect(parseIdCheck('AGE:1')).toEqual({ kind: 'age', min_age: 1 });
    expect(parseIdCheck('age:120')).toEqual({ kind: 'age', min_age: 120 });
  });
  it('refuses anything else', () => {
    for (const bad of ['', 'age', 'age:', 'age:0', 'age:018', 'age:121', 'age:18.5', 'age: 18', 'age:-1', 'passport', 'names'])
      expect(parseIdCheck(bad), bad).toBeNull();
  });
  it('writes the rule back as it is read', () => {
    for (const text of ['none', 'name', 'age:18', 'age:21']) expect(formatIdCheck(parseIdCheck(text)!)).toBe(text);
  });
});

describe('dates of birth', () => {
  it('accepts real calendar days, not after today', () => {
    expect(parseDob('1990-12-10')).toBe('1990-12-10');
    expect(parseDob('2000-02-29')).toBe('2000-02-29');
    expect(parseDob('2026-12-01', '2026-12-01')).toBe('2026-12-01');
  });
  it('refuses impossible days, other forms, the future and before 1900', () => {
    for (const bad of ['1990-02-30', '1900-02-29', '1990-13-01', '19901210', '1990-1-1', '10.12.1990', '1899-12-31', ''])
      expect(parseDob(bad), bad).toBeNull();
    expect(parseDob('2026-12-02', '2026-12-01')).toBeNull();
  });
});

describe('age on the event date', () => {
  it('counts whole years; the birthday itself counts', () => {
    expect(ageOn('2008-06-15', '2026-06-15')).toBe(18);
    expect(ageOn('2008-06-16', '2026-06-15')).toBe(17);
    expect(ageOn('2008-06-14', '2026-06-15T20:00:00Z')).toBe(18);
    expect(ageOn('1990-01-01', '2026-12-31')).toBe(36);
  });
  it('someone born on 29 February turns a year older on 1 March in a common year, on 29 February in a leap year', () => {
    expect(ageOn('2008-02-29', '2026-02-28')).toBe(17);
    expect(ageOn('2008-02-29', '2026-03-01')).toBe(18);
    expect(ageOn('2004-02-29', '2024-02-29')).toBe(20);
    expect(ageOn('2004-02-29', '2024-02-28')).toBe(19);
  });
  it('gives the band for N: over at N or more, under below, unknown without a date', () => {
    expect(ageBand('2008-06-15', '2026-06-15', 18)).toBe('over');
    expect(ageBand('2008-06-16', '2026-06-15', 18)).toBe('under');
    expect(ageBand(null, '2026-06-15', 18)).toBe('unknown');
    expect(ageBand(undefined, '2026-06-15', 18)).toBe('unknown');
  });
});

describe('what the door is told', () => {
  it('the short name: first word and the last word initial', () => {
    expect(shortHolder('Ada Lovelace')).toBe('Ada L.');
    expect(shortHolder('  Ada   King  Lovelace ')).toBe('Ada L.');
    expect(shortHolder('Ada')).toBe('Ada');
    expect(shortHolder('Zoë Ångström')).toBe('Zoë Å.');
    expect(shortHolder(null)).toBe('');
  });
  it('the extension for a name check, an age check and no check; the same from the synced list', () => {
    const ticket = { holder_name: 'Ada Lovelace', dob: '2000-01-01' };
    expect(idCheckOf(parseIdCheck('none'), ticket, '2026-06-15')).toBeNull();
    expect(idCheckOf(null, ticket, '2026-06-15')).toBeNull();
    expect(idCheckOf(parseIdCheck('name'), ticket, '2026-06-15')).toEqual({ kind: 'name', holder: 'Ada L.', band: 'unknown' });
    const age = idCheckOf(parseIdCheck('age:18'), ticket, '2026-06-15');
    expect(age).toEqual({ kind: 'age', min_age: 18, holder: 'Ada L.', band: 'over' });
    expect(idCheckFromList(parseIdCheck('age:18'), 'Ada Lovelace', 'over')).toEqual(age);
    expect(idCheckFromList(parseIdCheck('age:18'), 'Ada Lovelace', null)).toEqual({ ...age, band: 'unknown' });
    expect(idCheckFromList(parseIdCheck('name'), 'Ada Lovelace', 'over')).toEqual({ kind: 'name', holder: 'Ada L.', band: 'unknown' });
    expect(idCheckLine(age!)).toBe('name Ada L., 18+');
  });
  it('reads an answer field by field; anything malformed is no extension', () => {
    expect(idCheckFromAnswer({ id_check: { kind: 'age', min_age: 18, holder: 'Ada L.', band: 'under' } })).toEqual({
      kind: 'age',
      min_age: 18,
      holder: 'Ada L.',
      band: 'under',
    });
    expect(idCheckFromAnswer({ id_check: { kind: 'name', holder: 'Ada L.', band: 'over' } })).toEqual({
      kind: 'name',
      holder: 'Ada L.',
      band: 'unknown',
    });
    for (const bad of [
      null,
      {},
      { id_check: null },
      { id_check: { kind: 'passport', holder: '', band: 'over' } },
      { id_check: { kind: 'age', holder: 'A', band: 'over' } },
      { id_check: { kind: 'age', min_age: 0, holder: 'A', band: 'over' } },
      { id_check: { kind: 'age', min_age: 18, holder: 'A', band: 'old' } },
      { id_check: { kind: 'age', min_age: 18, holder: 7, band: 'over' } },
    ])
      expect(idCheckFromAnswer(bad)).toBeNull();
    expect(isBandRow(['t1', 'over'])).toBe(true);
    expect(isBandRow(['t1', '1990-01-01'])).toBe(false);
    expect(isBandRow(['', 'over'])).toBe(false);
  });
});
