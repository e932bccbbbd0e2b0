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
import type { Attention } from '../../protocol/attention.js';
import type { IdCheck } from '../../protocol/id-check.js';
import { handoutsOf, type Handout } from '../../protocol/handouts.js';
import { givenOf } from '../store/handouts.js';
import type { ErrorEnvelope } from '../../protocol/error-envelope.js';
import type { DoorCheckInResponse } from '../../protocol/door.js';
import { isUuidV4 } from '../../protocol/uuid.js';
import { checkStaffBadge, decodeStaffBadge } from '../../protocol/staff-badge.js';
import type { PublicKey } from '../../protocol/types.js';
import { getIssuerInfo } from '../store/issuer-info.js';
import { findStaffBadge } from '../store/staff-badges.js';
import type { ScannerCredential } from '../auth.js';
import type { ApiError } from '../error-catalogue.js';
import {
  admissionEventWrite,
  appendScanLog,
  appendScanLogTo,
  changeAdmissionWrite,
  checkInFacts,
  insertCheckinWrite,
  insertStoredAnswerWrite,
  OCCUPANCY_SHARDS,
  occupancyWrites,
  pruneStoredAnswers,
  type CheckinRow,
} from '../store/checkins.js';
import { WriteBatch } from '../store/write-batch.js';
import type { ScanLogRow } from '../store/log-rows.js';
import type { TicketRow } from '../store/tickets.js';
import { countedEntryTimes, storedRules } from '../store/check-in-rules.js';
import { namedJob } from '../store/named-jobs.js';
import {
  decideCheckIn,
  effectiveIdempotencyKey,
  requestHash,
  type AdmissionEffect,
  type BadgeFact,
  type CheckInBody,
  type CheckInDecision,
  type CheckInFacts,
} from './check-in-decision.js';
import type { Dialect, Sql, SqlDatabase } from '../store/sql.js';
import { signAnnulmentReceipt } from './annulment-receipts.js';
import { alertKindOf } from './scan-alerts.js';
import { announceTo } from './webhooks.js';
import { applyDueExitAll, checkOutAt, dueMoment } from './exit-all.js';

/** The HTTP answer, already serialised: first answers and replays send the very same bytes. */
export type CheckInResult = { ok: true; httpStatus: number; responseBody: string } | { ok: false; error: ApiError };

/** `keysDir`: where the private signing keys are, for the annul answer's receipt (annulment-receipts.ts). */
export async function checkIn(
  database: SqlDatabase,
  credential: ScannerCredential,
  body: CheckInBody,
  headerKey: string | undefined,
  keysDir?: string,
): Promise<CheckInResult> {
  const args = { credential, body, headerKey, now: new Date().toISOString(), keysDir };
  // docs/issuer.md "The check-in on PostgreSQL: two round trips": the facts in one statement, every write in one
  // more, no transaction around them; a check-in that must write more than that runs again in a transaction.
  if (database.dialect === 'postgres') {
    try {
      return await database.write(checkInWrite({ ...args, oneStatement: true }), { autocommit: true });
    } catch (error) {
      if (!(error instanceof NeedsTransaction)) throw error;
    }
  }
  return database.write(checkInWrite(args));
}

/**
 * Thrown, before anything is written, by a check-in run without a transaction (PostgreSQL's two round trips)
 * that must write apart from its one statement: a check-out at a set time that fell due.
 */
class NeedsTransaction extends Error {
  constructor() {
    super('this check-in writes more than one statement: it runs in a transaction');
    this.name = 'NeedsTransaction';
  }
}

/** The check-in's write job, by name, so that it can run on the SQLite database thread (store/named-jobs.ts). */
export const checkInWrite = namedJob(
  'check-in',
  (
    db,
    args: {
      credential: ScannerCredential;
      body: CheckInBody;
      headerKey: string | undefined;
      now: string;
      keysDir?: string | undefined;
      /** Run outside a transaction: every write must go in the one batch (else NeedsTransaction, before any write). */
      oneStatement?: boolean;
    },
  ) => checkInJob(db, args.credential, args.body, args.headerKey, new Date(args.now), args.keysDir, args.oneStatement === true),
);

async function checkInJob(
  db: Sql,
  credential: ScannerCredential,
  body: CheckInBody,
  headerKey: string | undefined,
  now: Date,
  keysDir: string | undefined,
  oneStatement: boolean,
): Promise<CheckInResult> {
  const key = effectiveIdempotencyKey(body, headerKey);
  const lookupKey = key !== undefined && isUuidV4(key) ? key : null;
  let facts = await checkInFacts(db, body.tid, lookupKey);
  // docs/protocol.md "Check-out at a set time": a moment passed is recorded before this scan is judged (read with
  // the facts, so a check-in costs no more round trips when none is due).
  let exitAll = facts.exitAll;
  if (facts.ticket !== undefined && dueMoment(exitAll, now.getTime()) !== null) {
    if (oneStatement) throw new NeedsTransaction();
    exitAll = await applyDueExitAll(db, facts.ticket.eid, now);
    facts = await checkInFacts(db, body.tid, lookupKey);
  }
  const { ticket, checkin, door, stored, attention, idCheck, handoutItems } = facts;
  // Occupancy is read only where an answer can use it: an explicit entry or exit at an event with a capacity.
  const occupancyMatters = body.action !== undefined && body.action !== 'annul' && door?.capacity != null && ticket?.eid === body.eid;
  const badge = body.staff_badge === undefined ? undefined : await badgeFact(db, body.staff_badge, body.eid, now);
  const decided = decideCheckIn({
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
    door,
    insideNow: occupancyMatters ? (door?.inside ?? 0) : undefined,
    rules: await rulesFacts(db, body, ticket, door?.rules_json ?? null),
    badge,
  });
  const receipted = keysDir === undefined ? decided : await withReceipt(db, decided, { credential, body, checkin, badge, keysDir, now });
  // docs/protocol.md "Handouts (project extension)": what was given is read only for a ticket with items.
  const handouts = ticket === undefined || handoutItems.length === 0 ? null : handoutsOf(handoutItems, await givenOf(db, ticket.tid));
  const decision = withHandouts(
    withIdCheck(withAttention(receipted, attention, ticket?.eid === body.eid), idCheck, ticket?.eid === body.eid),
    handouts,
    ticket?.eid === body.eid,
  );
  // Who at the door: the badge's sid when a valid badge came with the request, else the staff id the kiosk sent.
  const staffId = badge?.ok === true ? badge.sid : (body.staff_id ?? null);
  // docs/protocol.md "ID checks (project extension)": an entry of a type with a check says whether the ID was checked.
  const idCheckState = idCheck === null ? null : body.id_checked === true ? 'checked' : 'not_checked';
  // Every write of the check-in goes into one batch, sent at the end (store/write-batch.ts): one statement on PostgreSQL.
  let batch = new WriteBatch();
  const result = apply(batch, db.dialect, decision, credential, body, key!, now, { ticket, checkin, staffId, idCheck: idCheckState });
  // docs/issuer.md "Webhooks": a ticket let in offline that was already used, as the dashboard's alert counts it.
  if (
    decision.kind === 'answer' &&
    alertKindOf({ outcome: decision.outcome, at: now.toISOString(), scanned_at: body.scanned_at }) === 'offline_double_admission'
  ) {
    announceTo(
      batch,
      db.dialect,
      'double_admission.detected',
      body.eid,
      {
        eid: body.eid,
        tid: body.tid,
        scanned_at: body.scanned_at,
        scanner_id: credential.scannerId,
        gate_id: body.gate_id ?? credential.gateId,
        first_checked_in_at: checkin?.checked_in_at ?? null,
      },
      now.toISOString(),
    );
  }
  // An entry from before the last moment recorded (an offline kiosk's, synced late) ended at that moment.
  const entered = decision.kind === 'answer' && decision.effect?.kind === 'enter' ? decision.effect.at : null;
  if (entered !== null && exitAll?.done != null && Date.parse(entered) < Date.parse(exitAll.done)) {
    if (oneStatement) throw new NeedsTransaction();
    // The check-out reads the entry just made: the writes so far go first.
    await batch.run(db);
    batch = new WriteBatch();
    await checkOutAt(db, ticket!.eid, exitAll.done, now, ticket!.tid);
  }
  appendScanLogTo(batch, db.dialect, {
    at: now.toISOString(),
    scanned_at: body.scanned_at,
    tid: body.tid,
    eid: body.eid,
    scanner_id: credential.scannerId,
    api_key_id: credential.apiKeyId,
    gate_id: body.gate_id ?? credential.gateId,
    idempotency_key: key ?? null,
    outcome: decision.outcome,
    // The staff id goes into details, which the hash chain covers (docs/issuer.md "Audit: tamper-evident logs").
    details: JSON.stringify({
      check: decision.check,
      http_status: result.ok ? result.httpStatus : result.error.statusCode,
      ...(staffId === null ? {} : { staff_id: staffId }),
    }),
  });
  await batch.run(db);
  return result;
}

/**
 * An answer about a ticket of the scanner's event carries the ticket's attention flag and notes when any apply
 * (docs/protocol.md "Attention notes (project extension)"), an extra field spec scanners ignore; it is part of the
 * stored answer, so a replay sends the same bytes.
 */
function withAttention(decision: CheckInDecision, attention: Attention | null, ownEvent: boolean): CheckInDecision {
  if (attention === null || !ownEvent || decision.kind !== 'answer' || !('status' in decision.body)) return decision;
  return { ...decision, body: { ...decision.body, attention } };
}

/**
 * An answer about a ticket of the scanner's event whose type asks for an ID check carries `id_check` (docs/protocol.md
 * "ID checks (project extension)"), an extra field spec scanners ignore (they admit, and the entry is recorded
 * "ID not checked"); part of the stored answer, so a replay sends the same bytes.
 */
function withIdCheck(decision: CheckInDecision, idCheck: IdCheck | null, ownEvent: boolean): CheckInDecision {
  if (idCheck === null || !ownEvent || decision.kind !== 'answer' || !('status' in decision.body)) return decision;
  return { ...decision, body: { ...decision.body, id_check: idCheck } };
}

/**
 * An answer about a ticket of the scanner's event with items carries `handouts` (docs/protocol.md "Handouts (project
 * extension)"), with what was given, when and where; an extra field spec scanners ignore, part of the stored answer.
 */
function withHandouts(decision: CheckInDecision, handouts: Handout[] | null, ownEvent: boolean): CheckInDecision {
  if (handouts === null || !ownEvent || decision.kind !== 'answer' || !('status' in decision.body)) return decision;
  return { ...decision, body: { ...decision.body, handouts } };
}

/**
 * An accepted annulment's answer carries the issuer's signed receipt (docs/protocol.md "Annulment receipt"), an
 * extra field spec scanners ignore; it is part of the stored answer, so a replay sends the same bytes.
 */
async function withReceipt(
  db: Sql,
  decision: CheckInDecision,
  facts: {
    credential: ScannerCredential;
    body: CheckInBody;
    checkin: CheckinRow | undefined;
    badge: BadgeFact | undefined;
    keysDir: string;
    now: Date;
  },
): Promise<CheckInDecision> {
  if (decision.kind !== 'answer' || facts.body.action !== 'annul' || !('status' in decision.body)) return decision;
  if (decision.body.status !== 'annulled') return decision;
  const at = decision.effect?.kind === 'annul' ? decision.effect.at : facts.checkin?.state_at;
  if (at === undefined) return decision;
  const receipt = await signAnnulmentReceipt(
    db,
    facts.keysDir,
    {
      eid: facts.body.eid,
      tid: facts.body.tid,
      at,
      scannerId: facts.credential.scannerId,
      keyRole: facts.credential.role,
      staffId: facts.body.staff_id ?? null,
      badge: facts.badge,
    },
    facts.now,
  );
  return receipt === null ? decision : { ...decision, body: { ...decision.body, annulment_receipt: receipt } };
}

/**
 * A staff badge sent with a check-in, checked as a kiosk checks it (protocol/staff-badge.ts), against every
 * signing key this issuer has, and its own record of revocations (at once, not at the kiosks' next sync).
 */
async function badgeFact(db: Sql, code: string, eid: string, now: Date): Promise<BadgeFact> {
  let sid: string | null = null;
  try {
    sid = decodeStaffBadge(code).payload.sid;
  } catch {
    // checkStaffBadge says why.
  }
  const row = sid === null ? undefined : await findStaffBadge(db, sid);
  const keys = await db.all<PublicKey>("SELECT kid, 'Ed25519' AS alg, public_key, valid_from, valid_until FROM signing_keys");
  const checked = checkStaffBadge(code, {
    issuer: (await getIssuerInfo(db)).base_url,
    keys,
    nowMs: now.getTime(),
    eid,
    isRevoked: () => row?.revoked_at != null,
  });
  return checked.ok
    ? { ok: true, sid: checked.badge.sid, role: checked.badge.role }
    : { ok: false, check: checked.check, message: checked.message };
}

/**
 * The event's check-in rules (read with the facts), judged only for an explicit entry not admitted offline of a
 * ticket of the request's event (the check `rules`); the ticket's entries only when a rule limits entries per day.
 */
export async function rulesFacts(
  db: Sql,
  body: CheckInBody,
  ticket: TicketRow | undefined,
  rulesJson: string | null,
): Promise<CheckInFacts['rules']> {
  if (body.action !== 'entry' || body.admitted_offline === true || ticket === undefined || ticket.eid !== body.eid) return undefined;
  if (rulesJson === null) return undefined;
  const rules = storedRules(rulesJson);
  if (rules.rules.length === 0) return undefined;
  const limited = rules.rules.some((rule) => rule.max_entries_per_day !== undefined);
  return { rules, entryTimes: limited ? await countedEntryTimes(db, ticket.tid) : [] };
}

/** The decision's answer, its writes added to `batch`. */
function apply(
  batch: WriteBatch,
  dialect: Dialect,
  decision: CheckInDecision,
  credential: ScannerCredential,
  body: CheckInBody,
  key: string,
  now: Date,
  facts: {
    ticket: TicketRow | undefined;
    checkin: CheckinRow | undefined;
    staffId: string | null;
    idCheck: 'checked' | 'not_checked' | null;
  },
): CheckInResult {
  switch (decision.kind) {
    case 'refuse':
      return { ok: false, error: decision.error };
    case 'replay':
      return { ok: true, httpStatus: decision.httpStatus, responseBody: decision.responseBody };
    case 'answer': {
      const responseBody = serialise(decision.body);
      if (decision.effect) {
        addEffectTo(batch, dialect, decision.effect, {
          ticket: facts.ticket!,
          checkin: facts.checkin,
          scan: {
            scanner_id: credential.scannerId,
            gate_id: body.gate_id ?? credential.gateId,
            api_key_id: credential.apiKeyId,
            idempotency_key: key,
            recorded_at: now.toISOString(),
          },
          actor: `scanner:${credential.scannerId}`,
          // An entry's reason is a manual entry's (docs/protocol.md "Ticket search"); an annulment's its own.
          reason: body.reason ?? body.manual_reason ?? null,
          admittedOffline: body.admitted_offline === true,
          staffId: facts.staffId,
          idCheck: facts.idCheck,
        });
      }
      batch.add(
        insertStoredAnswerWrite({
          idempotency_key: key,
          request_hash: requestHash(body, key),
          http_status: decision.httpStatus,
          response_body: responseBody,
          api_key_id: credential.apiKeyId,
          created_at: now.toISOString(),
        }),
      );
      return { ok: true, httpStatus: decision.httpStatus, responseBody };
    }
  }
}

/** Who made a change and where: a scan's request, or an administrator (CLI, dashboard) with no scanner. */
export interface EffectContext {
  ticket: TicketRow;
  checkin: CheckinRow | undefined;
  scan: {
    scanner_id: string | null;
    gate_id: string | null;
    api_key_id: string | null;
    idempotency_key: string | null;
    recorded_at: string;
  };
  actor: string;
  reason: string | null;
  admittedOffline: boolean;
  /** Who at the door (docs/issuer.md "Staff roles and badges"); null for the CLI and dashboard. */
  staffId: string | null;
  /** An entry of a type with an ID check: whether the steward checked it (docs/protocol.md "ID checks (project extension)"). */
  idCheck?: 'checked' | 'not_checked' | null;
}

/**
 * Writes what an accepted scan changes, in the job's transaction: the ticket's state (from the version the
 * decision read; a concurrent change makes the job run again), its history and the occupancy counters
 * (docs/protocol.md "One state per ticket", "Occupancy").
 */
export async function applyEffect(db: Sql, effect: AdmissionEffect, context: EffectContext): Promise<void> {
  const batch = new WriteBatch();
  addEffectTo(batch, db.dialect, effect, context);
  await batch.run(db);
}

/** applyEffect's writes, added to the change's batch (store/write-batch.ts). */
function addEffectTo(batch: WriteBatch, dialect: Dialect, effect: AdmissionEffect, context: EffectContext): void {
  const { ticket, checkin, scan } = context;
  const shard = Math.floor(Math.random() * OCCUPANCY_SHARDS);
  const scanGate = scan.gate_id;
  const action = effect.kind === 'history' ? effect.action : effect.kind === 'enter' || effect.kind === 'observed' ? 'entry' : effect.kind;
  // docs/protocol.md "Party tickets (project extension)": a party's entry or exit counts its people everywhere.
  const people = (effect.kind === 'enter' || effect.kind === 'exit') && effect.party !== undefined ? effect.party.people : 1;
  const occupancy = (changes: [string | null, { inside?: number; entries?: number; exits?: number }][]) => {
    for (const write of occupancyWrites(ticket.eid, changes, shard)) batch.add(write);
  };
  switch (effect.kind) {
    case 'enter':
      if (effect.fromVersion === null) {
        batch.add(
          insertCheckinWrite({
            tid: ticket.tid,
            checked_in_at: effect.at,
            scanner_id: scan.scanner_id!,
            gate_id: scanGate,
            api_key_id: scan.api_key_id!,
            idempotency_key: scan.idempotency_key!,
            recorded_at: scan.recorded_at,
            state: 'inside',
            state_at: effect.at,
            first_checked_in_at: effect.at,
            entries: 1,
            version: 0,
            party_inside: effect.party?.after.inside ?? null,
            party_admitted: effect.party?.after.admitted ?? null,
          }),
        );
      } else {
        batch.add(
          changeAdmissionWrite(
            ticket.tid,
            effect.fromVersion,
            {
              state: 'inside',
              at: effect.at,
              scanner_id: scan.scanner_id!,
              gate_id: scanGate,
              api_key_id: scan.api_key_id!,
              idempotency_key: scan.idempotency_key!,
              recorded_at: scan.recorded_at,
            },
            effect.party?.after,
          ),
        );
      }
      occupancy([[scanGate, { inside: people, entries: people }]]);
      break;
    case 'exit':
      // A party with people still inside stays inside (its state dates from this exit); the last out makes it outside.
      batch.add(
        changeAdmissionWrite(
          ticket.tid,
          effect.fromVersion,
          effect.party !== undefined && effect.party.after.inside > 0
            ? { state: 'inside', at: effect.at, touchOnly: true }
            : { state: 'outside', at: effect.at },
          effect.party?.after,
        ),
      );
      // Inside is counted at the gate of entry, exits at the gate scanned at.
      occupancy([
        [checkin!.gate_id, { inside: -people }],
        [scanGate, { exits: people }],
      ]);
      break;
    case 'annul': {
      // The undone entries no longer count, nor do the people inside (a party's: all of them).
      const counts = effect.counts ?? { inside: effect.wasInside ? 1 : 0, admitted: 1 };
      const party = checkin?.party_inside != null ? { inside: 0, admitted: 0 } : undefined;
      batch.add(changeAdmissionWrite(ticket.tid, effect.fromVersion, { state: 'annulled', at: effect.at }, party));
      occupancy([[checkin!.gate_id, { inside: -counts.inside, entries: -counts.admitted }]]);
      break;
    }
    case 'observed':
      batch.add(changeAdmissionWrite(ticket.tid, effect.fromVersion, { state: 'inside', at: effect.at, touchOnly: true }));
      occupancy([[scanGate, { entries: 1 }]]);
      break;
    case 'history':
      occupancy([[scanGate, effect.action === 'entry' ? { entries: 1 } : { exits: 1 }]]);
      break;
  }
  batch.add(
    admissionEventWrite({
      tid: ticket.tid,
      eid: ticket.eid,
      action,
      at: effect.at,
      gate_id: scanGate,
      scanner_id: scan.scanner_id,
      api_key_id: scan.api_key_id,
      idempotency_key: scan.idempotency_key,
      actor: context.actor,
      reason: context.reason,
      late: effect.kind === 'history' ? 1 : 0,
      admitted_offline: context.admittedOffline ? 1 : 0,
      ticket_type: ticket.ticket_type,
      recorded_at: scan.recorded_at,
      staff_id: context.staffId,
      id_check: action === 'entry' ? (context.idCheck ?? null) : null,
      people: people === 1 ? null : people,
    }),
  );
  announceEffectTo(batch, dialect, effect, context);
}

/** docs/issuer.md "Webhooks": an entry, exit or annulment, told in its own transaction; late history is not news. */
function announceEffectTo(batch: WriteBatch, dialect: Dialect, effect: AdmissionEffect, context: EffectContext): void {
  if (effect.kind !== 'enter' && effect.kind !== 'exit' && effect.kind !== 'annul') return;
  const { ticket, scan } = context;
  const data: Record<string, unknown> = {
    eid: ticket.eid,
    tid: ticket.tid,
    ticket_type: ticket.ticket_type,
    at: effect.at,
    gate_id: scan.gate_id,
    scanner_id: scan.scanner_id,
    staff_id: context.staffId,
    actor: context.actor,
  };
  if (effect.kind === 'enter') {
    announceTo(
      batch,
      dialect,
      'checkin.created',
      ticket.eid,
      // docs/issuer.md "Webhooks": whether the holder's ID was checked (never the date of birth).
      { ...data, reentry: effect.fromVersion !== null, admitted_offline: context.admittedOffline, id_check: context.idCheck ?? null },
      scan.recorded_at,
    );
  } else if (effect.kind === 'exit') {
    announceTo(batch, dialect, 'checkin.exited', ticket.eid, data, scan.recorded_at);
  } else {
    announceTo(batch, dialect, 'checkin.annulled', ticket.eid, { ...data, reason: context.reason }, scan.recorded_at);
  }
}

function serialise(body: DoorCheckInResponse | ErrorEnvelope): string {
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

export const appendScanLogWrite = namedJob('append-scan-log', (db, row: ScanLogRow) => appendScanLog(db, row));

/** Drops the stored answers older than `before` (ISO time); the server runs it hourly. */
export const pruneStoredAnswersWrite = namedJob('prune-stored-answers', (db, before: string) => pruneStoredAnswers(db, before));

/** Stored answers are kept at least 7 days (docs/protocol.md "Precedence"); older ones are dropped. */
export const IDEMPOTENCY_RETENTION_MS = 7 * 24 * 3600_000;
