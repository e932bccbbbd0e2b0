/**
 * The PostgreSQL store's placeholder rewriting and its retry rule
 * (issuer/store/postgres-database.ts): pure functions, no database.
 */
import { describe, expect, it } from 'vitest';
import { isRetryableWriteError, toPostgresPlaceholders } from '../../../issuer/store/postgres-database.js';

describe('toPostgresPlaceholders', () => {
  it('numbers positional ? in order and keeps the array', () => {
    expect(toPostgresPlaceholders('SELECT * FROM tickets WHERE tid = ? AND eid = ?', ['T1', 'E1'])).toEqual({
      text: 'SELECT * FROM tickets WHERE tid = $1 AND eid = $2',
      values: ['T1', 'E1'],
    });
  });

  it('maps named @name to $n in order of first use, values from the object', () => {
    expect(toPostgresPlaceholders('INSERT INTO t (a, b) VALUES (@b_2, @a)', { a: 1, b_2: null, unused: 'x' })).toEqual({
      text: 'INSERT INTO t (a, b) VALUES ($1, $2)',
      values: [null, 1],
    });
  });

  it('gives a name used twice one $n', () => {
    expect(toPostgresPlaceholders('SELECT @now AS a, @tid AS b WHERE x < @now', { tid: 'T', now: 5 })).toEqual({
      text: 'SELECT $1 AS a, $2 AS b WHERE x < $1',
      values: [5, 'T'],
    });
  });

  it('leaves ? and @ inside single-quoted literals alone, also with doubled quotes', () => {
    const sql = "SELECT 'why? ask@example.org' AS a, 'it''s ? @x' AS b, ? AS c";
    expect(toPostgresPlaceholders(sql, [7])).toEqual({
      text: "SELECT 'why? ask@example.org' AS a, 'it''s ? @x' AS b, $1 AS c",
      values: [7],
    });
  });

  it('leaves comments and double-quoted identifiers alone, even an apostrophe in a comment', () => {
    const sql = `SELECT "a?b" AS c -- the issuer's column? @no
      , ? /* why? @not */ AS d`;
    const { text, values } = toPostgresPlaceholders(sql, ['v']);
    expect(text).toBe(`SELECT "a?b" AS c -- the issuer's column? @no
      , $1 /* why? @not */ AS d`);
    expect(values).toEqual(['v']);
  });

  it('does not take casts or operators for placeholders', () => {
    expect(toPostgresPlaceholders('SELECT @n::bigint, a @> b, 1@2', { n: 3 }).text).toBe('SELECT $1::bigint, a @> b, 1@2');
  });

  it('passes a text without placeholders through, with no values', () => {
    expect(toPostgresPlaceholders('SELECT 1')).toEqual({ text: 'SELECT 1', values: [] });
    expect(toPostgresPlaceholders('SELECT 1', {})).toEqual({ text: 'SELECT 1', values: [] });
  });

  it('refuses a missing named parameter, naming it and no value', () => {
    expect(() => toPostgresPlaceholders('SELECT @tid, @secret_hash', { tid: 'T' })).toThrow('missing named parameter @secret_hash');
  });

  it('refuses a count that does not match, the wrong params shape, and mixed styles', () => {
    expect(() => toPostgresPlaceholders('SELECT ?, ?', ['one'])).toThrow(/2 positional \? placeholders but 1 values/);
    expect(() => toPostgresPlaceholders('SELECT ?', { a: 1 })).toThrow(/as an array/);
    expect(() => toPostgresPlaceholders('SELECT @a', ['x'])).toThrow(/as an object/);
    expect(() => toPostgresPlaceholders('SELECT 1', ['x'])).toThrow(/no placeholders/);
    expect(() => toPostgresPlaceholders('SELECT ?, @a', ['x'])).toThrow(/mixes positional/);
  });

  it('gives the same answer for a cached text, with the new values', () => {
    const sql = 'SELECT * FROM checkins WHERE tid = @tid';
    expect(toPostgresPlaceholders(sql, { tid: 'A' }).values).toEqual(['A']);
    expect(toPostgresPlaceholders(sql, { tid: 'B' })).toEqual({ text: 'SELECT * FROM checkins WHERE tid = $1', values: ['B'] });
  });
});

describe('isRetryableWriteError', () => {
  const withCode = (code: string) => Object.assign(new Error('from PostgreSQL'), { code });

  it('retries when a concurrent writer won: serialization failure, deadlock, unique violation', () => {
    expect(isRetryableWriteError(withCode('40001'))).toBe(true);
    expect(isRetryableWriteError(withCode('40P01'))).toBe(true);
    expect(isRetryableWriteError(withCode('23505'))).toBe(true);
  });

  it('does not retry anything else', () => {
    expect(isRetryableWriteError(withCode('23503'))).toBe(false); // foreign_key_violation: rerunning changes nothing
    expect(isRetryableWriteError(withCode('42P01'))).toBe(false); // undefined_table
    expect(isRetryableWriteError(withCode('ECONNREFUSED'))).toBe(false);
    expect(isRetryableWriteError(new Error('a job error'))).toBe(false);
    expect(isRetryableWriteError(Object.assign(new Error('x'), { code: 40001 }))).toBe(false);
    expect(isRetryableWriteError(undefined)).toBe(false);
    expect(isRetryableWriteError('40001')).toBe(false);
  });
});
