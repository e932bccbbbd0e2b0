/**
 * Setup codes (docs/protocol.md "Setup payload", "Enrollment"):
 * made by `ticket-issuer scanner setup` and by the admin dashboard, the same
 * way. A single-use enrollment token is stored as a hash; the token itself
 * exists only inside the returned setup code, which is the deliverable.
 */
import { encodeSetupCode } from '../../protocol/setup-code.js';
import type { ScannerKeyRole } from '../../protocol/access.js';
import type { GateDirection } from '../../protocol/door.js';
import { PROTOCOL_VERSION, type SetupPayload } from '../../protocol/types.js';
import { addHours, isoUtc } from '../time.js';
import { AdminError } from '../error-catalogue.js';
import { hashSecret, newEnrollmentToken, newTokenId } from '../secrets.js';
import { namedJob } from '../store/named-jobs.js';
import type { Sql } from '../store/sql.js';
import type { EventRow } from '../store/events.js';
import { insertEnrollmentToken, revokeToken } from '../store/scanners.js';

/** docs/protocol.md "Enrollment": the API key expires at event end plus 12 h unless told otherwise. */
export const DEFAULT_KEY_HOURS_AFTER_END = 12;

export const enrollUrl = (baseUrl: string): string => `${baseUrl}/api/v1/scanners/enroll`;

export interface SetupRequest {
  gateId?: string;
  /** Token expiry; default: the key expiry. */
  expires?: Date;
  /** API key expiry; default: event end + 12 h. */
  keyExpires?: Date;
  /** SHA-256 fingerprint of the self-signed certificate kiosks should pin (docs/protocol.md "Self-signed issuers"). */
  tlsCertSha256?: string;
  /** docs/protocol.md "Setup code: two more fields": which way the kiosk scans. */
  direction?: GateDirection;
  /** docs/protocol.md "Roles and rights": what the key may do (default: a scanner without the annul right). */
  role?: ScannerKeyRole;
  /** The kiosk must have a staff PIN before it scans. */
  pinRequired?: boolean;
}

export interface SetupResult {
  setup_qr: string;
  token_id: string;
  eid: string;
  gate_id: string | null;
  expires_at: string;
}

/** The expiries of a setup: pure, so the rules are easy to read and test. */
export function setupExpiries(event: EventRow, request: SetupRequest, now: Date): { tokenExpires: Date; keyExpires: Date } {
  const keyExpires = request.keyExpires ?? addHours(new Date(event.ends_at), DEFAULT_KEY_HOURS_AFTER_END);
  const tokenExpires = request.expires ?? keyExpires;
  if (keyExpires.getTime() <= now.getTime()) {
    throw new AdminError(
      'INVALID_DATE',
      `the scanner key would expire at ${isoUtc(keyExpires)}, which has passed; pass a later --key-expires`,
    );
  }
  if (tokenExpires.getTime() <= now.getTime())
    throw new AdminError('INVALID_DATE', '--expires has passed; a setup code must still be usable');
  if (tokenExpires.getTime() > keyExpires.getTime())
    throw new AdminError('INVALID_DATE', '--expires must not be later than the key expiry (--key-expires)');
  return { tokenExpires, keyExpires };
}

/**
 * Makes a single-use enrollment token. Only its hash is stored; the token
 * itself exists only inside the returned setup code, which is the deliverable.
 */
export async function createScannerSetup(
  db: Sql,
  baseUrl: string,
  event: EventRow,
  request: SetupRequest,
  now: Date,
): Promise<SetupResult> {
  const { tokenExpires, keyExpires } = setupExpiries(event, request, now);
  const token = newEnrollmentToken();
  const tokenId = newTokenId();
  await insertEnrollmentToken(db, {
    token_id: tokenId,
    token_hash: hashSecret(token),
    eid: event.eid,
    gate_id: request.gateId ?? null,
    expires_at: isoUtc(tokenExpires),
    key_expires_at: isoUtc(keyExpires),
    created_at: isoUtc(now),
    direction: request.direction ?? null,
    role: request.role ?? 'steward',
    pin_required: request.pinRequired ? 1 : 0,
  });
  const payload: SetupPayload = {
    v: PROTOCOL_VERSION,
    iss: baseUrl,
    enroll_url: enrollUrl(baseUrl),
    token,
    eid: event.eid,
    event_name: event.name,
    expires_at: isoUtc(tokenExpires),
  };
  if (request.gateId !== undefined) payload.gate_id = request.gateId;
  if (request.tlsCertSha256 !== undefined) payload.tls_cert_sha256 = request.tlsCertSha256;
  if (request.direction !== undefined) payload.direction = request.direction;
  if (request.pinRequired) payload.pin_required = true;
  return {
    setup_qr: encodeSetupCode(payload),
    token_id: tokenId,
    eid: event.eid,
    gate_id: request.gateId ?? null,
    expires_at: isoUtc(tokenExpires),
  };
}

export async function revokeSetup(db: Sql, tokenId: string, now: Date): Promise<{ token_id: string; status: 'revoked' }> {
  const token = await revokeToken(db, tokenId, isoUtc(now));
  if (!token) throw new AdminError('TOKEN_NOT_FOUND', `no setup token ${tokenId} at this issuer`);
  if (token.revoked_at === null) {
    throw new AdminError(
      'TOKEN_ALREADY_USED',
      `setup token ${tokenId} was already used to enroll a scanner; revoke that scanner's key with "ticket-issuer scanner revoke API_KEY_ID"`,
    );
  }
  return { token_id: tokenId, status: 'revoked' };
}

/** The dashboard's setup codes as write jobs, by name, so that they can run on the SQLite database thread (store/named-jobs.ts). */
export const createScannerSetupWrite = namedJob(
  'create-scanner-setup',
  (db, args: { baseUrl: string; event: EventRow; request: SetupRequest; now: string }) =>
    createScannerSetup(db, args.baseUrl, args.event, args.request, new Date(args.now)),
);

export const revokeSetupWrite = namedJob('revoke-setup', (db, args: { tokenId: string; now: string }) =>
  revokeSetup(db, args.tokenId, new Date(args.now)),
);
