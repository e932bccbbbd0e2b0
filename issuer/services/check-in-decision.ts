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
import { entriesOnLocalDay, evaluateRules, type CheckInRules } from '../../protocol/check-in-rules.js';
import { CHECK_IN_CALLS, mayCall, type StaffRole } from '../../protocol/access.js';
import type { ErrorEnvelope } from '../../protocol/error-envelope.js';
import {
  MAX_REASON_LENGTH,
  type DoorCheckInResponse,
  type DoorStatus,
  type EntryPolicy,
  type Presence,
  type ScanAction,
} from '../../protocol/door.js';
import type { CheckInStatus, CheckInTicket } from '../../protocol/types.js';
import {
  countsOf,
  judgePartyEntry,
  judgePartyExit,
  partySizeOf,
  partyState,
  type PartyCounts,
  type PartyState,
} from '../../protocol/party.js';
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
  /** docs/protocol.md "Door operations": absent is an entry under the spec's rules. */
  action?: ScanAction;
  admitted_offline?: boolean;
  reason?: string;
  /** Who at the door, as the kiosk knows them (docs/protocol.md "Check-in request: who at the door"). */
  staff_id?: string;
  /** A tstaff1. code shown at the kiosk for this action. */
  staff_badge?: string;
  /** docs/protocol.md "Ticket search": an entry made by hand (found by a search, not scanned), and why. */
  manual_reason?: string;
  /** docs/protocol.md "ID checks (project extension)": the steward checked the holder's ID. */
  id_checked?: boolean;
  /** docs/protocol.md "Party tickets (project extension)": people in (or out) with this scan; absent: one. */
  people?: number;
  [extra: string]: unknown;
}

/** A staff_badge as checked (protocol/staff-badge.ts checkStaffBadge) by the caller; absent when none was sent. */
export type BadgeFact = { ok: true; sid: string; role: StaffRole } | { ok: false; check: string; message: string };

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
  /** The ticket's event's door settings; the spec's (single, no capacity) when not given. */
  door?: { entry_policy: EntryPolicy; capacity: number | null } | undefined;
  /** Inside now at the event, read only when an explicit entry or exit meets an event with a capacity. */
  insideNow?: number | undefined;
  /**
   * The event's check-in rules and the ticket's entries that count for a daily limit (store/check-in-rules.ts
   * countedEntryTimes), read only for an explicit entry not admitted offline (the check `rules`).
   */
  rules?: { rules: CheckInRules; entryTimes: readonly string[] } | undefined;
  /** The request's staff badge, checked; undefined when it sent none. */
  badge?: BadgeFact | undefined;
}

/**
 * What an accepted scan changes (docs/protocol.md "One state per ticket"): the ticket's state from the
 * version read, or (`history`) nothing but the record of a late scan older than the current state.
 */
export type AdmissionEffect =
  | { kind: 'enter'; at: string; fromVersion: number | null; party?: PartyMove }
  | { kind: 'exit'; at: string; fromVersion: number; party?: PartyMove }
  | { kind: 'annul'; at: string; fromVersion: number; wasInside: boolean; counts?: PartyCounts }
  | { kind: 'history'; action: 'entry' | 'exit'; at: string }
  /** An entry admitted offline while the ticket is inside by the issuer's record: the inside state dates from it. */
  | { kind: 'observed'; at: string; fromVersion: number };

/**
 * A party ticket's entry or exit (docs/protocol.md "Party tickets (project extension)"): the people it counts and
 * the ticket's counts after it, written at the version read.
 */
export interface PartyMove {
  people: number;
  after: PartyCounts;
}

/** What the caller does with the request. */
export type CheckInDecision =
  /** Refused before idempotency applies: nothing is stored, the error is thrown. */
  | { kind: 'refuse'; check: CheckInCheckCode; outcome: string; error: ApiError }
  /** Precedence 3: the stored first answer, byte for byte. */
  | { kind: 'replay'; check: 'idempotency'; outcome: 'replay'; httpStatus: number; responseBody: string }
  /** A first answer: stored under the idempotency key, then sent. `effect`: what an accepted scan changes. */
  | {
      kind: 'answer';
      check: CheckInCheckCode | 'admit' | 'exit' | 'annul';
      outcome: string;
      httpStatus: number;
      body: DoorCheckInResponse | ErrorEnvelope;
      effect?: AdmissionEffect;
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
  'staff_badge', //     403 staff_badge_refused (a staff_badge that does not hold)
  'action_right', //    403 action_not_allowed (annul without the right, by the key's role or a valid badge's)
  'signature_reported', // 5. 400 invalid_signature
  'ticket_known', // 6. 404
  'event', // 7. wrong_event
  'not_revoked', //    revoked (entries only)
  'not_expired', //    expired (entries only)
  'rules', //          rule_refused (explicit entries): the event's check-in rules (protocol/check-in-rules.ts)
  'first_use', //      already_used (entries)
  'capacity', //       venue_full (explicit entries)
  'inside', //         not_inside (exits)
  'checked_in', //     not_checked_in (annulments)
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

const statusAnswer = (
  f: CheckInFacts,
  check: CheckInCheckCode | 'admit' | 'exit' | 'annul',
  status: CheckInStatus | DoorStatus,
  checkedInAt: string | null,
  after?: { presence: Presence; effect?: AdmissionEffect; insideDelta?: number; party?: PartyState },
): CheckInDecision => {
  const body: DoorCheckInResponse = { status, ticket: ticketSummary(f.ticket!, checkedInAt) };
  // docs/protocol.md "Party tickets (project extension)": any answer about a party ticket of the scanner's event
  // says its counts (after this scan), an extra field spec scanners ignore.
  const party = currentParty(f) === null ? null : (after?.party ?? currentParty(f));
  if (party !== null) body.party = party;
  // The extension's fields go only to a scanner that sent `action`: a spec scanner's answers stay the spec's.
  if (f.body.action !== undefined) {
    body.ticket.presence = after ? after.presence : presenceOf(f.checkin);
    const capacity = f.door?.capacity ?? null;
    if (capacity !== null && f.insideNow !== undefined && f.body.action !== 'annul') {
      body.occupancy = { inside: Math.max(0, f.insideNow + (after?.insideDelta ?? 0)), capacity };
    }
  }
  const decision: CheckInDecision = { kind: 'answer', check, outcome: status, httpStatus: 200, body };
  if (after?.effect) decision.effect = after.effect;
  return decision;
};

const presenceOf = (checkin: CheckinRow | undefined): Presence => checkin?.state ?? null;
const policyOf = (f: CheckInFacts): EntryPolicy => f.door?.entry_policy ?? 'single';
const sizeOf = (f: CheckInFacts): number => partySizeOf(f.ticket?.party);
const peopleOf = (f: CheckInFacts): number => f.body.people ?? 1;
/** Judged by the party rules: a ticket of more than one person, or a scan that counts more than one. */
const isParty = (f: CheckInFacts): boolean => sizeOf(f) > 1 || peopleOf(f) > 1;
/** A party ticket's counts now, for an answer about a ticket of the scanner's event; null for one person. */
const currentParty = (f: CheckInFacts): PartyState | null =>
  f.ticket === undefined || !isParty(f) || f.ticket.eid !== f.body.eid ? null : partyState(sizeOf(f), countsOf(f.checkin), policyOf(f));
const actionOf = (f: CheckInFacts): ScanAction => f.body.action ?? 'entry';
const scanTime = (f: CheckInFacts): string => new Date(f.body.scanned_at).toISOString();

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
    code: 'staff_badge',
    evaluate: (f) =>
      f.badge !== undefined && !f.badge.ok
        ? errorAnswer('staff_badge', 'staff_badge_refused', errors.staffBadgeRefused(f.badge.check, f.badge.message))
        : null,
  },
  {
    code: 'action_right',
    // docs/protocol.md "Roles and rights": the key's role, or a valid staff badge's, may make this action's call
    // (entry and exit: every key).
    // A manual entry (docs/protocol.md "Ticket search") is the call issuer.manualEntry.
    evaluate: (f) => {
      const call = f.body.manual_reason !== undefined ? 'issuer.manualEntry' : CHECK_IN_CALLS[actionOf(f)];
      // docs/protocol.md "Handouts (project extension)": a handout station's key never admits, whatever badge comes with it.
      const badgeMay = f.badge?.ok === true && mayCall(f.badge.role, call) && f.credential!.role !== 'handout';
      if (mayCall(f.credential!.role, call) || badgeMay) return null;
      const refusal = f.body.manual_reason !== undefined ? errors.forbiddenManualEntry() : errors.forbiddenAction(actionOf(f));
      return errorAnswer('action_right', 'forbidden', refusal);
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
    // `ticket.eid` in the answer is the ticket's own event (docs/protocol.md "Precedence").
    code: 'event',
    evaluate: (f) => (f.ticket!.eid !== f.body.eid ? statusAnswer(f, 'event', 'wrong_event', null) : null),
  },
  {
    // A revoked or expired ticket can still be scanned out or annulled (docs/protocol.md "Answers").
    code: 'not_revoked',
    evaluate: (f) => (actionOf(f) === 'entry' && f.ticket!.revoked_at !== null ? statusAnswer(f, 'not_revoked', 'revoked', null) : null),
  },
  {
    // Judged at scanned_at, so a scan queued offline before expiry still admits when sent later.
    code: 'not_expired',
    evaluate: (f) =>
      actionOf(f) === 'entry' && f.ticket!.exp * 1000 < Date.parse(f.body.scanned_at)
        ? statusAnswer(f, 'not_expired', 'expired', null)
        : null,
  },
  {
    // docs/protocol.md "Check-in rules": the same pure function the kiosk runs offline (protocol/verdict.ts check
    // `rules`, at the same place: after expiry, before "already used"), judged at scanned_at. Only an explicit,
    // live entry: a spec scanner keeps the spec's answers, and an entry admitted offline has happened.
    code: 'rules',
    evaluate: (f) => {
      if (f.body.action !== 'entry' || f.body.admitted_offline === true || f.rules === undefined) return null;
      const at = Date.parse(f.body.scanned_at);
      const { rules, entryTimes } = f.rules;
      const outcome = evaluateRules(rules, {
        ticketType: f.ticket!.ticket_type,
        gateId: f.body.gate_id ?? f.credential!.gateId,
        direction: 'entry',
        at,
        entriesToday: entriesOnLocalDay(entryTimes, at, rules.time_zone),
        entryPolicy: f.door?.entry_policy ?? 'single',
      });
      if (outcome.pass) return null;
      const answer = statusAnswer(f, 'rules', 'rule_refused', null);
      if (answer.kind === 'answer') (answer.body as DoorCheckInResponse).rule = outcome.refusal;
      return answer;
    },
  },
  {
    // Inside, or out of a single-entry event: the spec's already_used, with the current admission's entry time.
    code: 'first_use',
    evaluate: (f) => {
      const c = f.checkin;
      if (actionOf(f) === 'entry' && isParty(f)) return partyFirstUse(f);
      if (actionOf(f) !== 'entry' || c === undefined) return null;
      const reentry = (f.door?.entry_policy ?? 'single') === 'reentry';
      if (c.state === 'outside' && !reentry) return statusAnswer(f, 'first_use', 'already_used', c.checked_in_at);
      if (c.state !== 'inside') return null;
      // A re-entry a kiosk admitted offline, reaching the issuer before the exit that preceded it (still queued
      // elsewhere): the person did come in at scanned_at. The answer stays already_used, but the ticket's inside
      // state now dates from then, so that the late exit, older, is history (docs/protocol.md "Late scans are ordered by `scanned_at`").
      const at = scanTime(f);
      if (reentry && f.body.admitted_offline === true && at > c.state_at) {
        return statusAnswer(f, 'first_use', 'already_used', c.checked_in_at, {
          presence: 'inside',
          effect: { kind: 'observed', at, fromVersion: c.version },
        });
      }
      return statusAnswer(f, 'first_use', 'already_used', c.checked_in_at);
    },
  },
  {
    // Only an explicit, live entry: a spec scanner never gets venue_full, and an entry admitted offline has happened.
    code: 'capacity',
    evaluate: (f) => {
      const capacity = f.door?.capacity ?? null;
      if (f.body.action !== 'entry' || f.body.admitted_offline === true || capacity === null || f.insideNow === undefined) return null;
      // A party's part counts its people (docs/protocol.md "Occupancy"): one person is the spec's inside >= capacity.
      return f.insideNow + peopleOf(f) > capacity ? statusAnswer(f, 'capacity', 'venue_full', f.checkin?.checked_in_at ?? null) : null;
    },
  },
  {
    // docs/protocol.md "Late scans are ordered by scanned_at".
    code: 'inside',
    evaluate: (f) => {
      if (actionOf(f) !== 'exit') return null;
      const c = f.checkin;
      const at = scanTime(f);
      const notInside = (): CheckInDecision => statusAnswer(f, 'inside', 'not_inside', c?.checked_in_at ?? null);
      // A party's exits are counted, not ordered by time: nobody of it inside is the only refusal.
      if (isParty(f)) return judgePartyExit(countsOf(c), peopleOf(f)).kind === 'not_inside' ? notInside() : null;
      if (c === undefined || c.state === 'annulled' || at < c.first_checked_in_at) return notInside();
      if (c.state === 'outside' && at >= c.state_at) return notInside();
      return null;
    },
  },
  {
    code: 'checked_in',
    evaluate: (f) => (actionOf(f) === 'annul' && f.checkin === undefined ? statusAnswer(f, 'checked_in', 'not_checked_in', null) : null),
  },
];

/**
 * docs/protocol.md "Party tickets (project extension)": an entry of a party ticket is judged by its counts, not by
 * its state: `already_used` only when nobody more may come in, `party_exceeded` for a live part larger than what
 * remains (nothing is checked in), and a part admitted offline counts what still fits (the rest `refused`).
 */
function partyFirstUse(f: CheckInFacts): Verdict {
  const c = f.checkin;
  const counts = countsOf(c);
  const offline = f.body.admitted_offline === true;
  const judged = judgePartyEntry(sizeOf(f), counts, policyOf(f), peopleOf(f), offline);
  if (judged.kind === 'full') {
    return statusAnswer(f, 'first_use', 'already_used', c?.checked_in_at ?? null, {
      presence: presenceOf(c),
      party: partyState(sizeOf(f), counts, policyOf(f), offline ? peopleOf(f) : 0),
    });
  }
  if (judged.kind === 'too_many') return statusAnswer(f, 'first_use', 'party_exceeded', c?.checked_in_at ?? null);
  return null;
}

/** A party ticket's accepted entry or exit: the people it counts, and the counts after. */
function acceptParty(f: CheckInFacts): CheckInDecision {
  const at = scanTime(f);
  const c = f.checkin;
  const counts = countsOf(c);
  const fromVersion = c === undefined ? null : c.version;
  if (actionOf(f) === 'entry') {
    const judged = judgePartyEntry(sizeOf(f), counts, policyOf(f), peopleOf(f), f.body.admitted_offline === true);
    if (judged.kind !== 'admit') throw new Error('a party entry reached accept without room (first_use judges it)');
    return statusAnswer(f, 'admit', 'valid', at, {
      presence: 'inside',
      effect: { kind: 'enter', at, fromVersion, party: { people: judged.people, after: judged.after } },
      insideDelta: judged.people,
      party: partyState(sizeOf(f), judged.after, policyOf(f), judged.refused),
    });
  }
  const judged = judgePartyExit(counts, peopleOf(f));
  if (judged.kind !== 'exit') throw new Error('a party exit reached accept with nobody inside (inside judges it)');
  return statusAnswer(f, 'exit', 'exited', c!.checked_in_at, {
    presence: judged.after.inside > 0 ? 'inside' : 'outside',
    effect: { kind: 'exit', at, fromVersion: c!.version, party: { people: judged.people, after: judged.after } },
    insideDelta: -judged.people,
    party: partyState(sizeOf(f), judged.after, policyOf(f)),
  });
}

/** All checks passed: what the accepted scan answers and changes. */
function accept(f: CheckInFacts): CheckInDecision {
  const at = scanTime(f);
  const c = f.checkin;
  if (actionOf(f) !== 'annul' && isParty(f)) return acceptParty(f);
  switch (actionOf(f)) {
    case 'entry':
      // A late entry older than the last exit: it happened (history); the ticket stays outside.
      if (c !== undefined && c.state === 'outside' && at < c.state_at) {
        return statusAnswer(f, 'admit', 'valid', at, { presence: 'outside', effect: { kind: 'history', action: 'entry', at } });
      }
      return statusAnswer(f, 'admit', 'valid', at, {
        presence: 'inside',
        effect: { kind: 'enter', at, fromVersion: c === undefined ? null : c.version },
        insideDelta: 1,
      });
    case 'exit':
      // c is inside here, or outside since a later exit (the checks above). Older than its state: history.
      if (c!.state !== 'inside' || at < c!.state_at) {
        return statusAnswer(f, 'exit', 'exited', c!.checked_in_at, { presence: c!.state, effect: { kind: 'history', action: 'exit', at } });
      }
      return statusAnswer(f, 'exit', 'exited', c!.checked_in_at, {
        presence: 'outside',
        effect: { kind: 'exit', at, fromVersion: c!.version },
        insideDelta: -1,
      });
    case 'annul':
      // Annulling an annulled check-in answers the same again and changes nothing: idempotent by state.
      if (c!.state === 'annulled') return statusAnswer(f, 'annul', 'annulled', c!.checked_in_at, { presence: 'annulled' });
      return statusAnswer(f, 'annul', 'annulled', c!.checked_in_at, {
        presence: 'annulled',
        effect: { kind: 'annul', at: scanTime(f), fromVersion: c!.version, wasInside: c!.state === 'inside', counts: countsOf(c) },
        party: partyState(sizeOf(f), countsOf(undefined), policyOf(f)),
      });
  }
}

/**
 * Runs the checks in order; the first that applies answers. All pass: the scan is accepted (an entry is
 * `valid`, checked in at scanned_at; an exit `exited`; an annulment `annulled`).
 */
export function decideCheckIn(facts: CheckInFacts): CheckInDecision {
  const key = effectiveIdempotencyKey(facts.body, facts.headerKey) ?? '';
  for (const check of CHECKS) {
    const verdict = check.evaluate(facts, key);
    if (verdict !== null) return verdict;
  }
  return accept(facts);
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
  if (body.reason !== undefined && body.action !== 'annul') return { field: 'reason', problem: 'is only for "action": "annul"' };
  if (body.reason !== undefined && (body.reason.trim() === '' || body.reason.length > MAX_REASON_LENGTH)) {
    return { field: 'reason', problem: `must be 1-${MAX_REASON_LENGTH} characters` };
  }
  if (body.manual_reason !== undefined && (body.action ?? 'entry') !== 'entry') {
    return { field: 'manual_reason', problem: 'is only for an entry' };
  }
  if (body.manual_reason !== undefined && (body.manual_reason.trim() === '' || body.manual_reason.length > MAX_REASON_LENGTH)) {
    return { field: 'manual_reason', problem: `must be 1-${MAX_REASON_LENGTH} characters` };
  }
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
