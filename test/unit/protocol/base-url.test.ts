import { describe, expect, it } from 'vitest';
import { baseUrlProblem, isSecureOrLoopbackUrl } from '../../../protocol/base-url.js';
import { isUuidV4 } from '../../../protocol/uuid.js';

describe('issuer base URL (docs/protocol.md "Base URL")', () => {
  it.each([
    ['https://tickets.example.org', null],
    ['https://tickets.example.org/venue-a', null],
    ['https://tickets.example.org:8443', null],
    ['http://127.0.0.1:8080', null],
    ['http://localhost:8080', null],
    ['http://[::1]:8080', null],
    ['http://tickets.example.org', 'not_https'],
    ['http://192.168.1.10:8080', 'not_https'],
    ['ftp://tickets.example.org', 'not_https'],
    ['https://tickets.example.org/', 'trailing_slash'],
    ['https://tickets.example.org?x=1', 'has_query_or_fragment'],
    ['https://tickets.example.org#top', 'has_query_or_fragment'],
    ['https://user:pw@tickets.example.org', 'has_credentials'],
    ['tickets.example.org', 'not_a_url'],
    ['', 'not_a_url'],
  ])('%s → %s', (url, problem) => {
    expect(baseUrlProblem(url)).toBe(problem);
  });

  it('applies HTTPS-unless-loopback to any issuer URL', () => {
    expect(isSecureOrLoopbackUrl('https://a.example/api/v1/scanners/enroll')).toBe(true);
    expect(isSecureOrLoopbackUrl('http://127.0.0.1:4000/api/v1/scanners/enroll')).toBe(true);
    expect(isSecureOrLoopbackUrl('http://evil.example/api/v1/scanners/enroll')).toBe(false);
    expect(isSecureOrLoopbackUrl('javascript:alert(1)')).toBe(false);
  });
});

describe('UUID v4', () => {
  it('accepts v4 and refuses other versions and shapes', () => {
    expect(isUuidV4('6f1c2b7e-3a4d-4e5f-8a9b-0c1d2e3f4a5b')).toBe(true);
    expect(isUuidV4(crypto.randomUUID())).toBe(true);
    expect(isUuidV4('6f1c2b7e-3a4d-1e5f-8a9b-0c1d2e3f4a5b')).toBe(false);
    expect(isUuidV4('6f1c2b7e-3a4d-4e5f-7a9b-0c1d2e3f4a5b')).toBe(false);
    expect(isUuidV4('not-a-uuid')).toBe(false);
    expect(isUuidV4(42)).toBe(false);
  });
});
