/** Webhook signatures and schedule (docs/issuer.md "Webhooks"), against the Standard Webhooks library. */
import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';
import {
  MAX_ATTEMPTS,
  nextAttemptAt,
  parseEventTypes,
  RETRY_DELAYS_S,
  WEBHOOK_EVENT_TYPES,
} from '../../../issuer/services/webhook-events.js';
import { newWebhookSecret, signWebhook, webhookSecretProblem } from '../../../issuer/services/webhook-signature.js';

describe('webhook signatures', () => {
  test('the library verifies what the issuer signs, and signs the same bytes; a changed body or another secret fails', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({
      type: 'checkin.created',
      timestamp: '2026-07-11T19:00:00.000Z',
      data: { tid: 'T', name: 'Zoë Ångström' },
    });
    const now = Date.now();
    const headers = signWebhook(secret, 'msg_1', now / 1000, body);
    expect(new Webhook(secret).verify(body, { ...headers })).toMatchObject({ type: 'checkin.created' });
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign('msg_1', new Date(Math.floor(now / 1000) * 1000), body));
    expect(() => new Webhook(secret).verify(body.replace('T', 'U'), { ...headers })).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow();
  });

  test('a secret is whsec_ and 24 to 64 bytes of base64; the problem never quotes it', () => {
    expect(webhookSecretProblem(newWebhookSecret())).toBeNull();
    expect(newWebhookSecret()).not.toBe(newWebhookSecret());
    const short = `whsec_${Buffer.alloc(16, 7).toString('base64')}`;
    expect(webhookSecretProblem(short)).toContain('24 to 64 bytes');
    expect(webhookSecretProblem(short)).not.toContain(short.slice(6));
    expect(webhookSecretProblem('sk_live_abc')).toContain('starts with "whsec_"');
    expect(webhookSecretProblem('whsec_not base64!')).toContain('base64');
  });
});

describe('the retry schedule', () => {
  test('11 attempts over about 24 hours, then dead', () => {
    const total = RETRY_DELAYS_S.reduce((sum, s) => sum + s, 0);
    expect(total).toBeGreaterThanOrEqual(23 * 3600);
    expect(total).toBeLessThanOrEqual(26 * 3600);
    expect(MAX_ATTEMPTS).toBe(11);
    expect(nextAttemptAt(1, 0)).toBe(new Date(5_000).toISOString());
    expect(nextAttemptAt(MAX_ATTEMPTS - 1, 0)).not.toBeNull();
    expect(nextAttemptAt(MAX_ATTEMPTS, 0)).toBeNull();
  });
});

describe('--events', () => {
  test('a comma list of known types, or all; unknown or empty ones are refused with the list', () => {
    expect(parseEventTypes('checkin.created, ticket.revoked,checkin.created')).toEqual(['checkin.created', 'ticket.revoked']);
    expect(parseEventTypes('all')).toBe('*');
    expect(() => parseEventTypes('checkin.teleported')).toThrow(WEBHOOK_EVENT_TYPES.join(', '));
    expect(() => parseEventTypes(' , ')).toThrow('name the events');
  });
});
