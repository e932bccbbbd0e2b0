/**
 * Check-in, the I/O around the pure decision (check-in-decision.ts). One write
 * job per request: read the facts, decide, and write in the same transaction
 * the check-in row, the stored idempotent answer and the scan_log row. A
 * `valid` is sent only after that commit is on disk.
 *
 * "Exactly one valid per ticket, ever" (docs/protocol.md "Precedence") rests on the
 * checkins primary key inside that transaction: a second first-check-in's
 * INSERT fails instead of winning. On SQLite the write lock serialises every
 * writer, so that never happens; on PostgreSQL a process that raced another for
 * the same ticket (or the same idempotency key) fails on the key, and the store
 * runs its job again, which then reads the winner's row and answers from it
 * (already_used, or the stored answer replayed): never a second `valid`.
 */
import type { ErrorEnvelope } from '../../protocol/error-envelope.js';
import type { CheckInResponse } from '../../protocol/types.js';
import { isUuidV4 } from '../../protocol/uuid.js';
import type { ScannerCredential } from '../auth.js';
import type { ApiError } from '../error-catalogue.js';
import { appendScanLog, checkInFacts, insertCheckin, insertStoredAnswer, pruneStoredAnswers, type ScanLogRow } from '../store/checkins.js';
import { namedJob } from '../store/named-jobs.js';
import { decideCheckIn, effectiveIdempotencyKey, requestHash, type CheckInBody, type CheckInDecision } from './check-in-decision.js';
import type { Sql, SqlDatabase } from '../store/sql.js';

/** The HTTP answer, already serialised: first answers and replays send the very same bytes. */
export type CheckInResult = { ok: true; httpStatus: number; responseBody: string } | { ok: false; error: ApiError };

export function checkIn(
  database: SqlDatabase,
  credential: ScannerCredential,
  body: CheckInBody,
  headerKey: string | undefined,
): Promise<CheckInResult> {
  return database.write(checkInWrite({ credential, body, headerKey, now: new Date().toISOString() }));
}

/** The check-in's write job, by name, so that it can run on the SQLite database thread (store/named-jobs.ts). */
const checkInWrite = namedJob(
  'check-in',
  (db, args: { credential: ScannerCredential; body: CheckInBody; headerKey: string | undefined; now: string }) =>
    checkInJob(db, args.credential, args.body, args.headerKey, new Date(args.now)),
);

async function checkInJob(
  db: Sql,
  credential: ScannerCredential,
  body: CheckInBody,
  headerKey: string | undefined,
  now: Date,
): Promise<CheckInResult> {
  const key = effectiveIdempotencyKey(body, headerKey);
  const { ticket, checkin, stored } = await checkInFacts(db, body.tid, key !== undefined && isUuidV4(key) ? key : null);
  const decision = decideCheckIn({
    now,
    credential,
    body,
    headerKey,
    prior: stored && {
      requestHash: stored.request_hash,
      httpStatus: stored.http_status,
      responseBody: stored.response_body,
      scannerId: stored.scanner_id,
    },
    ticket,
    checkin,
  });
  const result = await apply(db, decision, credential, body, key!, now);
  await appendScanLog(db, {
    at: now.toISOString(),
    scanned_at: body.scanned_at,
    tid: body.tid,
    eid: body.eid,
    scanner_id: credential.scannerId,
    api_key_id: credential.apiKeyId,
    gate_id: body.gate_id ?? credential.gateId,
    idempotency_key: key ?? null,
    outcome: decision.outcome,
    details: JSON.stringify({ check: decision.check, http_status: result.ok ? result.httpStatus : result.error.statusCode }),
  });
  return result;
}

async function apply(
  db: Sql,
  decision: CheckInDecision,
  credential: ScannerCredential,
  body: CheckInBody,
  key: string,
  now: Date,
): Promise<CheckInResult> {
  switch (decision.kind) {
    case 'refuse':
      return { ok: false, error: decision.error };
    case 'replay':
      return { ok: true, httpStatus: decision.httpStatus, responseBody: decision.responseBody };
    case 'answer': {
      const responseBody = serialise(decision.body);
      if (decision.firstCheckIn) {
        await insertCheckin(db, {
          tid: body.tid,
          checked_in_at: decision.firstCheckIn.checkedInAt,
          scanner_id: credential.scannerId,
          gate_id: body.gate_id ?? credential.gateId,
          api_key_id: credential.apiKeyId,
          idempotency_key: key,
          recorded_at: now.toISOString(),
        });
      }
      await insertStoredAnswer(db, {
        idempotency_key: key,
        request_hash: requestHash(body, key),
        http_status: decision.httpStatus,
        response_body: responseBody,
        api_key_id: credential.apiKeyId,
        created_at: now.toISOString(),
      });
      return { ok: true, httpStatus: decision.httpStatus, responseBody };
    }
  }
}

function serialise(body: CheckInResponse | ErrorEnvelope): string {
  return JSON.stringify(body);
}

/**
 * Audits an attempt whose body failed the route schema (precedence 2): every
 * check-in attempt goes to scan_log, with tid/eid as claimed when they are strings.
 */
export function recordMalformedCheckIn(database: SqlDatabase, credential: ScannerCredential, body: unknown, field: string): Promise<void> {
  const claimed = (name: string): string | null => {
    const value = (body as Record<string, unknown> | null)?.[name];
    return typeof value === 'string' ? value : null;
  };
  return database.write(
    appendScanLogWrite({
      at: new Date().toISOString(),
      scanned_at: claimed('scanned_at'),
      tid: claimed('tid'),
      eid: claimed('eid'),
      scanner_id: credential.scannerId,
      api_key_id: credential.apiKeyId,
      gate_id: claimed('gate_id') ?? credential.gateId,
      idempotency_key: claimed('idempotency_key'),
      outcome: 'invalid_request',
      details: JSON.stringify({ check: 'well_formed', field }),
    }),
  );
}

const appendScanLogWrite = namedJob('append-scan-log', (db, row: ScanLogRow) => appendScanLog(db, row));

/** Drops the stored answers older than `before` (ISO time); the server runs it hourly. */
export const pruneStoredAnswersWrite = namedJob('prune-stored-answers', (db, before: string) => pruneStoredAnswers(db, before));

/** Stored answers are kept at least 7 days (docs/protocol.md "Precedence"); older ones are dropped. */
export const IDEMPOTENCY_RETENTION_MS = 7 * 24 * 3600_000;
