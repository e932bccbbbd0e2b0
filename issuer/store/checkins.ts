/** Check-ins, stored idempotent answers and the scan audit log. */
import type { Sql } from './sql.js';
import { attentionOf, type Attention } from '../../protocol/attention.js';
import { idCheckOf, parseIdCheck, type IdCheck } from '../../protocol/id-check.js';
import { mergeHandouts, type HandoutItem } from '../../protocol/handouts.js';
import { parseItems } from './handouts.js';
import type { EntryPolicy } from '../../protocol/door.js';
import type { Dialect, Sql as SqlPort } from './sql.js';
import { WriteBatch, type Write } from './write-batch.js';
import type { TicketRow } from './tickets.js';
import { appendChained, unsealedScanLogWrite } from './audit-log.js';
import type { ExitAllSetting } from '../../protocol/exit-all.js';
import type { AdmissionEventEntry, AdmissionEventRow, ScanLogEntry, ScanLogRow } from './log-rows.js';

export interface CheckinRow {
  tid: string;
  checked_in_at: string;
  scanner_id: string;
  gate_id: string | null;
  api_key_id: string;
  idempotency_key: string;
  recorded_at: string;
  /** docs/protocol.md "Door operations": the ticket's current admission. checked_in_at/gate_id: its latest entry. */
  state: AdmissionState;
  /** When the state last changed at the door (the scan's time). */
  state_at: string;
  /** The first entry since the last annulment. */
  first_checked_in_at: string;
  entries: number;
  /** Bumped by every change: writers change a row only at the version they read (changeAdmission). */
  version: number;
  /**
   * docs/protocol.md "Party tickets (project extension)": people inside now and admitted since the last annulment;
   * null on a row written for one person (protocol/party.ts countsOf reads it as one).
   */
  party_inside?: number | null;
  party_admitted?: number | null;
}

export type AdmissionState = 'inside' | 'outside' | 'annulled';

export interface StoredAnswer {
  idempotency_key: string;
  request_hash: string;
  http_status: number;
  response_body: string;
  api_key_id: string;
  created_at: string;
}

export function findCheckin(db: Sql, tid: string): Promise<CheckinRow | undefined> {
  return db.get<CheckinRow>('SELECT * FROM checkins WHERE tid = ?', [tid]);
}

/**
 * Inserts the first check-in. The primary key on tid is what guarantees one
 * valid per ticket, ever: a second insert fails instead of silently winning.
 */
export async function insertCheckin(db: Sql, row: CheckinRow): Promise<void> {
  await runWrite(db, insertCheckinWrite(row));
}

export function insertCheckinWrite(row: CheckinRow): Write {
  return {
    sql: `INSERT INTO checkins (tid, checked_in_at, scanner_id, gate_id, api_key_id, idempotency_key, recorded_at,
                           state, state_at, first_checked_in_at, entries, version, party_inside, party_admitted)
     VALUES (@tid, @checked_in_at, @scanner_id, @gate_id, @api_key_id, @idempotency_key, @recorded_at,
             @state, @state_at, @first_checked_in_at, @entries, @version, @party_inside, @party_admitted)`,
    params: { ...row, party_inside: row.party_inside ?? null, party_admitted: row.party_admitted ?? null },
  };
}

/** Runs one write on its own (write-batch.ts), in the caller's transaction. */
async function runWrite(db: Sql, write: Write): Promise<void> {
  const batch = new WriteBatch();
  batch.add(write);
  await batch.run(db);
}

export function findStoredAnswer(db: Sql, idempotencyKey: string): Promise<StoredAnswer | undefined> {
  return db.get<StoredAnswer>('SELECT * FROM idempotency WHERE idempotency_key = ?', [idempotencyKey]);
}

/** The stored answer's row; its primary key makes a second first answer under one key fail (the job runs again and replays). */
export function insertStoredAnswerWrite(row: StoredAnswer): Write {
  return {
    sql: `INSERT INTO idempotency (idempotency_key, request_hash, http_status, response_body, api_key_id, created_at)
     VALUES (@idempotency_key, @request_hash, @http_status, @response_body, @api_key_id, @created_at)`,
    params: { ...row },
  };
}

/** Drops stored answers older than `before` (docs/protocol.md "Precedence": kept at least 7 days). */
export async function pruneStoredAnswers(db: Sql, before: string): Promise<number> {
  return (await db.run('DELETE FROM idempotency WHERE created_at < ?', [before])).changes;
}

/**
 * Appends one row at the end of the hash chain (store/audit-log.ts; docs/issuer.md "Audit: tamper-evident
 * logs"). On PostgreSQL it takes the chain head's row lock, held until the commit: call it as the LAST
 * statement of a write job, so concurrent appends wait on each other as briefly as possible.
 */
export async function appendScanLog(db: Sql, row: ScanLogRow): Promise<void> {
  await appendChained(db, [row]);
}

/**
 * appendScanLog, as the last write of a batch: on PostgreSQL the row goes in unsealed (audit-log.ts) as one more
 * write of the batch's statement; on SQLite it is chained in place, reading the head, as a step of its own.
 */
export function appendScanLogTo(batch: WriteBatch, dialect: Dialect, row: ScanLogRow): void {
  if (dialect === 'postgres') batch.add(unsealedScanLogWrite(row));
  else batch.addStep((tx) => appendScanLog(tx, row));
}

export function scanLogForEvent(db: Sql, eid: string): Promise<ScanLogEntry[]> {
  return db.all<ScanLogEntry>('SELECT * FROM scan_log WHERE eid = ? ORDER BY id', [eid]);
}

export function scanLogByOutcome(db: Sql, outcome: string): Promise<ScanLogEntry[]> {
  return db.all<ScanLogEntry>('SELECT * FROM scan_log WHERE outcome = ? ORDER BY id', [outcome]);
}

/** What a check-in is decided from: the ticket, its check-in and the answer stored under the idempotency key. */
export interface CheckInFacts {
  ticket: TicketRow | undefined;
  checkin: CheckinRow | undefined;
  /**
   * The ticket's event's door settings (docs/protocol.md "Door operations"), when the ticket is known: with
   * the tickets inside now where the event has a capacity (else null), and its check-in rules as stored
   * (JSON, docs/protocol.md "Check-in rules"; null when none are set), so no check-in reads them apart.
   */
  door: { entry_policy: EntryPolicy; capacity: number | null; inside: number | null; rules_json: string | null } | undefined;
  /** With the scanner of the key that stored it: a replay is honoured for any key of that scanner. */
  stored: (StoredAnswer & { scanner_id: string }) | undefined;
  /** What the ticket's answer carries (docs/protocol.md "Attention notes (project extension)"); null: nothing. */
  attention: Attention | null;
  /** What the ticket's answer carries when its type asks for an ID check (docs/protocol.md "ID checks (project extension)"). */
  idCheck: IdCheck | null;
  /** The ticket's items, its type's merged with its own (docs/protocol.md "Handouts (project extension)"); []: none. */
  handoutItems: HandoutItem[];
  /** The ticket's event's check-out at a set time (docs/protocol.md "Check-out at a set time"), if it has one. */
  exitAll: (ExitAllSetting & { eid: string; done: string | null }) | undefined;
}

/**
 * The facts in one statement: one round trip on PostgreSQL instead of five (docs/benchmarks.md
 * "PostgreSQL": round trips bound a check-in's time on a real cluster). `idempotencyKey` null: none to look up.
 */
export async function checkInFacts(db: Sql, tid: string, idempotencyKey: string | null): Promise<CheckInFacts> {
  const row = await db.get<FactsRow>(CHECK_IN_FACTS, { tid, key: idempotencyKey });
  if (row === undefined)
    return {
      ticket: undefined,
      checkin: undefined,
      door: undefined,
      stored: undefined,
      attention: null,
      idCheck: null,
      handoutItems: [],
      exitAll: undefined,
    };
  return {
    ticket:
      row.t_tid === null
        ? undefined
        : {
            tid: row.t_tid,
            eid: row.t_eid!,
            kid: row.t_kid!,
            holder_name: row.t_holder_name,
            ticket_type: row.t_ticket_type,
            issued_at: row.t_issued_at!,
            exp: row.t_exp!,
            qr: row.t_qr!,
            revoked_at: row.t_revoked_at,
            revoke_reason: row.t_revoke_reason,
            attention: Number(row.t_attention ?? 0),
            note: row.t_note,
            party: row.t_party === null ? null : Number(row.t_party),
          },
    attention:
      row.t_tid === null
        ? null
        : attentionOf(row.n_attention === null ? null : { attention: Number(row.n_attention) === 1, note: row.n_note }, {
            attention: Number(row.t_attention ?? 0) === 1,
            note: row.t_note,
          }),
    idCheck:
      row.t_tid === null || row.ic_id_check === null
        ? null
        : idCheckOf(parseIdCheck(row.ic_id_check), { holder_name: row.t_holder_name, dob: row.t_dob }, row.e_date ?? ''),
    handoutItems: row.t_tid === null ? [] : mergeHandouts(parseItems(row.h_items), parseItems(row.t_handouts)),
    checkin:
      row.c_tid === null
        ? undefined
        : {
            tid: row.c_tid,
            checked_in_at: row.c_checked_in_at!,
            scanner_id: row.c_scanner_id!,
            gate_id: row.c_gate_id,
            api_key_id: row.c_api_key_id!,
            idempotency_key: row.c_idempotency_key!,
            recorded_at: row.c_recorded_at!,
            state: row.c_state as AdmissionState,
            state_at: row.c_state_at!,
            first_checked_in_at: row.c_first_checked_in_at!,
            entries: row.c_entries!,
            version: row.c_version!,
            party_inside: row.c_party_inside === null ? null : Number(row.c_party_inside),
            party_admitted: row.c_party_admitted === null ? null : Number(row.c_party_admitted),
          },
    door:
      row.e_entry_policy === null
        ? undefined
        : {
            entry_policy: row.e_entry_policy as EntryPolicy,
            capacity: row.e_capacity,
            // SUM is a bigint on PostgreSQL, which arrives as a string.
            inside: row.e_inside === null ? null : Number(row.e_inside),
            rules_json: row.r_rules,
          },
    // As before, an answer whose scanner key is gone is no answer (the join to api_keys decides).
    stored:
      row.i_idempotency_key === null || row.i_scanner_id === null
        ? undefined
        : {
            idempotency_key: row.i_idempotency_key,
            request_hash: row.i_request_hash!,
            http_status: row.i_http_status!,
            response_body: row.i_response_body!,
            api_key_id: row.i_api_key_id!,
            created_at: row.i_created_at!,
            scanner_id: row.i_scanner_id,
          },
    exitAll:
      row.x_at === null ? undefined : { eid: row.t_eid!, at: row.x_at, time_zone: row.x_time_zone!, since: row.x_since!, done: row.x_done },
  };
}

type Nullable<T> = { [K in keyof T]: T[K] | null };
type FactsRow = Nullable<{
  t_tid: string;
  t_eid: string;
  t_kid: string;
  t_holder_name: string;
  t_ticket_type: string;
  t_issued_at: string;
  t_exp: number;
  t_qr: string;
  t_revoked_at: string;
  t_revoke_reason: string;
  t_attention: number;
  t_note: string;
  n_attention: number;
  n_note: string;
  c_tid: string;
  c_checked_in_at: string;
  c_scanner_id: string;
  c_gate_id: string;
  c_api_key_id: string;
  c_idempotency_key: string;
  c_recorded_at: string;
  c_state: string;
  c_state_at: string;
  c_first_checked_in_at: string;
  c_entries: number;
  c_version: number;
  e_entry_policy: string;
  e_capacity: number;
  e_inside: number | string;
  r_rules: string;
  i_idempotency_key: string;
  i_request_hash: string;
  i_http_status: number;
  i_response_body: string;
  i_api_key_id: string;
  i_created_at: string;
  i_scanner_id: string;
  x_at: string;
  x_time_zone: string;
  x_since: string;
  x_done: string;
  t_dob: string;
  ic_id_check: string;
  e_date: string;
  t_party: number;
  c_party_inside: number;
  c_party_admitted: number;
  t_handouts: string;
  h_items: string;
}>;

// One row always: the looked-for values as a one-row table, each fact LEFT JOINed to it by its primary key.
const CHECK_IN_FACTS = `
  SELECT t.tid AS t_tid, t.eid AS t_eid, t.kid AS t_kid, t.holder_name AS t_holder_name, t.ticket_type AS t_ticket_type,
         t.issued_at AS t_issued_at, t.exp AS t_exp, t.qr AS t_qr, t.revoked_at AS t_revoked_at, t.revoke_reason AS t_revoke_reason,
         t.attention AS t_attention, t.note AS t_note, n.attention AS n_attention, n.note AS n_note,
         c.tid AS c_tid, c.checked_in_at AS c_checked_in_at, c.scanner_id AS c_scanner_id, c.gate_id AS c_gate_id,
         c.api_key_id AS c_api_key_id, c.idempotency_key AS c_idempotency_key, c.recorded_at AS c_recorded_at,
         c.state AS c_state, c.state_at AS c_state_at, c.first_checked_in_at AS c_first_checked_in_at, c.entries AS c_entries,
         c.version AS c_version, e.entry_policy AS e_entry_policy, e.capacity AS e_capacity,
         CASE WHEN e.capacity IS NOT NULL THEN (SELECT COALESCE(SUM(o.inside), 0) FROM occupancy o WHERE o.eid = e.eid) END AS e_inside,
         r.rules AS r_rules,
         i.idempotency_key AS i_idempotency_key, i.request_hash AS i_request_hash, i.http_status AS i_http_status,
         i.response_body AS i_response_body, i.api_key_id AS i_api_key_id, i.created_at AS i_created_at, k.scanner_id AS i_scanner_id,
         x.at AS x_at, x.time_zone AS x_time_zone, x.since AS x_since, x.done AS x_done,
         t.dob AS t_dob, ic.id_check AS ic_id_check, e.date AS e_date,
         t.party AS t_party, c.party_inside AS c_party_inside, c.party_admitted AS c_party_admitted,
         t.handouts AS t_handouts, h.items AS h_items
  FROM (SELECT CAST(@tid AS TEXT) AS tid, CAST(@key AS TEXT) AS idempotency_key) AS q
  LEFT JOIN tickets t ON t.tid = q.tid
  LEFT JOIN checkins c ON c.tid = q.tid
  LEFT JOIN events e ON e.eid = t.eid
  LEFT JOIN check_in_rules r ON r.eid = t.eid
  LEFT JOIN ticket_type_notes n ON n.eid = t.eid AND n.ticket_type = t.ticket_type
  LEFT JOIN idempotency i ON i.idempotency_key = q.idempotency_key
  LEFT JOIN api_keys k ON k.api_key_id = i.api_key_id
  LEFT JOIN exit_all_settings x ON x.eid = t.eid
  LEFT JOIN ticket_type_id_checks ic ON ic.eid = t.eid AND ic.ticket_type = t.ticket_type
  LEFT JOIN ticket_type_handouts h ON h.eid = t.eid AND h.ticket_type = t.ticket_type`;

/** The columns of a state change; the row's other columns stay. */
export type AdmissionChange =
  | {
      state: 'inside';
      at: string;
      scanner_id: string;
      gate_id: string | null;
      api_key_id: string;
      idempotency_key: string;
      recorded_at: string;
    }
  | { state: 'outside' | 'annulled'; at: string }
  /** Still inside, since `at` (an entry admitted offline while the issuer had the ticket inside). */
  | { state: 'inside'; at: string; touchOnly: true };

/**
 * Changes a ticket's admission state, but only from the version the caller read: of two writers racing on
 * one ticket, one changes it and the other gets WriteConflict and runs its job again on the new state
 * (docs/protocol.md "One state per ticket, exact under concurrency").
 */
export async function changeAdmission(db: SqlPort, tid: string, readVersion: number, change: AdmissionChange): Promise<void> {
  await runWrite(db, changeAdmissionWrite(tid, readVersion, change));
}

/**
 * changeAdmission's write. `party`: a party ticket's counts (docs/protocol.md "Party tickets (project
 * extension)"), set in the same compare-and-set: that change, made at the version read, is what makes two doors
 * admitting parts of one party at once exact (the second runs its job again on the new counts).
 */
export function changeAdmissionWrite(
  tid: string,
  readVersion: number,
  change: AdmissionChange,
  party?: { inside: number; admitted: number },
): Write {
  const counts = party === undefined ? '' : ', party_inside = @party_inside, party_admitted = @party_admitted';
  const partyParams: Record<string, number> = party === undefined ? {} : { party_inside: party.inside, party_admitted: party.admitted };
  const where = 'WHERE tid = @tid AND version = @version';
  const expectOne = `the admission of ticket ${tid}`;
  if ('touchOnly' in change) {
    return {
      sql: `UPDATE checkins SET state_at = @at, version = version + 1${counts} ${where}`,
      params: { at: change.at, tid, version: readVersion, ...partyParams },
      expectOne,
    };
  }
  if (change.state === 'inside') {
    return {
      sql: `UPDATE checkins SET state = 'inside', state_at = @at, checked_in_at = @at, scanner_id = @scanner_id, gate_id = @gate_id,
             api_key_id = @api_key_id, idempotency_key = @idempotency_key, recorded_at = @recorded_at, entries = entries + 1,
             first_checked_in_at = CASE WHEN state = 'annulled' THEN @at ELSE first_checked_in_at END, version = version + 1${counts}
           ${where}`,
      params: { ...change, tid, version: readVersion, ...partyParams },
      expectOne,
    };
  }
  return {
    sql: `UPDATE checkins SET state = @state, state_at = @at, version = version + 1${counts} ${where}`,
    params: { state: change.state, at: change.at, tid, version: readVersion, ...partyParams },
    expectOne,
  };
}

export async function appendAdmissionEvent(db: SqlPort, row: AdmissionEventRow): Promise<void> {
  await runWrite(db, admissionEventWrite(row));
}

export function admissionEventWrite(row: AdmissionEventRow): Write {
  return {
    sql: `INSERT INTO admission_events (tid, eid, action, at, gate_id, scanner_id, api_key_id, idempotency_key, actor, reason, late,
                                   admitted_offline, ticket_type, recorded_at, staff_id, id_check, people)
     VALUES (@tid, @eid, @action, @at, @gate_id, @scanner_id, @api_key_id, @idempotency_key, @actor, @reason, @late,
             @admitted_offline, @ticket_type, @recorded_at, @staff_id, @id_check, @people)`,
    params: { ...row, id_check: row.id_check ?? null, people: row.people ?? null },
  };
}

export function admissionEventsOfTicket(db: SqlPort, tid: string): Promise<AdmissionEventEntry[]> {
  return db.all('SELECT * FROM admission_events WHERE tid = ? ORDER BY id', [tid]);
}

export function admissionEventsOfEvent(db: SqlPort, eid: string): Promise<AdmissionEventEntry[]> {
  return db.all('SELECT * FROM admission_events WHERE eid = ? ORDER BY id', [eid]);
}

/** Counter rows per gate: the shards spread concurrent writers on PostgreSQL over several rows. */
export const OCCUPANCY_SHARDS = 32;

/**
 * Adds to an event's occupancy counters at one gate (docs/protocol.md "Occupancy"), in the caller's
 * transaction. `shard` picks the counter row; any value in [0, OCCUPANCY_SHARDS) is right.
 */
export async function addOccupancy(
  db: SqlPort,
  eid: string,
  gateId: string | null,
  delta: { inside?: number; entries?: number; exits?: number },
  shard: number,
): Promise<void> {
  await runWrite(db, addOccupancyWrite(eid, gateId, delta, shard));
}

/** addOccupancy's write. Two of one batch must not name the same gate and shard: one statement changes a row once. */
export function addOccupancyWrite(
  eid: string,
  gateId: string | null,
  delta: { inside?: number; entries?: number; exits?: number },
  shard: number,
): Write {
  return {
    sql: `INSERT INTO occupancy (eid, gate_id, shard, inside, entries, exits) VALUES (@eid, @gate, @shard, @inside, @entries, @exits)
     ON CONFLICT (eid, gate_id, shard) DO UPDATE SET inside = occupancy.inside + excluded.inside,
       entries = occupancy.entries + excluded.entries, exits = occupancy.exits + excluded.exits`,
    params: { eid, gate: gateId ?? '', shard, inside: delta.inside ?? 0, entries: delta.entries ?? 0, exits: delta.exits ?? 0 },
  };
}

/**
 * The occupancy writes of one change: its deltas by gate, two at the same gate added up, since one statement
 * (write-batch.ts) may change a counter row only once.
 */
export function occupancyWrites(
  eid: string,
  changes: readonly [string | null, { inside?: number; entries?: number; exits?: number }][],
  shard: number,
): Write[] {
  // Keyed as the row is: a null gate is stored as ''.
  const byGate = new Map<string, { inside: number; entries: number; exits: number }>();
  for (const [gate, delta] of changes) {
    const sum = byGate.get(gate ?? '') ?? { inside: 0, entries: 0, exits: 0 };
    byGate.set(gate ?? '', {
      inside: sum.inside + (delta.inside ?? 0),
      entries: sum.entries + (delta.entries ?? 0),
      exits: sum.exits + (delta.exits ?? 0),
    });
  }
  return [...byGate].map(([gate, delta]) => addOccupancyWrite(eid, gate, delta, shard));
}

export interface GateOccupancy {
  /** null: scans without a gate. */
  gate_id: string | null;
  /** Inside now, counted at the gate of entry. */
  inside: number;
  /** Entries and exits scanned at this gate. */
  entries: number;
  exits: number;
}

/** Inside now, in total. */
export async function insideNow(db: SqlPort, eid: string): Promise<number> {
  const row = await db.get<{ inside: number | null }>('SELECT SUM(inside) AS inside FROM occupancy WHERE eid = ?', [eid]);
  return Number(row?.inside ?? 0);
}
