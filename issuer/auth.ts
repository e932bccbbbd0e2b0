/**
 * Scanner authentication (docs/protocol.md "Authentication"): `Authorization:
 * Bearer <API_KEY>`. Keys are looked up by their SHA-256 hash and the hash is
 * re-compared in constant time (issuer/secrets.ts). The database is read on
 * every request, so a revocation by the admin CLI in another process takes
 * effect on the very next request (docs/protocol.md "The admin CLI").
 */
import type { FastifyRequest } from 'fastify';
import type { ScannerKeyRole } from '../protocol/access.js';
import { hashesEqual, hashSecret } from './secrets.js';
import { errors } from './error-catalogue.js';
import type { Sql } from './store/sql.js';
import { findApiKeyByHash } from './store/scanners.js';
import { FailureLimiter, RecentlyValidKeys, SCANNER_FAILURE_LIMIT, SCANNER_FAILURE_WINDOW_MS } from './services/failed-authentications.js';

/** What the rest of the request may know about its caller. Never the key itself. */
export interface ScannerCredential {
  apiKeyId: string;
  /** SHA-256 of the Bearer: the rate-limit key (never the raw key). */
  keyHash: string;
  scannerId: string;
  eid: string;
  gateId: string | null;
  /** docs/protocol.md "Roles and rights": what this key may do, from its setup code (its role column). */
  role: ScannerKeyRole;
}

declare module 'fastify' {
  interface FastifyRequest {
    credential: ScannerCredential | null;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

export function bearerFrom(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  return BEARER.exec(authorization)?.[1] ?? null;
}

/** The credential for a Bearer, or null when it is missing, unknown, expired or revoked. */
export async function authenticate(db: Sql, authorization: string | undefined, now: Date): Promise<ScannerCredential | null> {
  const bearer = bearerFrom(authorization);
  if (bearer === null) return null;
  const keyHash = hashSecret(bearer);
  const row = await findApiKeyByHash(db, keyHash);
  if (!row || !hashesEqual(row.key_hash, keyHash)) return null;
  if (row.revoked_at !== null) return null;
  if (Date.parse(row.expires_at) <= now.getTime()) return null;
  return {
    apiKeyId: row.api_key_id,
    keyHash,
    scannerId: row.scanner_id,
    eid: row.eid,
    gateId: row.gate_id,
    role: row.role,
  };
}

/** Failed key checks per address, and the keys seen valid, of one app's scanner routes. */
export interface ScannerAuthFailures {
  failures: FailureLimiter;
  valid: RecentlyValidKeys;
}

export function scannerAuthFailures(now: () => number = Date.now): ScannerAuthFailures {
  return {
    failures: new FailureLimiter(SCANNER_FAILURE_LIMIT, SCANNER_FAILURE_WINDOW_MS, now),
    valid: new RecentlyValidKeys(10 * 60_000, 10_000, now),
  };
}

/** One per database handle: every scanner route of an app reads through the same one, so they share the count. */
const failuresByDatabase = new WeakMap<Sql, ScannerAuthFailures>();

function failuresOf(db: Sql): ScannerAuthFailures {
  let failures = failuresByDatabase.get(db);
  if (failures === undefined) failuresByDatabase.set(db, (failures = scannerAuthFailures()));
  return failures;
}

/**
 * onRequest hook: runs before the body is parsed, so a bad key answers 401
 * before any 400 about the body (docs/protocol.md "Precedence" check 1).
 * Failed checks are limited per address (docs/issuer.md "Failed authentications"): while an address is over
 * the limit, a key not seen valid lately answers 429 without a database read. Each check counts as a failure
 * from before its lookup until it passes, so a parallel burst gets no more than the limit through to lookups.
 */
export function requireScanner(db: Sql, limits: ScannerAuthFailures = failuresOf(db)) {
  return async function authenticateScanner(request: FastifyRequest): Promise<void> {
    const address = `scanner:${request.ip}`;
    // Counted before the lookup, in the same synchronous step as the check of the limit: requests read together
    // cannot all pass the check while their lookups are still under way (services/failed-authentications.ts).
    const { wait, window } = limits.failures.attemptNow(address);
    // Only while the address is over its limit is the key hashed here (authenticate hashes it once more): the
    // check of every other request costs what it cost before.
    if (wait > 0) {
      const bearer = bearerFrom(request.headers.authorization);
      if (bearer === null || !limits.valid.has(hashSecret(bearer))) throw errors.rateLimited(wait / 1000);
    }
    const credential = await authenticate(db, request.headers.authorization, new Date());
    if (credential === null) throw errors.unauthorized();
    if (wait === 0) limits.failures.passedNow(address, window);
    limits.valid.add(credential.keyHash);
    request.credential = credential;
  };
}
