import { describe, expect, test } from 'vitest';
import { TOKEN_FAILURE_LIMIT, tokenProblem } from '../../../issuer/services/enrollment.js';
import type { EnrollmentTokenRow } from '../../../issuer/store/scanners.js';

const NOW = new Date('2026-05-01T20:00:00Z');
const token = (changes: Partial<EnrollmentTokenRow> = {}): EnrollmentTokenRow => ({
  token_id: 'tok_1',
  token_hash: 'h',
  eid: 'E1',
  gate_id: null,
  expires_at: '2026-05-02T00:00:00Z',
  key_expires_at: '2026-05-03T00:00:00Z',
  direction: null,
  role: 'steward',
  pin_required: 0,
  created_at: '2026-04-01T00:00:00Z',
  used_at: null,
  revoked_at: null,
  failed_attempts: 0,
  ...changes,
});

describe("enrollment token checks, in the decisions' order", () => {
  test.each([
    ['unknown', undefined, 'unknown'],
    ['good', token(), null],
    ['expired', token({ expires_at: '2026-05-01T19:59:59Z' }), 'expired'],
    ['used', token({ used_at: '2026-05-01T10:00:00Z' }), 'used'],
    ['revoked', token({ revoked_at: '2026-05-01T10:00:00Z' }), 'revoked'],
    // INVALID_TOKEN reasons come before TOKEN_REVOKED
    ['expired and revoked', token({ expires_at: '2026-05-01T00:00:00Z', revoked_at: '2026-04-30T00:00:00Z' }), 'expired'],
    ['four failures: still good', token({ failed_attempts: TOKEN_FAILURE_LIMIT - 1 }), null],
    ['five failures: locked', token({ failed_attempts: TOKEN_FAILURE_LIMIT }), 'locked'],
    ['locked and revoked', token({ failed_attempts: TOKEN_FAILURE_LIMIT, revoked_at: '2026-04-30T00:00:00Z' }), 'locked'],
  ] as const)('%s', (_name, row, problem) => {
    expect(tokenProblem(row, NOW)).toBe(problem);
  });
});
