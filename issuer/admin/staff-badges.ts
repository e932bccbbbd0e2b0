/**
 * Issuing a staff badge (docs/issuer.md "Staff roles and badges"): a tstaff1. code (protocol/staff-badge.ts)
 * for one event, signed with the issuer's active signing key as tickets are, so kiosks verify it offline.
 */
import type { StaffRole } from '../../protocol/access.js';
import { encodeStaffBadge, type StaffBadgePayload } from '../../protocol/staff-badge.js';
import { AdminError } from '../error-catalogue.js';
import { loadSigningKey, signEd25519Node } from '../signing.js';
import type { EventRow } from '../store/events.js';
import { activeKid } from '../store/signing-keys.js';
import { insertStaffBadge, type StaffBadgeRow } from '../store/staff-badges.js';
import { addHours, isoUtc, unixSeconds } from '../time.js';
import type { IdFactory } from './ids.js';
import type { IssuerContext } from './issuer-context.js';

/** A badge lasts, unless told otherwise, as the event's tickets do: until its end plus 12 hours. */
export const DEFAULT_BADGE_HOURS_AFTER_END = 12;

export interface BadgeRequest {
  name: string;
  role: StaffRole;
  notBefore?: Date;
  expires?: Date;
}

export async function issueStaffBadge(
  context: IssuerContext,
  event: EventRow,
  request: BadgeRequest,
  nextId: IdFactory,
  now: Date,
): Promise<StaffBadgeRow> {
  const notBefore = request.notBefore ?? now;
  const expires = request.expires ?? addHours(new Date(event.ends_at), DEFAULT_BADGE_HOURS_AFTER_END);
  if (expires.getTime() <= now.getTime()) throw new AdminError('INVALID_DATE', '--expires has passed; a badge must still be usable');
  if (expires.getTime() <= notBefore.getTime()) throw new AdminError('INVALID_DATE', '--expires must be later than --not-before');
  const { database, dataDir, info } = context;
  const key = loadSigningKey(dataDir.keysDir, await activeKid(database.read));
  const payload: StaffBadgePayload = {
    v: 1,
    iss: info.base_url,
    kid: key.kid,
    sid: nextId(),
    name: request.name,
    role: request.role,
    eids: [event.eid],
    iat: unixSeconds(now),
    nbf: unixSeconds(notBefore),
    exp: unixSeconds(expires),
  };
  const row = {
    sid: payload.sid,
    eid: event.eid,
    kid: key.kid,
    name: payload.name,
    role: payload.role,
    nbf: payload.nbf,
    exp: payload.exp,
    qr: encodeStaffBadge(payload, (message) => signEd25519Node(message, key.privateKey)),
    issued_at: isoUtc(now),
  };
  await database.write((db) => insertStaffBadge(db, row));
  return { ...row, revoked_at: null, revoked_reason: null };
}
