/**
 * Rate limits (docs/protocol.md "Rate
 * limits"): one-minute windows counted by @fastify/rate-limit's store, applied
 * from our own onRequest hooks so the order against authentication is
 * explicit and every 429 is our ErrorEnvelope with `Retry-After` (whole
 * seconds, at least 1).
 *
 * Every answer within the limit also says how much of it is left, in the
 * IETF draft's headers (draft-ietf-httpapi-ratelimit-headers): RateLimit-Limit,
 * RateLimit-Remaining, RateLimit-Reset (seconds until the window ends). The
 * spec neither asks for nor forbids them; a kiosk draining its offline queue
 * uses them to leave room for the door's live scans (docs/protocol.md).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../error-catalogue.js';

export const DEFAULT_SCANNER_RPM = 600;
export const DEFAULT_ENROLL_RPM = 10;
const WINDOW_MS = 60_000;

/** An onRequest hook: resolves when the request is within its limit (saying what is left), throws 429 otherwise. */
export type RateLimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export function createRateLimitHook(app: FastifyInstance, perMinute: number, keyOf: (request: FastifyRequest) => string): RateLimitHook {
  const limiter = app.createRateLimit({ max: perMinute, timeWindow: WINDOW_MS, keyGenerator: keyOf });
  return async function rateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const result = await limiter(request);
    // isAllowed means "on the allow list, not counted" (none here): every request is counted.
    if (!result.isAllowed) {
      if (result.isExceeded) throw errors.rateLimited(result.ttl / 1000);
      reply.header('ratelimit-limit', result.max);
      reply.header('ratelimit-remaining', result.remaining);
      reply.header('ratelimit-reset', Math.max(1, Math.ceil(result.ttl / 1000)));
    }
  };
}

/**
 * Per scanner credential, check-in and status together: keyed by the SHA-256
 * of the Bearer (set by the auth hook, which runs first), never the raw key.
 */
export function scannerRateLimit(app: FastifyInstance, perMinute = DEFAULT_SCANNER_RPM): RateLimitHook {
  return createRateLimitHook(app, perMinute, (request) => `scanner:${request.credential?.keyHash ?? 'none'}`);
}

/** Enrollment per client IP, counted before the body is even read. The per-token lock is in services/enrollment.ts. */
export function enrollRateLimit(app: FastifyInstance, perMinute = DEFAULT_ENROLL_RPM): RateLimitHook {
  return createRateLimitHook(app, perMinute, (request) => `enroll-ip:${request.ip}`);
}
