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
 * Failed attempts are limited per client address (services/failed-authentications.ts): after 10 wrong
 * tokens in 5 minutes, every token from that address answers 429 RATE_LIMITED (with Retry-After) until the
 * window ends, the right one too: otherwise a guesser could keep guessing, and only the wrong guesses would be
 * slowed (docs/issuer.md "Failed authentications").
 * A missing token is not a failed attempt (the page asks without one to
 * learn whether a token is set).
 */
import type { FastifyRequest } from 'fastify';
import { bearerFrom } from '../../auth.js';
import { errors } from '../../error-catalogue.js';
import { adminTokenMatches, expectedAdminHash, type AdminTokenSource } from '../../services/admin-credential.js';
import type { FailureCounter } from '../../services/failed-authentications.js';

/** onRequest hook of every admin API route: runs before the body is read. */
export function requireAdmin(source: AdminTokenSource, failures: FailureCounter) {
  return async function authenticateAdmin(request: FastifyRequest): Promise<void> {
    const expected = await expectedAdminHash(source);
    if (expected === null) throw errors.adminTokenNotSet();
    const bearer = bearerFrom(request.headers.authorization);
    if (bearer === null) throw errors.adminUnauthorized();
    // Counted before the comparison, in one step with the check of the limit, and taken back if the token
    // matches: a parallel burst of guesses gets no more than the limit compared (services/failed-authentications.ts).
    const attempt = await failures.attempt(`admin:${request.ip}`);
    if (attempt.wait > 0) throw errors.rateLimited(attempt.wait / 1000);
    if (!adminTokenMatches(expected, bearer)) throw errors.adminUnauthorized();
    await attempt.passed();
  };
}
