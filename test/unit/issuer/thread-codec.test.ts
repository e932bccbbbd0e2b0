/**
 * What crosses to and from the SQLite database thread (issuer/store/thread-codec.ts): errors keep their
 * class and fields, so a refusal stays the catalogue's answer and a busy database stays a 503.
 */
import { describe, expect, it } from 'vitest';
import { AdminError, ApiError, errors, isDatabaseUnavailable, toApiError } from '../../../issuer/error-catalogue.js';
import { decodeError, decodeValue, encodeError, encodeValue } from '../../../issuer/store/thread-codec.js';

/** The structured clone a thread message goes through. */
const overTheWire = <T>(value: T): T => structuredClone(value);

describe('thread codec', () => {
  it('an ApiError comes back an ApiError with its code, status, details and headers', () => {
    const original = errors.rateLimited(7);
    const back = decodeError(overTheWire(encodeError(original)));
    expect(back).toBeInstanceOf(ApiError);
    expect(back).toMatchObject({ code: original.code, statusCode: 429, message: original.message, headers: original.headers });
  });

  it('an AdminError comes back an AdminError with its code', () => {
    const back = decodeError(overTheWire(encodeError(new AdminError('TICKET_NOT_FOUND', 'no ticket T'))));
    expect(back).toBeInstanceOf(AdminError);
    expect(back).toMatchObject({ code: 'TICKET_NOT_FOUND', message: 'no ticket T' });
  });

  it('a driver error keeps its code, so a busy database is still answered 503', () => {
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const back = decodeError(overTheWire(encodeError(busy)));
    expect(isDatabaseUnavailable(back)).toBe(true);
    expect(toApiError(back).statusCode).toBe(503);
    expect(decodeError(overTheWire(encodeError('not an error')))).toMatchObject({ message: 'not an error' });
  });

  it("an answer's error field is carried; other answers pass unchanged", () => {
    const answer = { ok: false, error: errors.invalidToken() };
    const back = decodeValue(overTheWire(encodeValue(answer))) as typeof answer;
    expect(back.ok).toBe(false);
    expect(back.error).toBeInstanceOf(ApiError);
    expect(back.error.code).toBe(answer.error.code);
    const plain = { ok: true, httpStatus: 200, responseBody: '{"status":"valid"}' };
    expect(decodeValue(overTheWire(encodeValue(plain)))).toEqual(plain);
    expect(decodeValue(overTheWire(encodeValue([1, 2])))).toEqual([1, 2]);
  });
});
