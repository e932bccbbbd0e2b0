/**
 * Enrollment: a setup token for a long-lived scanner API key (docs/protocol.md
 * "Enrollment").
 *
 * One write transaction reads the token, judges it, claims it
 * (`UPDATE ... WHERE used_at IS NULL`) and stores the key's hash: of two
 * simultaneous exchanges, in this process or another (SQLite's write lock, or
 * PostgreSQL's row lock on the token), exactly one succeeds.
 *
 * Per-token brute-force limit (decisions "Rate limits"): every failed exchange
 * of a known token counts in `enrollment_tokens.failed_attempts`; from the
 * fifth on, the token is locked and answers 400 INVALID_TOKEN, even if it
 * would otherwise be good. We answer INVALID_TOKEN rather than 429 because
 * the lock is permanent (a Retry-After would be a lie): the organizer makes a
 * new setup QR.
 */
import { isPublicKeyText } from '../../protocol/kiosk-certificate.js';
import type { EnrollResponse } from '../../protocol/types.js';
import { signKioskCertificate } from './kiosk-certificates.js';
import { ApiError, errors } from '../error-catalogue.js';
import { hashSecret, newApiKey, newApiKeyId } from '../secrets.js';
import { namedJob } from '../store/named-jobs.js';
import type { Sql, SqlDatabase } from '../store/sql.js';
import { findEvent } from '../store/events.js';
import { getIssuerInfo } from '../store/issuer-info.js';
import { announce } from './webhooks.js';
import { claimToken, findTokenByHash, insertApiKey, recordFailedTokenAttempt, type EnrollmentTokenRow } from '../store/scanners.js';

export const TOKEN_FAILURE_LIMIT = 5;

/** At least 128 bits of base64url (docs/protocol.md "Authentication"); anything else is malformed and never looked up. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{22,256}$/;

export interface EnrollInput {
  token: string;
  scanner_id: string;
  scanner_name?: string;
  scanner_platform?: string;
  /** docs/protocol.md "Enrollment": the kiosk's own Ed25519 public key, for its LAN certificate. */
  lan_public_key?: string;
}

/** Why a token cannot be exchanged, in the decisions' order; null when it can. */
export type TokenProblem = 'unknown' | 'locked' | 'expired' | 'used' | 'revoked';

export function tokenProblem(token: EnrollmentTokenRow | undefined, now: Date, failureLimit = TOKEN_FAILURE_LIMIT): TokenProblem | null {
  if (token === undefined) return 'unknown';
  if (token.failed_attempts >= failureLimit) return 'locked';
  if (Date.parse(token.expires_at) <= now.getTime()) return 'expired';
  if (token.used_at !== null) return 'used';
  if (token.revoked_at !== null) return 'revoked';
  return null;
}

const problemError = (problem: TokenProblem): ApiError => (problem === 'revoked' ? errors.tokenRevoked() : errors.invalidToken());

export type EnrollResult = { ok: true; response: EnrollResponse; apiKeyId: string } | { ok: false; error: ApiError };

export async function enroll(
  database: SqlDatabase,
  input: EnrollInput,
  now: Date,
  options: { keysDir?: string; failureLimit?: number } = {},
): Promise<EnrollResult> {
  if (!TOKEN_SHAPE.test(input.token)) return { ok: false, error: errors.invalidToken() };
  if (input.lan_public_key !== undefined && !isPublicKeyText(input.lan_public_key))
    return { ok: false, error: errors.invalidField('lan_public_key', 'is not base64url of a 32-byte Ed25519 public key') };
  const result = await database.write(
    enrollWrite({ input, now: now.toISOString(), failureLimit: options.failureLimit ?? TOKEN_FAILURE_LIMIT }),
  );
  if (!result.ok || input.lan_public_key === undefined || options.keysDir === undefined) return result;
  // Signed after the exchange committed: the key is the kiosk's either way, and signing holds no database lock.
  const { scope, issuer } = result.response;
  const certificate = await signKioskCertificate(
    database.read,
    options.keysDir,
    {
      iss: issuer.iss,
      scannerId: input.scanner_id,
      eid: scope.eid,
      gateId: scope.gate_id ?? null,
      publicKey: input.lan_public_key,
      expiresAt: scope.expires_at,
    },
    now,
  );
  if (certificate !== null) result.response.lan_certificate = certificate;
  return result;
}

/** The exchange's write job, by name, so that it can run on the SQLite database thread (store/named-jobs.ts). */
export const enrollWrite = namedJob('enroll', (db, args: { input: EnrollInput; now: string; failureLimit: number }) =>
  exchangeToken(db, args.input, new Date(args.now), args.failureLimit),
);

async function exchangeToken(db: Sql, input: EnrollInput, now: Date, failureLimit: number): Promise<EnrollResult> {
  const tokenHash = hashSecret(input.token);
  const token = await findTokenByHash(db, tokenHash);
  const problem = tokenProblem(token, now, failureLimit);
  if (problem !== null) {
    // Committed with the refusal: the count must survive, and other processes must see it.
    if (token) await recordFailedTokenAttempt(db, token.token_id);
    return { ok: false, error: problemError(problem) };
  }
  const claimed = token!;
  const nowIso = now.toISOString();
  if (!(await claimToken(db, claimed.token_id, nowIso))) return { ok: false, error: errors.invalidToken() };
  const event = await findEvent(db, claimed.eid);
  if (!event) throw new Error(`enrollment token ${claimed.token_id} names unknown event ${claimed.eid}`);
  const issuer = await getIssuerInfo(db);
  const apiKey = newApiKey();
  const apiKeyId = newApiKeyId();
  await insertApiKey(db, {
    api_key_id: apiKeyId,
    key_hash: hashSecret(apiKey), // only the hash is stored (decisions "Enrollment")
    token_id: claimed.token_id,
    scanner_id: input.scanner_id,
    scanner_name: input.scanner_name ?? null,
    scanner_platform: input.scanner_platform ?? null,
    eid: claimed.eid,
    gate_id: claimed.gate_id,
    // Set when the setup QR was made (decisions "Enrollment"), not the token's own expiry.
    expires_at: claimed.key_expires_at,
    created_at: nowIso,
    // docs/protocol.md "Roles and rights": the setup code's role goes with the key.
    role: claimed.role,
  });
  await announce(
    db,
    'scanner.enrolled',
    claimed.eid,
    {
      eid: claimed.eid,
      api_key_id: apiKeyId,
      scanner_id: input.scanner_id,
      scanner_name: input.scanner_name ?? null,
      gate_id: claimed.gate_id,
      role: claimed.role,
      enrolled_at: nowIso,
    },
    nowIso,
  );
  return {
    ok: true,
    apiKeyId,
    response: {
      api_key: apiKey,
      api_key_id: apiKeyId,
      scope: {
        eid: event.eid,
        event_name: event.name,
        event_date: event.date,
        gate_id: claimed.gate_id,
        expires_at: claimed.key_expires_at,
      },
      issuer: { name: issuer.name, iss: issuer.base_url },
    },
  };
}
