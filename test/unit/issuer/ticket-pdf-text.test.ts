/** The ticket PDF's line layout decisions (issuer/admin/ticket-pdf-text.ts): word order and wrapping. */
import { describe, expect, it } from 'vitest';
import { directionOf, visualOrder, wrapWords } from '../../../issuer/admin/ticket-pdf-text.js';

/** Every character one unit wide. */
const width = (text: string): number => [...text].length;

describe('visualOrder', () => {
  it('keeps a left-to-right line as it is', () => {
    expect(visualOrder(['Zoë', 'Ångström'])).toEqual(['Zoë', 'Ångström']);
  });
  it('reverses the words of a right-to-left line', () => {
    expect(directionOf('محمد علي')).toBe('rtl');
    expect(visualOrder(['محمد', 'علي'])).toEqual(['علي', 'محمد']);
    expect(visualOrder(['שלום', 'עליכם'])).toEqual(['עליכם', 'שלום']);
  });
  it('reverses only the right-to-left stretch of a left-to-right line', () => {
    expect(visualOrder(['Anna', 'محمد', 'علي', 'Smith'])).toEqual(['Anna', 'علي', 'محمد', 'Smith']);
  });
  it('in a right-to-left line, a Latin stretch keeps its order and the stretches run from the right', () => {
    expect(visualOrder(['محمد', 'John', 'Smith', 'علي'])).toEqual(['علي', 'John', 'Smith', 'محمد']);
  });
});

describe('wrapWords', () => {
  it('fits on one line when it can', () => {
    expect(wrapWords('ab cd', 10, 3, width, 1)).toEqual({ lines: [['ab', 'cd']], cut: false });
  });
  it('wraps at spaces', () => {
    expect(wrapWords('aaaa bbbb cccc', 9, 3, width, 1)).toEqual({ lines: [['aaaa', 'bbbb'], ['cccc']], cut: false });
  });
  it('cuts a word wider than the line between characters', () => {
    expect(wrapWords('abcdefgh', 3, 3, width, 1)).toEqual({ lines: [['abc'], ['def'], ['gh']], cut: false });
  });
  it('beyond the last line, cuts and ends with "…" within the width', () => {
    const { lines, cut } = wrapWords('aaaa bbbb cccc dddd', 4, 2, width, 1);
    expect(cut).toBe(true);
    expect(lines).toEqual([['aaaa'], ['bbb…']]);
  });
  it('when cut, says what the last line stands for: the rest of the text from its first word', () => {
    expect(wrapWords('aaaa  bbbb cccc dddd', 4, 2, width, 1).rest).toBe('bbbb cccc dddd');
    expect(wrapWords('ab cd', 10, 3, width, 1).rest).toBeUndefined();
    // A word split between characters goes on without a space; the next word after one.
    expect(wrapWords('abcdefghij kl', 3, 2, width, 1)).toEqual({ lines: [['abc'], ['de…']], cut: true, rest: 'defghij kl' });
  });
});
