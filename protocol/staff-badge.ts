/**
 * A staff badge: `tstaff1.<base64url(payload JSON)>.<base64url(signature)>`,
 * signed by the issuer's ticket-signing key named by `kid` (docs/protocol.md
 * "Staff badge"). Scanned at a kiosk of one of its events, it unlocks its
 * role's functions there, offline too: it is verified like a ticket. Pure.
 */
import { FieldError, requireInteger, requireString, type JsonObject } from './fields.js';
import { isStaffRole, type StaffRole } from './access.js';
import {
  decodeSignedCode,
  encodeSignedCode,
  readSignedByIssuer,
  type DecodedSignedCode,
  type IssuerSignatureContext,
} from './signed-code.js';

export const STAFF_BADGE_PREFIX = 'tstaff1.';
/** How a staff badge of any version starts: such a code is never a ticket. */
export const STAFF_BADGE_START = 'tstaff';

export interface StaffBadgePayload {
  v: 1;
  iss: string;
  kid: string;
  /** The staff id the issuer gave the badge (what records and revocations name). */
  sid: string;
  /** The holder's display name, shown on the kiosk while the badge unlocks it. */
  name: string;
  role: StaffRole;
  /** The events at whose kiosks the badge works. */
  eids: string[];
  /** Unix seconds: made, valid from, valid until. */
  iat: number;
  nbf: number;
  exp: number;
}

export type DecodedStaffBadge = DecodedSignedCode<StaffBadgePayload>;

export function encodeStaffBadge(payload: StaffBadgePayload, sign: (message: Uint8Array) => Uint8Array): string {
  return encodeSignedCode(STAFF_BADGE_PREFIX, payload, sign);
}

/** Throws a QrCodeError for a malformed badge (a role it does not know is malformed too). */
export function decodeStaffBadge(code: string): DecodedStaffBadge {
  return decodeSignedCode(STAFF_BADGE_PREFIX, 'staff badge', code, readStaffBadgePayload);
}

export function isStaffBadgeText(text: string): boolean {
  return text.startsWith(STAFF_BADGE_START);
}

function readStaffBadgePayload(obj: JsonObject): StaffBadgePayload {
  const v = requireInteger(obj, 'v');
  if (v !== 1) throw new FieldError('v', 'wrong_type');
  const role = requireString(obj, 'role');
  if (!isStaffRole(role)) throw new FieldError('role', 'wrong_type');
  const eids = obj['eids'];
  if (!Array.isArray(eids) || eids.length === 0 || !eids.every((eid) => typeof eid === 'string'))
    throw new FieldError('eids', 'wrong_type');
  return {
    v,
    iss: requireString(obj, 'iss'),
    kid: requireString(obj, 'kid'),
    sid: requireString(obj, 'sid'),
    name: requireString(obj, 'name'),
    role,
    eids: eids as string[],
    iat: requireInteger(obj, 'iat'),
    nbf: requireInteger(obj, 'nbf'),
    exp: requireInteger(obj, 'exp'),
  };
}

/** Why a badge does not unlock this kiosk, in the order checked (docs/protocol.md "Staff badge"). */
export const STAFF_BADGE_CHECKS = [
  'decode',
  'issuer',
  'key_known',
  'key_window',
  'signature',
  'event',
  'not_yet_valid',
  'expired',
  'revoked',
] as const;
export type StaffBadgeCheck = (typeof STAFF_BADGE_CHECKS)[number];

export interface StaffBadgeContext extends IssuerSignatureContext {
  /** The event of the kiosk (or the check-in) the badge is shown at. */
  eid: string;
  /** Whether the issuer revoked the badge `sid` (the revocation list's `revoked_badges`, as last synced). */
  isRevoked: (sid: string) => boolean;
}

export type StaffBadgeCheckResult =
  { ok: true; badge: StaffBadgePayload } | { ok: false; check: StaffBadgeCheck; message: string; badge?: StaffBadgePayload };

/** Reads and checks a badge; the message is for staff and the log, and quotes nothing of the code. */
export function checkStaffBadge(code: string, ctx: StaffBadgeContext): StaffBadgeCheckResult {
  const read = readSignedByIssuer(code, 'staff badge', decodeStaffBadge, ctx);
  if (!read.ok) return read;
  const badge = read.payload;
  const refuse = (check: StaffBadgeCheck, message: string): StaffBadgeCheckResult => ({ ok: false, check, message, badge });
  if (!badge.eids.includes(ctx.eid)) return refuse('event', `staff badge of ${badge.name} is for another event`);
  if (ctx.nowMs < badge.nbf * 1000) return refuse('not_yet_valid', `staff badge of ${badge.name} is not valid yet`);
  if (ctx.nowMs >= badge.exp * 1000) return refuse('expired', `staff badge of ${badge.name} has expired`);
  if (ctx.isRevoked(badge.sid)) return refuse('revoked', `staff badge of ${badge.name} was revoked`);
  return { ok: true, badge };
}
