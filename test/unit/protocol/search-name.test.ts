import { describe, expect, it } from 'vitest';
import { idQuery, nameMatches, searchName, searchTokens, shortIdOf } from '../../../protocol/search-name.js';

describe('searchName (docs/protocol.md "Ticket search")', () => {
  it('drops accents, folds case and makes punctuation a space', () => {
    expect(searchName('Zoë  Ångström-Lévy')).toBe('zoe angstrom levy');
    expect(searchName('STRAẞE Øre Łódź')).toBe('strasse ore lodz');
    expect(searchName('ﬁona')).toBe('fiona');
    expect(searchName("O'Brien, Seán")).toBe('o brien sean');
  });

  it('keeps letters of other scripts, without their vowel marks', () => {
    expect(searchName('مُحَمَّد علي')).toBe('محمد علي');
    expect(searchName('שלום עליכם')).toBe('שלום עליכם');
  });
});

describe('nameMatches', () => {
  it('finds a name from partial words in any case and accent', () => {
    expect(nameMatches(searchTokens('zoe ang'), 'Zoë Ångström')).toBe(true);
    expect(nameMatches(searchTokens('ÅNG ZOË'), 'Zoë Ångström')).toBe(true);
    expect(nameMatches(searchTokens('strom'), 'Zoë Ångström')).toBe(true);
  });

  it('needs every word', () => {
    expect(nameMatches(searchTokens('zoe smith'), 'Zoë Ångström')).toBe(false);
    expect(nameMatches(searchTokens('zoe'), null)).toBe(false);
    expect(nameMatches(searchTokens(' - '), 'Zoë')).toBe(false);
  });
});

describe('idQuery and shortIdOf', () => {
  it('reads a short id with or without its hyphen, and a whole tid', () => {
    const tid = '01JD00000000000000ABCDWXYZ';
    expect(shortIdOf(tid)).toBe('ABCD-WXYZ');
    expect(idQuery('00ab-cdef')).toEqual({ shortId: '00ABCDEF' });
    expect(idQuery('00abcdef')).toEqual({ shortId: '00ABCDEF' });
    expect(idQuery(tid)).toEqual({ tid });
    expect(idQuery('zoe ang')).toBeNull();
    expect(idQuery('zoe')).toBeNull();
  });
});
