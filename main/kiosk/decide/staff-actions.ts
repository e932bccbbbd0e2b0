/**
 * Which staff records of the kiosk's audit log go to the issuer, and in what form (docs/kiosk.md "The kiosk's
 * audit log", docs/protocol.md "Scanner heartbeat"). Pure: sync/heartbeat.ts reads the records and keeps the
 * acknowledgement; this decides where to start, what each record may carry, and what an answer acknowledges.
 *
 * A record carries only the wire's fields (protocol/staff-actions.ts), taken one by one from its detail: nothing
 * else of the detail travels, so neither would a PIN, a code or a key that a record wrongly held. A text the
 * issuer's rules would refuse (a name with a control character, too long) travels as null instead, so one odd
 * record can never make every later heartbeat a 400.
 */
import { KIOSK_ROLES, STAFF_ROLES } from '../../../protocol/access.js';
import { isIsoDateTime } from '../../../protocol/fields.js';
import {
  KIOSK_CALLS,
  STAFF_ACTION_EVENTS,
  STAFF_VIAS,
  staffActionProblem,
  type StaffActionReport,
} from '../../../protocol/staff-actions.js';

/** The record up to which the issuer has stored the staff records: its position and hash. */
export interface StaffAck {
  position: number;
  hash: string;
}

/** A staff record of the audit log: its position, hash, time and detail (JSON). */
export interface StaffRecord {
  position: number;
  hash: string;
  at: string;
  detail: string;
}

/**
 * The position after which to read: the acknowledged one, unless the log holds another record there (or none):
 * then this is a new log (a kiosk.db recovered from a damaged file starts at 1), sent from its start.
 */
export function sendAfter(ack: StaffAck | null, hashAtAckPosition: string | null): number {
  if (ack === null || hashAtAckPosition !== ack.hash) return 0;
  return ack.position;
}

const oneOf = <T extends string>(list: readonly T[], value: unknown): T | undefined =>
  typeof value === 'string' && (list as readonly string[]).includes(value) ? (value as T) : undefined;

/** The record in the wire's form, or null when it is not one the issuer knows (an unknown event, no role). */
export function staffActionOf(record: StaffRecord): StaffActionReport | null {
  let detail: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(record.detail);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    detail = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  // A manual check-in's record names itself `action` (ticket-search.ts); every other staff record, `event`.
  const event = oneOf(STAFF_ACTION_EVENTS, detail.event ?? detail.action);
  const role = oneOf(KIOSK_ROLES, detail.role);
  if (event === undefined || role === undefined || !isIsoDateTime(record.at)) return null;
  const report: StaffActionReport = {
    position: record.position,
    hash: record.hash,
    at: record.at,
    event,
    staff_id: typeof detail.staff_id === 'string' ? detail.staff_id : null,
    name: typeof detail.name === 'string' ? detail.name : null,
    role,
    via: oneOf(STAFF_VIAS, detail.via) ?? null,
  };
  const call = oneOf(KIOSK_CALLS, detail.call);
  if (call !== undefined) report.call = call;
  const needs = oneOf(STAFF_ROLES, detail.needs);
  if (needs !== undefined) report.needs = needs;
  if (typeof detail.tid === 'string') report.tid = detail.tid;
  // What the issuer would refuse travels without it: a name or ticket as null/absent, a staff id as null.
  for (let problem = staffActionProblem(report, 0); problem !== null; problem = staffActionProblem(report, 0)) {
    const field = problem.field.slice('staff_actions.0.'.length);
    if (field === 'name' || field === 'staff_id') report[field] = null;
    else if (field === 'tid') delete report.tid;
    else return null;
  }
  return report;
}

/** What to send of `records` (oldest first): the records in the wire's form, and the last record looked at. */
export function staffActionsToSend(records: readonly StaffRecord[]): { reports: StaffActionReport[]; last: StaffAck | null } {
  const reports = records.map(staffActionOf).filter((report): report is StaffActionReport => report !== null);
  const last = records.at(-1);
  return { reports, last: last === undefined ? null : { position: last.position, hash: last.hash } };
}

/**
 * What an answer acknowledges: the last record looked at once the issuer stored every record sent (its
 * `staff_actions_through` reaches the highest sent), else nothing new. Records sent to an older issuer (no
 * `staff_actions_through`) are sent again next time. Nothing to send (every record looked at was skipped): the last.
 */
export function acknowledged(sent: readonly StaffActionReport[], last: StaffAck | null, through: number | undefined): StaffAck | null {
  if (last === null) return null;
  if (sent.length === 0) return last;
  const highest = Math.max(...sent.map((report) => report.position));
  return through !== undefined && through >= highest ? last : null;
}
