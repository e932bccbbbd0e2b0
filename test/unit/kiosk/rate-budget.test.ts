/** Reading the issuer's RateLimit-* headers, and the live scans' share of the limit. */
import { describe, expect, it } from 'vitest';
import { rateBudgetOf } from '../../../main/kiosk/sync/issuer-client.js';
import { liveScanReserve } from '../../../main/kiosk/sync/queue-drain.js';

const headers = (values: Record<string, string>) => new Headers(values);

describe('rateBudgetOf', () => {
  it('reads limit, remaining and reset (seconds) when all three are whole numbers', () => {
    expect(rateBudgetOf(headers({ 'RateLimit-Limit': '600', 'RateLimit-Remaining': '59', 'RateLimit-Reset': '12' }))).toEqual({
      limit: 600,
      remaining: 59,
      resetMs: 12_000,
    });
  });

  it.each([
    ['missing', { 'ratelimit-limit': '600', 'ratelimit-remaining': '59' }],
    ['negative', { 'ratelimit-limit': '600', 'ratelimit-remaining': '-1', 'ratelimit-reset': '12' }],
    ['fractional', { 'ratelimit-limit': '600', 'ratelimit-remaining': '1.5', 'ratelimit-reset': '12' }],
    ['not a number', { 'ratelimit-limit': 'lots', 'ratelimit-remaining': '59', 'ratelimit-reset': '12' }],
    ['a zero limit', { 'ratelimit-limit': '0', 'ratelimit-remaining': '0', 'ratelimit-reset': '12' }],
    ['absurdly large', { 'ratelimit-limit': '99999999999', 'ratelimit-remaining': '59', 'ratelimit-reset': '12' }],
  ])('is no budget when a header is %s', (_case, values) => {
    expect(rateBudgetOf(headers(values))).toBeUndefined();
  });

  it('never believes more is left than the limit', () => {
    expect(rateBudgetOf(headers({ 'ratelimit-limit': '10', 'ratelimit-remaining': '50', 'ratelimit-reset': '1' }))?.remaining).toBe(10);
  });
});

describe('liveScanReserve', () => {
  it('keeps a tenth of the limit for the door, and never fewer than 10', () => {
    expect(liveScanReserve(600)).toBe(60);
    expect(liveScanReserve(6000)).toBe(600);
    expect(liveScanReserve(40)).toBe(10);
    expect(liveScanReserve(5)).toBe(10);
  });
});
