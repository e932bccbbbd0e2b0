/**
 * GET /api/v1/scanners/revocations (docs/protocol.md "Revocation list"): the scanner's event's revocations after
 * its cursor, a page at a time. The cursor is `<copy id>.<number>` of the revocation sequence
 * (store/revocations.ts); a cursor of another copy, or one ahead of this copy, starts again from the beginning.
 */
import { REVOCATION_PAGE_DEFAULT, type RevocationPage } from '../../protocol/revocations.js';
import type { ScannerCredential } from '../auth.js';
import { revocationsAfter, revocationSequence, revokedScannersOf } from '../store/revocations.js';
import { revokedBadgesOf } from '../store/staff-badges.js';
import type { Sql } from '../store/sql.js';
import { listCursor, pageStart } from './list-cursor.js';

export async function revocationPage(
  db: Sql,
  credential: Pick<ScannerCredential, 'eid'>,
  query: { since?: string; limit?: number },
  now: Date,
): Promise<RevocationPage> {
  const limit = query.limit ?? REVOCATION_PAGE_DEFAULT;
  // The sequence is read first: every number up to last_seq was committed with it (the same transaction moved
  // the sequence and numbered the ticket), so the rows read next hold all of them, and nothing is skipped.
  const sequence = await revocationSequence(db);
  const { after, reset } = pageStart(query.since, sequence);
  const rows = await revocationsAfter(db, credential.eid, after, sequence.last_seq, limit);
  const complete = rows.length < limit;
  const next = complete ? sequence.last_seq : rows[rows.length - 1]!.seq;
  return {
    eid: credential.eid,
    revoked: rows.map((row) => row.tid),
    next: listCursor(sequence.copy_id, next),
    complete,
    reset,
    server_time: now.toISOString(),
    // Small lists, sent whole on every page (docs/protocol.md "Revocation list"): a kiosk replaces its copy.
    revoked_badges: await revokedBadgesOf(db, credential.eid),
    revoked_scanners: await revokedScannersOf(db, credential.eid),
  };
}
