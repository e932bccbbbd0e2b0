/**
 * What the staff's door controls show (docs/kiosk.md "Door operations"): when
 * to offer "Undo check-in", the preset reasons, the words for annul()'s
 * answer, and the gate settings (direction, offline exposure, occupancy).
 * Pure: state and answers in, words and hooks out.
 */
import { rightsAllow } from '../../protocol/access.js';
import type { AnnulResult, ExposureRow, GateDirection, KioskState, StaffLocked } from '../kiosk-bridge-types.js';
import { t, tn, type PlainMessageKey } from '../messages/format.js';
import { formatClockTime, type TimeOptions } from './dates.js';
import { staffLockedText } from './staff-view-model.js';

/** A check-in staff might undo: the ticket, and when it was checked in (null: not known here, the kiosk core asks). */
export interface CheckInToUndo {
  tid: string;
  checkedInAt: string | null;
}

/**
 * "Undo check-in" is offered while the issuer's last heartbeat gives this scanner the annul
 * right (docs/protocol.md "Roles and rights") and the check-in is within the annul window.
 * The kiosk core checks both again.
 */
export function offersAnnul(state: KioskState | null, checkIn: CheckInToUndo | null, nowMs: number): boolean {
  const door = state?.door ?? null;
  if (!door || !rightsAllow({ annul: door.can_annul }, 'issuer.annul') || !checkIn) return false;
  if (checkIn.checkedInAt === null) return true;
  const at = Date.parse(checkIn.checkedInAt);
  return Number.isNaN(at) || nowMs - at <= door.annul_window_ms;
}

/** The preset reasons, big buttons in this order; anything else is typed. */
export const ANNUL_REASON_KEYS = [
  'annul.reason.wrong_person',
  'annul.reason.scanned_by_mistake',
  'annul.reason.did_not_enter',
] as const satisfies readonly PlainMessageKey[];

/** A reason as the issuer keeps it: trimmed, 1 to 200 characters (docs/protocol.md "Door operations"). */
export function annulReason(text: string): string | null {
  const reason = text.trim().replace(/\s+/g, ' ');
  return reason.length >= 1 && reason.length <= 200 ? reason : null;
}

export type AnnulOutcomeCode =
  | 'annulled'
  | 'not_checked_in'
  | 'queued_offline'
  | 'not_allowed'
  | 'too_late'
  | 'not_enrolled'
  | 'scanner_unauthorized'
  | 'unavailable'
  | 'staff_locked'
  | 'failed';

export interface AnnulOutcomeView {
  /** `data-annul-result`: a stable hook for end-to-end tests. */
  dataResult: AnnulOutcomeCode;
  text: string;
  /** done: the check-in is (or will be) undone; nothing: nothing was undone; problem: it could not be done here. */
  tone: 'done' | 'nothing' | 'problem';
}

/** annul()'s answer in words; null (the bridge call itself failed) says so too. */
export function annulOutcomeView(result: AnnulResult | StaffLocked | null): AnnulOutcomeView {
  if (result === null) return { dataResult: 'failed', text: t('annul.failed', { message: t('setup.error.failed') }), tone: 'problem' };
  switch (result.type) {
    case 'annulled':
      return { dataResult: 'annulled', text: t('annul.annulled'), tone: 'done' };
    case 'queued_offline':
      return { dataResult: 'queued_offline', text: t('annul.queued_offline'), tone: 'done' };
    case 'not_checked_in':
      return { dataResult: 'not_checked_in', text: t('annul.not_checked_in'), tone: 'nothing' };
    case 'not_allowed':
      return { dataResult: 'not_allowed', text: t('annul.not_allowed'), tone: 'problem' };
    case 'too_late':
      return {
        dataResult: 'too_late',
        text: tn('annul.too_late', Math.max(1, Math.round(result.window_ms / 60_000))),
        tone: 'problem',
      };
    case 'not_enrolled':
      return { dataResult: 'not_enrolled', text: t('lookup.not_enrolled'), tone: 'problem' };
    case 'scanner_unauthorized':
      return { dataResult: 'scanner_unauthorized', text: t('reason.scanner_unauthorized'), tone: 'problem' };
    case 'unavailable':
      return { dataResult: 'unavailable', text: t('annul.failed', { message: result.message }), tone: 'problem' };
    case 'staff_locked':
      return { dataResult: 'staff_locked', text: staffLockedText(result) ?? t('annul.staff_locked'), tone: 'problem' };
  }
}

export interface DoorSettingsView {
  direction: GateDirection;
  directionText: string;
  /** The button that turns the gate the other way. */
  switchTo: GateDirection;
  switchText: string;
  /** Null before the issuer's first heartbeat (or an issuer without door operations). */
  occupancyText: string | null;
  occupancyLevel: 'open' | 'nearly_full' | 'full' | null;
  heardAtText: string | null;
  exposureRows: { ticketType: string; text: string; overCap: boolean }[];
}

export function doorSettingsView(state: KioskState, time: TimeOptions = {}): DoorSettingsView {
  const direction = state.direction;
  const switchTo: GateDirection = direction === 'exit' ? 'entry' : 'exit';
  const door = state.door;
  const occupancy = door?.occupancy ?? null;
  let occupancyText: string | null = null;
  if (occupancy) {
    const inside =
      occupancy.capacity === null
        ? t('setup.occupancy_open', { inside: occupancy.inside })
        : t('setup.occupancy', { inside: occupancy.inside, capacity: occupancy.capacity });
    occupancyText = occupancy.level === 'open' ? inside : `${inside} · ${t(`setup.occupancy.level.${occupancy.level}`)}`;
  }
  return {
    direction,
    directionText: t('setup.direction', { direction: t(direction === 'exit' ? 'setup.direction.exit' : 'setup.direction.entry') }),
    switchTo,
    switchText: t(switchTo === 'exit' ? 'setup.direction.to_exit' : 'setup.direction.to_entry'),
    occupancyText,
    occupancyLevel: occupancy?.level ?? null,
    heardAtText: door ? t('setup.door.heard_at', { time: formatClockTime(door.heartbeat_at, time) }) : null,
    exposureRows: state.offline_exposure.map((row) => ({
      ticketType: row.ticket_type,
      text: exposureRowText(row),
      overCap: row.cap !== null && row.last_hour >= row.cap,
    })),
  };
}

function exposureRowText(row: ExposureRow): string {
  const type = row.ticket_type === '' ? t('setup.exposure.default_type') : row.ticket_type;
  const count =
    row.cap !== null
      ? tn('setup.exposure.row_capped', row.last_hour, { type, cap: row.cap })
      : tn('setup.exposure.row', row.last_hour, { type, policy: t(`setup.exposure.policy.${row.policy}`) });
  return `${count} · ${tn('setup.exposure.unsynced', row.unsynced)}`;
}
