/**
 * Webhook signatures as the Standard Webhooks convention has them (docs/issuer.md "Webhooks"), so a receiver can
 * verify with any Standard Webhooks library: the headers `webhook-id` (the message id, the receiver's
 * idempotency key), `webhook-timestamp` (Unix seconds) and `webhook-signature`: `v1,` and the base64 HMAC-SHA256,
 * under the endpoint's secret, of `<id>.<timestamp>.<body>`. The secret is `whsec_` and base64 of 32 random bytes;
 * the HMAC key is those bytes. Pure, apart from the random bytes of a new secret.
 */
import crypto from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
/** At least 24 bytes of key (Standard Webhooks asks for 24 to 64). */
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;

export const newWebhookSecret = (): string => SECRET_PREFIX + crypto.randomBytes(SECRET_BYTES).toString('base64');

/** Why `secret` cannot sign, or null. Never quotes it. */
export function webhookSecretProblem(secret: string): string | null {
  if (!secret.startsWith(SECRET_PREFIX)) return `a webhook secret starts with "${SECRET_PREFIX}"`;
  const body = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return `a webhook secret is "${SECRET_PREFIX}" and base64`;
  const bytes = Buffer.from(body, 'base64').length;
  if (bytes < MIN_SECRET_BYTES || bytes > MAX_SECRET_BYTES)
    return `a webhook secret holds ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes, this one ${bytes}`;
  return null;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): SignedHeaders {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const timestamp = String(Math.floor(timestampSeconds));
  const signature = crypto.createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
