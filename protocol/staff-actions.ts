/**
 * The kiosk's staff records on the wire (docs/protocol.md "Scanner heartbeat"): the heartbeat's optional
 * `staff_actions`, each one staff record of the kiosk's chained audit log (docs/kiosk.md "The kiosk's audit
 * log") with its position and hash, and the answer's `staff_actions_through`, the highest position the issuer
 * stored. One shape and one rule for both sides: the kiosk makes each record fit it before sending
 * (main/kiosk/decide/staff-actions.ts), and the issuer refuses a heartbeat with a record that does not
 * (issuer/routes/heartbeat.ts), naming the field. Pure.
 *
 * Only these fields travel: who (staff id, name, role, how they unlocked), what (the record's event, the
 * staff call, the role it needed) and the ticket. Never a PIN, a scanned code, a badge's code or a key.
 */
import { ACCESS, KIOSK_ROLES, STAFF_ROLES, type KioskCall, type KioskRole, type StaffRole } from './access.js';
import { isIsoDateTime } from './fields.js';
import { labelCharacterProblem } from './labels.js';

/** The staff records the kiosk writes (main/kiosk/staff-access.ts, attention-door.ts, ticket-search.ts). */
export const STAFF_ACTION_EVENTS = [
  'unlocked',
  'locked',
  'staff_action',
  'staff_refused',
  'wrong_pin',
  'pin_set',
  'pin_removed',
  'badge_refused',
  'attention_override',
  'manual_check_in',
] as const;
export type StaffActionEvent = (typeof STAFF_ACTION_EVENTS)[number];

/** How the person unlocked (docs/kiosk.md "Staff PIN", "Staff badges"). */
export const STAFF_VIAS = ['kiosk_pin', 'pin', 'badge'] as const;
export type StaffVia = (typeof STAFF_VIAS)[number];

/** At most this many records per heartbeat: the rest go with the next one. */
export const MAX_STAFF_ACTIONS_PER_HEARTBEAT = 200;

/** The lengths a record's texts may have (the kiosk's staff ids and names are 1-80 characters; tids are UUIDs). */
export const STAFF_ACTION_LIMITS = { staff_id: 80, name: 80, tid: 80, at: 40 } as const;

/** A staff id as the kiosk takes one (a crew member's PIN) and as a badge's sid is made. */
export const STAFF_ID_PATTERN = /^[0-9A-Za-z_.-]{1,80}$/;
export const RECORD_HASH_PATTERN = /^[0-9a-f]{64}$/;

/** The kiosk's calls: a record's `call` is one of them (protocol/access.ts). */
export const KIOSK_CALLS = (Object.keys(ACCESS) as (keyof typeof ACCESS)[]).filter(
  (call): call is KioskCall => !call.startsWith('issuer.'),
);

/** One staff record of the kiosk's audit log, as the heartbeat carries it. */
export interface StaffActionReport {
  /** Its position in the kiosk's audit log (1, 2, 3, …) and its hash there. */
  position: number;
  hash: string;
  /** When the kiosk wrote it (its own clock). */
  at: string;
  event: StaffActionEvent;
  /** Who was at the kiosk: null ids when no one had unlocked it. */
  staff_id: string | null;
  name: string | null;
  role: KioskRole;
  via: StaffVia | null;
  /** The staff call made or refused (staff_action, staff_refused). */
  call?: KioskCall;
  /** The lowest role the refused call needs (staff_refused). */
  needs?: StaffRole;
  /** The ticket, when the record is about one (attention_override, manual_check_in). */
  tid?: string;
}

export interface StaffActionProblem {
  /** The field, as the 400 answer names it: `staff_actions.3.name`. */
  field: string;
  problem: string;
}

const isOneOf = <T extends string>(list: readonly T[], value: unknown): value is T =>
  typeof value === 'string' && (list as readonly string[]).includes(value);

/** Why `text` cannot be a record's text of at most `max` characters, or null. */
function textProblem(text: unknown, max: number): string | null {
  if (typeof text !== 'string' || text.length === 0) return 'must be a non-empty string';
  if ([...text].length > max) return `must be at most ${max} characters`;
  return null;
}

/** Why record `index` of a heartbeat's `staff_actions` is not a staff record, or null: the first field that is wrong. */
export function staffActionProblem(record: unknown, index: number): StaffActionProblem | null {
  const at = (field: string, problem: string): StaffActionProblem => ({
    field: field === '' ? `staff_actions.${index}` : `staff_actions.${index}.${field}`,
    problem,
  });
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return at('', 'must be an object');
  const r = record as Record<string, unknown>;
  if (typeof r.position !== 'number' || !Number.isSafeInteger(r.position) || r.position < 1)
    return at('position', 'must be an integer from 1');
  if (typeof r.hash !== 'string' || !RECORD_HASH_PATTERN.test(r.hash)) return at('hash', 'must be 64 lowercase hex characters');
  if (!isIsoDateTime(r.at) || r.at.length > STAFF_ACTION_LIMITS.at) return at('at', 'must be an ISO 8601 date-time with a time zone');
  if (!isOneOf(STAFF_ACTION_EVENTS, r.event)) return at('event', `must be one of ${STAFF_ACTION_EVENTS.join(', ')}`);
  if (r.staff_id !== null && (typeof r.staff_id !== 'string' || !STAFF_ID_PATTERN.test(r.staff_id))) {
    return at('staff_id', 'must be null or 1 to 80 letters, digits, . _ or -');
  }
  if (r.name !== null) {
    const problem = textProblem(r.name, STAFF_ACTION_LIMITS.name) ?? labelCharacterProblem(r.name as string);
    if (problem !== null) return at('name', problem);
  }
  if (!isOneOf(KIOSK_ROLES, r.role)) return at('role', `must be one of ${KIOSK_ROLES.join(', ')}`);
  if (r.via !== null && !isOneOf(STAFF_VIAS, r.via)) return at('via', `must be null or one of ${STAFF_VIAS.join(', ')}`);
  if (r.call !== undefined && !isOneOf(KIOSK_CALLS, r.call)) return at('call', "must be one of the kiosk's calls");
  if (r.needs !== undefined && !isOneOf(STAFF_ROLES, r.needs)) return at('needs', `must be one of ${STAFF_ROLES.join(', ')}`);
  if (r.tid !== undefined) {
    const problem = textProblem(r.tid, STAFF_ACTION_LIMITS.tid) ?? labelCharacterProblem(r.tid as string);
    if (problem !== null) return at('tid', problem);
  }
  return null;
}

/** The first problem of a heartbeat's `staff_actions`, or null: at most MAX_STAFF_ACTIONS_PER_HEARTBEAT valid records. */
export function staffActionsProblem(records: unknown): StaffActionProblem | null {
  if (!Array.isArray(records)) return { field: 'staff_actions', problem: 'must be a list' };
  if (records.length > MAX_STAFF_ACTIONS_PER_HEARTBEAT) {
    return { field: 'staff_actions', problem: `must have at most ${MAX_STAFF_ACTIONS_PER_HEARTBEAT} records` };
  }
  for (const [index, record] of records.entries()) {
    const problem = staffActionProblem(record, index);
    if (problem !== null) return problem;
  }
  return null;
}
