import { describe, expect, it } from 'vitest';
import { Base64UrlError, decodeBase64Url, encodeBase64Url } from '../../../protocol/base64url.js';

describe('base64url', () => {
  it('matches Node for every length 0..64 and random bytes', () => {
    for (let length = 0; length <= 64; length++) {
      const bytes = new Uint8Array(length).map((_, i) => (i * 37 + length * 11) & 0xff);
      const expected = Buffer.from(bytes).toString('base64url');
      expect(encodeBase64Url(bytes)).toBe(expected);
      expect(Buffer.from(decodeBase64Url(expected))).toEqual(Buffer.from(bytes));
    }
  });

  it('uses - and _ and no padding (RFC 4648 section 5)', () => {
    expect(encodeBase64Url(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe('-_-_');
    expect(encodeBase64Url(new Uint8Array([1]))).toBe('AQ');
  });

  it.each([
    ['padding', 'AQ=='],
    ['standard alphabet +', 'ab+c'],
    ['standard alphabet /', 'ab/c'],
    ['whitespace', 'ab c'],
    ['impossible length', 'abcde'],
    ['non-canonical trailing bits', 'AR'],
    ['non-ASCII', 'abä'],
  ])('refuses %s', (_label, text) => {
    expect(() => decodeBase64Url(text)).toThrow(Base64UrlError);
  });
});
