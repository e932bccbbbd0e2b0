/**
 * The discovery document (docs/protocol.md "Discovery document"). Built from the
 * database on every request, so a key rotated by the admin CLI in another
 * process shows at once, without a restart (docs/protocol.md "Keys").
 * The strong ETag is a hash of the exact bytes sent.
 */
import crypto from 'node:crypto';
import { PROTOCOL_VERSION, SUPPORTED_VERSIONS, type DiscoveryDocument, type IssuerEndpoints } from '../../protocol/types.js';
import type { Sql } from '../store/sql.js';
import { getIssuerInfo } from '../store/issuer-info.js';
import { publishedKeys } from '../store/signing-keys.js';

export const API_PREFIX = `/api/v${PROTOCOL_VERSION}`;
export const PATHS = {
  discovery: '/.well-known/ticket-issuer.json',
  enroll: `${API_PREFIX}/scanners/enroll`,
  checkIn: `${API_PREFIX}/tickets/check-in`,
  status: `${API_PREFIX}/tickets/:tid/status`,
  /** docs/protocol.md "Ticket search" (project extension): for a supervisor's key. */
  search: `${API_PREFIX}/tickets/search`,
  /** docs/protocol.md "Scanner heartbeat" (project extension). */
  heartbeat: `${API_PREFIX}/scanners/heartbeat`,
  /** docs/protocol.md "Revocation list" (project extension). */
  revocations: `${API_PREFIX}/scanners/revocations`,
  /** docs/protocol.md "Attention notes (project extension)". */
  notes: `${API_PREFIX}/scanners/notes`,
  /** docs/protocol.md "Handouts (project extension)". */
  handouts: `${API_PREFIX}/tickets/handouts`,
} as const;

/**
 * The spec's three endpoints, and the heartbeat, the revocation and notes lists and the ticket search (docs/protocol.md
 * "Ticket search") as extra fields that spec scanners ignore.
 */
export function endpointsFor(baseUrl: string): IssuerEndpoints & {
  scanner_heartbeat: string;
  scanner_revocations: string;
  scanner_notes: string;
  ticket_search: string;
  ticket_handouts: string;
} {
  return {
    check_in: `${baseUrl}${PATHS.checkIn}`,
    status: `${baseUrl}${API_PREFIX}/tickets/{tid}/status`,
    scanner_enroll: `${baseUrl}${PATHS.enroll}`,
    scanner_heartbeat: `${baseUrl}${PATHS.heartbeat}`,
    scanner_revocations: `${baseUrl}${PATHS.revocations}`,
    scanner_notes: `${baseUrl}${PATHS.notes}`,
    ticket_search: `${baseUrl}${PATHS.search}`,
    ticket_handouts: `${baseUrl}${PATHS.handouts}`,
  };
}

export async function discoveryDocument(db: Sql, now: Date): Promise<DiscoveryDocument> {
  const issuer = await getIssuerInfo(db);
  return {
    protocol_version: PROTOCOL_VERSION,
    issuer: issuer.base_url,
    name: issuer.name,
    keys: await publishedKeys(db, Math.floor(now.getTime() / 1000)),
    endpoints: endpointsFor(issuer.base_url),
    supported_versions: [...SUPPORTED_VERSIONS],
  };
}

/** The body and its strong ETag (RFC 9110 8.8.3: a quoted opaque string, no W/ prefix). */
export async function discoveryRepresentation(db: Sql, now: Date): Promise<{ json: string; etag: string }> {
  const json = JSON.stringify(await discoveryDocument(db, now));
  const etag = `"${crypto.createHash('sha256').update(json).digest('base64url')}"`;
  return { json, etag };
}

/** If-None-Match (RFC 9110 13.1.2): a list of ETags or `*`; weak comparison is what the RFC asks for here. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
