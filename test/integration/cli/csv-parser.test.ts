/** The CSV reader behind `ticket import` (issuer/csv.ts), on its own. */
import { describe, expect, it } from 'vitest';
import { CsvSyntaxError, formatCsvRow, parseCsv } from '../../../issuer/csv.js';

describe('parseCsv', () => {
  it.each([
    [
      'a,b\nc,d',
      [
        [1, ['a', 'b']],
        [2, ['c', 'd']],
      ],
    ],
    [
      'a,b\r\nc,d\r\n',
      [
        [1, ['a', 'b']],
        [2, ['c', 'd']],
      ],
    ],
    ['"a, b",c', [[1, ['a, b', 'c']]]],
    ['"say ""hi""",x', [[1, ['say "hi"', 'x']]]],
    [
      '"two\nlines",x\nnext,y',
      [
        [1, ['two\nlines', 'x']],
        [3, ['next', 'y']],
      ],
    ],
    ['"",x', [[1, ['', 'x']]]],
    ['a,', [[1, ['a', '']]]],
    ['\uFEFFa,b', [[1, ['a', 'b']]]],
    ['a, "b, c" ,d', [[1, ['a', 'b, c', 'd']]]],
  ])('%j', (text, expected) => {
    expect(parseCsv(text).map((r) => [r.line, r.fields])).toEqual(expected);
  });

  it.each([
    ['a,"b\nc', 1, 'never closed'],
    ['x\na,b"c', 2, 'quote inside an unquoted field'],
    ['"a"b,c', 1, 'closing quote'],
  ])('%j is a syntax error on line %i', (text, line, message) => {
    let error: unknown;
    try {
      parseCsv(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CsvSyntaxError);
    expect((error as CsvSyntaxError).line).toBe(line);
    expect((error as CsvSyntaxError).message).toContain(message);
  });

  it('formatCsvRow quotes what needs it and round-trips through parseCsv', () => {
    const fields = ['plain', 'with, comma', 'with "quote"', 'two\nlines', ''];
    expect(parseCsv(formatCsvRow(fields))[0]!.fields).toEqual(fields);
  });
});
