/**
 * The revocation list (docs/protocol.md "Revocation list", a project extension): a scanner key fetches its
 * event's revoked tickets incrementally, `GET /api/v1/scanners/revocations?since=CURSOR`, so a kiosk that
 * loses the issuer still refuses them. Revocations are final at this issuer (nothing un-revokes a ticket), so
 * the list only grows: an answer carries the tids revoked since the cursor, never a removal.
 */
import type { DiscoveryDocument, IsoDateTime } from './types.js';

/** Opaque to scanners: `<copy id>.<number>` at this issuer (issuer/services/revocations.ts). */
export const REVOCATION_CURSOR_PATTERN = '^[0-9a-f]{16}\\.[0-9]{1,15}$';

/** Tickets per page: the default, and the most a scanner may ask for (`limit`). */
export const REVOCATION_PAGE_DEFAULT = 10_000;
export const REVOCATION_PAGE_MAX = 50_000;

export interface RevocationPage {
  eid: string;
  /** The tickets revoked after the cursor, in the order they were revoked. */
  revoked: string[];
  /** Send as `since` for the next page (complete: false) or the next sync (complete: true). */
  next: string;
  /** True when nothing revoked after `next` existed at the time of the answer. */
  complete: boolean;
  /**
   * True when the answer starts from the beginning although a cursor was sent: the cursor was made by another
   * copy of the issuer (export/import) or is ahead of it (a restored backup). The scanner replaces its list.
   */
  reset: boolean;
  server_time: IsoDateTime;
  /** The event's revoked staff badges, in full on every page (docs/protocol.md "Revocation list"); absent from an older issuer. */
  revoked_badges?: { sid: string; revoked_at: IsoDateTime }[];
  /** The event's revoked scanners, in full on every page, whose LAN messages peers ignore; absent from an older issuer. */
  revoked_scanners?: { scanner_id: string; revoked_at: IsoDateTime }[];
}

export const revocationPageSchema = {
  $id: 'RevocationPage',
  type: 'object',
  required: ['eid', 'revoked', 'next', 'complete', 'reset', 'server_time'],
  properties: {
    eid: { type: 'string' },
    revoked: { type: 'array', items: { type: 'string' } },
    next: { type: 'string' },
    complete: { type: 'boolean' },
    reset: { type: 'boolean' },
    server_time: { type: 'string', format: 'date-time' },
    revoked_badges: {
      type: 'array',
      items: {
        type: 'object',
        required: ['sid', 'revoked_at'],
        properties: { sid: { type: 'string' }, revoked_at: { type: 'string', format: 'date-time' } },
      },
    },
    revoked_scanners: {
      type: 'array',
      items: {
        type: 'object',
        required: ['scanner_id', 'revoked_at'],
        properties: { scanner_id: { type: 'string' }, revoked_at: { type: 'string', format: 'date-time' } },
      },
    },
  },
} as const;

export const revocationQuerySchema = {
  type: 'object',
  properties: {
    since: { type: 'string', pattern: REVOCATION_CURSOR_PATTERN },
    // A query string is text: a whole number from 1, at most REVOCATION_PAGE_MAX (checked by the service).
    limit: { type: 'string', pattern: '^[1-9][0-9]{0,4}$' },
  },
} as const;

/** The discovery document's extra field naming the endpoint; absent at an issuer without it. */
export function revocationsUrlOf(document: DiscoveryDocument): string | null {
  const url = (document.endpoints as { scanner_revocations?: unknown }).scanner_revocations;
  return typeof url === 'string' ? url : null;
}

/** A 200 answer of the revocation endpoint, checked field by field (the kiosk trusts nothing it did not check). */
export function isRevocationPage(body: unknown): body is RevocationPage {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const page = body as Record<string, unknown>;
  return (
    typeof page['eid'] === 'string' &&
    Array.isArray(page['revoked']) &&
    page['revoked'].every((tid) => typeof tid === 'string' && tid.length > 0 && tid.length <= 200) &&
    typeof page['next'] === 'string' &&
    page['next'].length <= 100 &&
    typeof page['complete'] === 'boolean' &&
    typeof page['reset'] === 'boolean'
  );
}
