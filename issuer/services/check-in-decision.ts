/**
 * The check-in decision: docs/protocol.md "Precedence" as ONE
 * ordered list of named checks with stable codes. Pure: no clock, no
 * database. The caller gathers the facts (I/O at the edges) and applies the
 * decision (issuer/services/check-in.ts).
 *
 * Steps 1 and 2 also run earlier at the HTTP edge (the Bearer in an onRequest
 * hook, field types in the route schema) because they must answer before the
 * body is read; they are here too so the whole order lives in one place.
 */
import crypto from 'node:crypto';
import type { ErrorEnvelope } from '../../protocol/error-envelope.js';
import type { CheckInResponse, CheckInStatus, CheckInTicket } from '../../protocol/types.js';
import { isUuidV4 } from '../../protocol/uuid.js';
import type { ScannerCredential } from '../auth.js';
import { ApiError, errors } from '../error-catalogue.js';
import type { CheckinRow } from '../store/checkins.js';
import type { TicketRow } from '../store/tickets.js';

/** Spec "Limits": the oldest accepted scanned_at. */
export const MAX_SCAN_AGE_MS = 48 * 3600_000;
/** docs/protocol.md "Precedence" check 2: tolerated scanner clock lead. */
export const MAX_SCAN_LEAD_MS = 5 * 60_000;

/** A CheckInRequest body that passed the route schema (types are right; values not yet judged). */
export interface CheckInBody {
  tid: string;
  eid: string;
  scanned_at: string;
  scanner_id: string;
  gate_id?: string;
  idempotency_key?: string;
  signature_status?: 'valid' | 'invalid';
  [extra: string]: unknown;
}

/** A stored first answer, with the scanner whose key stored it. */
export interface PriorAnswer {
  requestHash: string;
  httpStatus: number;
  responseBody: string;
  scannerId: string;
}

export interface CheckInFacts {
  now: Date;
  credential: ScannerCredential | null;
  body: CheckInBody;
  /** The `Idempotency-Key` header, if sent. */
  headerKey: string | undefined;
  /** The stored answer for the effective idempotency key, if any. */
  prior: PriorAnswer | undefined;
  ticket: TicketRow | undefined;
  checkin: CheckinRow | undefined;
}

/** What the caller does with the request. */
export type CheckInDecision =
  /** Refused before idempotency applies: nothing is stored, the error is thrown. */
  | { kind: 'refuse'; check: CheckInCheckCode; outcome: string; error: ApiError }
  /** Precedence 3: the stored first answer, byte for byte. */
  | { kind: 'replay'; check: 'idempotency'; outcome: 'replay'; httpStatus: number; responseBody: string }
  /** A first answer: stored under the idempotency key, then sent. `firstCheckIn` is set only for `valid`. */
  | {
      kind: 'answer';
      check: CheckInCheckCode | 'admit';
      outcome: string;
      httpStatus: number;
      body: CheckInResponse | ErrorEnvelope;
      firstCheckIn?: { checkedInAt: string };
    };

type Verdict = CheckInDecision | null;

interface Check {
  code: CheckInCheckCode;
  /** Null when the check passes; otherwise the answer, and the evaluation stops. */
  evaluate(facts: CheckInFacts, key: string): Verdict;
}

/** The order of docs/protocol.md "Precedence". Codes are stable: they are stored in scan_log. */
export const CHECK_IN_CHECKS = [
  'api_key', // 1. 401
  'well_formed', // 2. 400 INVALID_REQUEST
  'idempotency', // 3. replay or 409
  'key_scope', // 4. 403
  'signature_reported', // 5. 400 invalid_signature
  'ticket_known', // 6. 404
  'event', // 7. wrong_event
  'not_revoked', //    revoked
  'not_expired', //    expired
  'first_use', //      already_used
] as const;
export type CheckInCheckCode = (typeof CHECK_IN_CHECKS)[number];

const refuse = (check: CheckInCheckCode, outcome: string, error: ApiError): Verdict => ({ kind: 'refuse', check, outcome, error });

const errorAnswer = (check: CheckInCheckCode, outcome: string, error: ApiError): Verdict => ({
  kind: 'answer',
  check,
  outcome,
  httpStatus: error.statusCode,
  body: error.toEnvelope(),
});

const statusAnswer = (check: CheckInCheckCode, status: CheckInStatus, ticket: TicketRow, checkedInAt: string | null): Verdict => ({
  kind: 'answer',
  check,
  outcome: status,
  httpStatus: 200,
  body: { status, ticket: ticketSummary(ticket, checkedInAt) },
});

const CHECKS: readonly Check[] = [
  {
    code: 'api_key',
    evaluate: (f) => (f.credential === null ? refuse('api_key', 'unauthorized', errors.unauthorized()) : null),
  },
  {
    code: 'well_formed',
    evaluate: (f) => {
      const problem = requestProblem(f.body, f.headerKey, f.now);
      return problem === null ? null : refuse('well_formed', 'invalid_request', errors.invalidField(problem.field, problem.problem));
    },
  },
  {
    code: 'idempotency',
    evaluate: (f, key) => {
      if (f.prior === undefined) return null;
      // A replay is honoured whichever of the scanner's keys sends it (re-enrolled scanners flush old queues);
      // the same key from another scanner, or with another body, is a conflict.
      if (f.prior.requestHash === requestHash(f.body, key) && f.prior.scannerId === f.credential!.scannerId) {
        return {
          kind: 'replay',
          check: 'idempotency',
          outcome: 'replay',
          httpStatus: f.prior.httpStatus,
          responseBody: f.prior.responseBody,
        };
      }
      return refuse('idempotency', 'idempotency_conflict', errors.idempotencyConflict());
    },
  },
  {
    code: 'key_scope',
    evaluate: (f) => {
      const credential = f.credential!;
      if (f.body.eid !== credential.eid) return errorAnswer('key_scope', 'forbidden', errors.forbiddenEvent());
      if (credential.gateId !== null && f.body.gate_id !== undefined && f.body.gate_id !== credential.gateId) {
        return errorAnswer('key_scope', 'forbidden', errors.forbiddenGate());
      }
      return null;
    },
  },
  {
    code: 'signature_reported',
    evaluate: (f) =>
      f.body.signature_status === 'invalid'
        ? errorAnswer('signature_reported', 'invalid_signature', errors.invalidSignatureReported())
        : null,
  },
  {
    code: 'ticket_known',
    evaluate: (f) => (f.ticket === undefined ? errorAnswer('ticket_known', 'not_found', errors.ticketNotFound()) : null),
  },
  {
    // `ticket.eid` in the answer is the ticket's own event (spec "CheckInTicket").
    code: 'event',
    evaluate: (f) => (f.ticket!.eid !== f.body.eid ? statusAnswer('event', 'wrong_event', f.ticket!, null) : null),
  },
  {
    code: 'not_revoked',
    evaluate: (f) => (f.ticket!.revoked_at !== null ? statusAnswer('not_revoked', 'revoked', f.ticket!, null) : null),
  },
  {
    // Judged at scanned_at, so a scan queued offline before expiry still admits when sent later.
    code: 'not_expired',
    evaluate: (f) =>
      f.ticket!.exp * 1000 < Date.parse(f.body.scanned_at) ? statusAnswer('not_expired', 'expired', f.ticket!, null) : null,
  },
  {
    code: 'first_use',
    evaluate: (f) => (f.checkin !== undefined ? statusAnswer('first_use', 'already_used', f.ticket!, f.checkin.checked_in_at) : null),
  },
];

/** Runs the checks in order; the first that applies answers. All pass: `valid`, checked in at scanned_at. */
export function decideCheckIn(facts: CheckInFacts): CheckInDecision {
  const key = effectiveIdempotencyKey(facts.body, facts.headerKey) ?? '';
  for (const check of CHECKS) {
    const verdict = check.evaluate(facts, key);
    if (verdict !== null) return verdict;
  }
  const checkedInAt = new Date(facts.body.scanned_at).toISOString();
  return {
    kind: 'answer',
    check: 'admit',
    outcome: 'valid',
    httpStatus: 200,
    body: { status: 'valid', ticket: ticketSummary(facts.ticket!, checkedInAt) },
    firstCheckIn: { checkedInAt },
  };
}

/** Header or body key: either alone is used; both must then be equal (checked in requestProblem). */
export function effectiveIdempotencyKey(body: CheckInBody, headerKey: string | undefined): string | undefined {
  return headerKey ?? body.idempotency_key;
}

/** Precedence 2, the parts a JSON schema cannot say. Field presence and types are the route schema's job. */
export function requestProblem(body: CheckInBody, headerKey: string | undefined, now: Date): { field: string; problem: string } | null {
  const key = effectiveIdempotencyKey(body, headerKey);
  if (key === undefined) return { field: 'idempotency_key', problem: 'is missing (body field or Idempotency-Key header)' };
  if (headerKey !== undefined && body.idempotency_key !== undefined && headerKey !== body.idempotency_key) {
    return { field: 'idempotency_key', problem: 'differs from the Idempotency-Key header' };
  }
  if (!isUuidV4(key)) return { field: 'idempotency_key', problem: 'is not a UUID v4' };
  const scannedAt = Date.parse(body.scanned_at);
  if (Number.isNaN(scannedAt)) return { field: 'scanned_at', problem: 'is not a date-time' };
  if (scannedAt < now.getTime() - MAX_SCAN_AGE_MS) return { field: 'scanned_at', problem: 'is more than 48 hours in the past' };
  if (scannedAt > now.getTime() + MAX_SCAN_LEAD_MS) return { field: 'scanned_at', problem: 'is more than 5 minutes in the future' };
  return null;
}

/**
 * "Same body" compares the parsed JSON, key order and whitespace aside
 * (precedence 3). The effective key is folded in, so a key sent in the header
 * the first time and in the body on replay is still the same request.
 */
export function requestHash(body: CheckInBody, effectiveKey: string): string {
  return crypto
    .createHash('sha256')
    .update(canonicalJson({ ...body, idempotency_key: effectiveKey }))
    .digest('hex');
}

/** JSON with object keys sorted at every depth. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Spec "CheckInTicket". `checked_in_at` is null except for valid (the new time) and already_used (the original). */
export function ticketSummary(ticket: TicketRow, checkedInAt: string | null): CheckInTicket {
  const summary: CheckInTicket = { tid: ticket.tid, eid: ticket.eid };
  if (ticket.holder_name !== null) summary.holder_name = ticket.holder_name;
  if (ticket.ticket_type !== null) summary.ticket_type = ticket.ticket_type;
  summary.checked_in_at = checkedInAt;
  return summary;
}
