/**
 * Issuing a staff badge (docs/issuer.md "Staff roles and badges"): a tstaff1. code (protocol/staff-badge.ts)
 * for one event, signed with the issuer's active signing key as tickets are, so kiosks verify it offline.
 *
 * One operation for both ways of asking: `staff badge issue` (issuer/cli/staff-commands.ts) and the dashboard's
 * form (POST /admin/api/events/:eid/staff-badges, docs/issuer.md "Admin dashboard"). Both read the request with
 * parseBadgeRequest and sign with issueStaffBadge; they differ only in how they name the fields in a refusal.
 */
import fs from 'node:fs';
import { isStaffRole, STAFF_ROLES, type StaffRole } from '../../protocol/access.js';
import { encodeStaffBadge, type StaffBadgePayload } from '../../protocol/staff-badge.js';
import { AdminError } from '../error-catalogue.js';
import { keyFile, loadSigningKey, signEd25519Node } from '../signing.js';
import type { EventRow } from '../store/events.js';
import { activeKid } from '../store/signing-keys.js';
import type { SqlDatabase } from '../store/sql.js';
import { insertStaffBadgeWrite, type StaffBadgeRow } from '../store/staff-badges.js';
import { addHours, isoUtc, unixSeconds } from '../time.js';
import type { IdFactory } from './ids.js';
import { parseDateTime, parseLabel } from './validators.js';

/** A badge lasts, unless told otherwise, as the event's tickets do: until its end plus 12 hours. */
export const DEFAULT_BADGE_HOURS_AFTER_END = 12;

export interface BadgeRequest {
  name: string;
  role: StaffRole;
  notBefore?: Date;
  expires?: Date;
}

/** A request as given: the CLI's flags or the dashboard's JSON fields, not checked yet. */
export interface BadgeInput {
  name: string;
  role: string;
  notBefore?: string | undefined;
  expires?: string | undefined;
}

/** How the asker names each field in a refusal: `--name` on the command line, `name` on the dashboard's API. */
export interface BadgeFieldNames {
  name: string;
  role: string;
  notBefore: string;
  expires: string;
}

export const CLI_BADGE_FIELDS: BadgeFieldNames = { name: '--name', role: '--role', notBefore: '--not-before', expires: '--expires' };
export const API_BADGE_FIELDS: BadgeFieldNames = { name: 'name', role: 'role', notBefore: 'not_before', expires: 'expires_at' };

/**
 * The checks every badge request passes, whoever asks: a role of protocol/access.ts, a name under the label rules
 * (docs/issuer.md "Staff roles and badges": no control or direction characters, at most 80), ISO 8601 times.
 * Each refusal is an AdminError of the catalogue (INVALID_ARGUMENT, INVALID_DATE) naming the field.
 */
export function parseBadgeRequest(input: BadgeInput, fields: BadgeFieldNames): BadgeRequest {
  if (!isStaffRole(input.role))
    throw new AdminError('INVALID_ARGUMENT', `${fields.role} must be one of ${STAFF_ROLES.join(', ')}, not "${input.role}"`);
  const request: BadgeRequest = { name: parseLabel(input.name, fields.name), role: input.role };
  if (input.expires !== undefined) request.expires = parseDateTime(input.expires, fields.expires);
  if (input.notBefore !== undefined) request.notBefore = parseDateTime(input.notBefore, fields.notBefore);
  return request;
}

/** What signing a badge needs: the database, the data dir's private keys, and the issuer's base URL (`iss`). */
export interface BadgeSigner {
  database: SqlDatabase;
  keysDir: string;
  baseUrl: string;
}

export async function issueStaffBadge(
  signer: BadgeSigner,
  event: EventRow,
  request: BadgeRequest,
  nextId: IdFactory,
  now: Date,
  fields: BadgeFieldNames = CLI_BADGE_FIELDS,
): Promise<StaffBadgeRow> {
  const notBefore = request.notBefore ?? now;
  const expires = request.expires ?? addHours(new Date(event.ends_at), DEFAULT_BADGE_HOURS_AFTER_END);
  if (expires.getTime() <= now.getTime())
    throw new AdminError('INVALID_DATE', `${fields.expires} has passed; a badge must still be usable`);
  if (expires.getTime() <= notBefore.getTime())
    throw new AdminError('INVALID_DATE', `${fields.expires} must be later than ${fields.notBefore}`);
  const { database, keysDir, baseUrl } = signer;
  const kid = await activeKid(database.read);
  // A serving node's dir holds public keys only (docs/issuer.md "Serving nodes"): badges are signed where the keys are.
  if (!fs.existsSync(keyFile(keysDir, kid)))
    throw new AdminError(
      'SERVING_NODE_DIR',
      'this issuer holds no private signing key (a serving node): issue staff badges where the signing keys are',
    );
  const key = loadSigningKey(keysDir, kid);
  const payload: StaffBadgePayload = {
    v: 1,
    iss: baseUrl,
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
  // A named job, so that it also runs on serve's SQLite database thread (store/named-jobs.ts).
  await database.write(insertStaffBadgeWrite(row));
  return { ...row, revoked_at: null, revoked_reason: null };
}
