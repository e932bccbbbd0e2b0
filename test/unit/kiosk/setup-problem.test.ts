import { describe, expect, it } from 'vitest';
import type { SetupPayload } from '../../../protocol/index.js';
import { setupProblem } from '../../../main/kiosk/sync/enrollment.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const setup = (overrides: Partial<SetupPayload> = {}): SetupPayload => ({
  v: 1,
  iss: 'https://tickets.example.org',
  enroll_url: 'https://tickets.example.org/api/v1/scanners/enroll',
  token: 'x'.repeat(32),
  eid: 'E1',
  expires_at: '2026-06-02T00:00:00Z',
  ...overrides,
});

describe('setupProblem', () => {
  it('accepts a good setup code, and loopback http', () => {
    expect(setupProblem(setup(), NOW)).toBeNull();
    expect(setupProblem(setup({ iss: 'http://127.0.0.1:3000', enroll_url: 'http://localhost:3000/e' }), NOW)).toBeNull();
  });
  it.each<[string, Partial<SetupPayload>, string]>([
    ['version 2', { v: 2 }, 'unsupported_version'],
    ['http issuer', { iss: 'http://tickets.example.org' }, 'bad_issuer_url'],
    ['issuer with path slash', { iss: 'https://tickets.example.org/' }, 'bad_issuer_url'],
    ['http enroll_url', { enroll_url: 'http://tickets.example.org/e' }, 'bad_enroll_url'],
    ['expired', { expires_at: '2026-06-01T11:59:59Z' }, 'setup_expired'],
    ['expiring exactly now', { expires_at: '2026-06-01T12:00:00Z' }, 'setup_expired'],
  ])('refuses %s', (_name, overrides, code) => {
    expect(setupProblem(setup(overrides), NOW)?.code).toBe(code);
  });
});
