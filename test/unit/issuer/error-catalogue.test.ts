/** The admin operations' part of the error catalogue (issuer/error-catalogue.ts): exit codes and dashboard answers. */
import { describe, expect, test } from 'vitest';
import { ERROR_STATUS } from '../../../protocol/error-envelope.js';
import {
  ADMIN_FAILURES,
  AdminError,
  errors,
  exitCodeFor,
  toApiError,
  NOT_READY_RETRY_AFTER_S,
  type AdminErrorCode,
} from '../../../issuer/error-catalogue.js';

const codes = Object.keys(ADMIN_FAILURES) as AdminErrorCode[];

describe('exit codes (docs/protocol.md "The admin CLI")', () => {
  test('a command line commander could not parse is a usage error, exit 2', () => {
    expect(exitCodeFor('USAGE')).toBe(2);
  });

  test('every other failure exits 1', () => {
    for (const code of codes.filter((c) => c !== 'USAGE')) expect(exitCodeFor(code), code).toBe(1);
  });
});

describe('the dashboard API\'s answer to a failed action (docs/protocol.md "The admin dashboard")', () => {
  test('an unknown event, ticket, scanner key or setup token is 404 NOT_FOUND, its code in lower case as the reason', () => {
    for (const code of ['EVENT_NOT_FOUND', 'TICKET_NOT_FOUND', 'API_KEY_NOT_FOUND', 'TOKEN_NOT_FOUND'] as const) {
      const answer = new AdminError(code, `no such thing (${code})`).toApiError();
      expect(answer.statusCode, code).toBe(404);
      expect(answer.toEnvelope()).toEqual({
        error: { code: 'NOT_FOUND', message: `no such thing (${code})`, details: { reason: code.toLowerCase() } },
      });
    }
  });

  test('a refused action is 400 INVALID_REQUEST, e.g. revoking a setup token already used', () => {
    const answer = new AdminError('TOKEN_ALREADY_USED', 'setup token t1 was already used').toApiError();
    expect(answer.statusCode).toBe(400);
    expect(answer.toEnvelope()).toEqual({
      error: { code: 'INVALID_REQUEST', message: 'setup token t1 was already used', details: { reason: 'token_already_used' } },
    });
  });

  test('every "not found" code, and only those, answers 404; every answer is a code of the spec', () => {
    for (const code of codes) {
      const { api } = ADMIN_FAILURES[code];
      expect(Object.keys(ERROR_STATUS), code).toContain(api);
      if (code.endsWith('_NOT_FOUND')) expect(api, code).toBe('NOT_FOUND');
      else expect(api, code).not.toBe('NOT_FOUND');
    }
  });
});

describe('GET /readyz when not ready (docs/protocol.md "Health and readiness")', () => {
  test("503 with INTERNAL, the reason in details and Retry-After; every other error keeps its code's status", () => {
    for (const reason of ['shutting_down', 'not_initialised', 'database_unavailable'] as const) {
      const error = errors.notReady(reason);
      expect(error.statusCode).toBe(503);
      expect(error.headers).toEqual({ 'retry-after': String(NOT_READY_RETRY_AFTER_S) });
      expect(error.toEnvelope()).toMatchObject({ error: { code: 'INTERNAL', details: { reason } } });
    }
    expect(errors.internal().statusCode).toBe(500);
  });
});

describe('a database that cannot take a request now (docs/issuer.md "When the database fails")', () => {
  const sqliteError = (code: string) => Object.assign(new Error('database is locked'), { name: 'SqliteError', code });

  test.each(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR_WRITE', 'SQLITE_FULL', 'SQLITE_CANTOPEN', 'SQLITE_READONLY'])(
    '%s answers 503 with the envelope and Retry-After, saying nothing was stored',
    (code) => {
      const answer = toApiError(sqliteError(code));
      expect(answer.statusCode).toBe(503);
      expect(answer.toEnvelope().error).toMatchObject({ code: 'INTERNAL', details: { reason: 'database_unavailable' } });
      expect(answer.message).toMatch(/nothing was stored/);
      expect(answer.headers).toEqual({ 'retry-after': String(NOT_READY_RETRY_AFTER_S) });
    },
  );

  const postgresError = (code: string | undefined, message: string) => Object.assign(new Error(message), { name: 'error', code });

  test.each([
    ['08006', 'connection failure'],
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'terminating connection due to crash of another server process'],
    ['57P03', 'the database system is starting up'],
    ['53300', 'sorry, too many clients already'],
    ['55000', 'database "issuer" is not currently accepting connections'],
    [undefined, 'timeout exceeded when trying to connect'],
    [undefined, 'Connection terminated unexpectedly'],
    [undefined, 'Client has encountered a connection error and is not queryable'],
  ])('PostgreSQL %s "%s" answers 503 with Retry-After', (code, message) => {
    const answer = toApiError(postgresError(code, message));
    expect(answer.statusCode).toBe(503);
    expect(answer.toEnvelope().error).toMatchObject({ code: 'INTERNAL', details: { reason: 'database_unavailable' } });
    expect(answer.headers).toEqual({ 'retry-after': String(NOT_READY_RETRY_AFTER_S) });
  });

  test('other PostgreSQL errors stay 500: 55000 for another reason, a constraint, a syntax error', () => {
    for (const error of [
      postgresError('55000', 'cannot execute this in a read-only snapshot'),
      postgresError('23505', 'duplicate key value violates unique constraint'),
      postgresError('42601', 'syntax error at or near "SELEC"'),
    ]) {
      expect(toApiError(error).statusCode).toBe(500);
    }
  });

  test('a damaged file, or anything else unexpected, stays a 500 for the operator', () => {
    for (const error of [sqliteError('SQLITE_CORRUPT'), sqliteError('SQLITE_BUSYNESS'), new Error('boom'), null]) {
      expect(toApiError(error).statusCode).toBe(500);
    }
  });
});
