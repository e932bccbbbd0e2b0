/**
 * The admin API's credential check (docs/issuer.md "Admin dashboard"):
 * `Authorization: Bearer <admin token>` on every /admin/api/* request,
 * compared by hash in constant time (issuer/services/admin-credential.ts).
 *
 * Why a Bearer header and not a cookie session: the page keeps the token in
 * sessionStorage (gone when the tab closes) and sends it with fetch. The
 * browser never attaches it by itself, so there is no cross-site request
 * forgery to defend against, no session table, and nothing to expire or
 * log out of on the server. The price, a script in the page could read it,
 * is what the page's strict Content-Security-Policy (scripts from the issuer
 * only, no inline script) is for. The token is never put in a URL.
 *
 * Failed attempts are limited per client IP: after ADMIN_FAILURE_LIMIT wrong
 * tokens in ADMIN_FAILURE_WINDOW_MS, a wrong token from that address answers
 * 429 RATE_LIMITED (with Retry-After) until the window ends. The right token
 * always signs in: people sharing an address (a venue's NAT, a proxy) cannot
 * lock the organizer out by typing wrong tokens. The limit still slows a
 * guesser to 10 guesses per 5 minutes per address, against a 256-bit token.
 * A missing token is not a failed attempt (the page asks without one to
 * learn whether a token is set).
 */
import type { FastifyRequest } from 'fastify';
import { bearerFrom } from '../../auth.js';
import { errors } from '../../error-catalogue.js';
import { adminTokenMatches, expectedAdminHash, type AdminTokenSource } from '../../services/admin-credential.js';

export const ADMIN_FAILURE_LIMIT = 10;
export const ADMIN_FAILURE_WINDOW_MS = 5 * 60_000;
/** Addresses remembered at most; beyond it the oldest windows are forgotten (memory stays bounded under a flood). */
const MAX_TRACKED = 10_000;

/** Counts failures per key in fixed windows. Pure apart from its clock. */
export class FailureLimiter {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly limit = ADMIN_FAILURE_LIMIT,
    private readonly windowMs = ADMIN_FAILURE_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until `key` may try again; 0 when it may now. */
  blockedFor(key: string): number {
    const window = this.windows.get(key);
    if (window === undefined) return 0;
    const left = window.start + this.windowMs - this.now();
    if (left <= 0) {
      this.windows.delete(key);
      return 0;
    }
    return window.failures >= this.limit ? left : 0;
  }

  recordFailure(key: string): void {
    const now = this.now();
    const window = this.windows.get(key);
    if (window !== undefined && now - window.start < this.windowMs) {
      window.failures++;
      return;
    }
    this.windows.delete(key);
    if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(key, { start: now, failures: 1 });
  }
}

/** onRequest hook of every admin API route: runs before the body is read. */
export function requireAdmin(source: AdminTokenSource, limiter: FailureLimiter) {
  return async function authenticateAdmin(request: FastifyRequest): Promise<void> {
    const expected = await expectedAdminHash(source);
    if (expected === null) throw errors.adminTokenNotSet();
    const bearer = bearerFrom(request.headers.authorization);
    if (bearer === null) throw errors.adminUnauthorized();
    if (adminTokenMatches(expected, bearer)) return;
    // Only failures are limited: a blocked address still gets in with the right token.
    const wait = limiter.blockedFor(request.ip);
    if (wait > 0) throw errors.rateLimited(wait / 1000);
    limiter.recordFailure(request.ip);
    throw errors.adminUnauthorized();
  };
}
