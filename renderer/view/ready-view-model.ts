/** What the Ready screen shows for a kiosk state. Pure. */
import type { KioskState, Verdict } from '../kiosk-bridge-types.js';
import { t, tn } from '../messages/format.js';
import { clockWarningText } from './clock-view-model.js';
import { formatClockTime, formatEventDate, type TimeOptions } from './dates.js';
import { verdictView, type VerdictView } from './verdict-view-model.js';

export interface RecentVerdictLine {
  icon: VerdictView['icon'];
  dataVerdict: VerdictView['dataVerdict'];
  time: string;
  text: string;
}

export interface ReadyView {
  eventName: string;
  eventDate: string;
  gate: string;
  connection: { text: string; dataConnection: 'online' | 'offline' | 'unknown' };
  /** What offline means for the door right now; null while online. */
  offlineRule: string | null;
  pendingText: string;
  pendingCount: number;
  /** Null when there were none: the warning is only shown when it matters. */
  doubleAdmissionsText: string | null;
  /** Offline admissions the issuer answered `revoked` at sync (docs/kiosk.md "Double admissions"); null when none. */
  revokedAdmissionsText: string | null;
  /** People of party tickets admitted offline that the issuer did not count (docs/kiosk.md "Party tickets"); null when none. */
  partyRefusedText: string | null;
  /** How old the revocation list is (docs/kiosk.md "Revocation list"); null at an issuer without one. */
  revocationList: { text: string; stale: boolean } | null;
  unauthorisedText: string | null;
  recent: RecentVerdictLine[];
  /** Which way this gate scans (docs/kiosk.md "Direction"). */
  direction: KioskState['direction'];
  directionText: string;
  /** An entry kiosk whose last heartbeat said the venue is full; the issuer still decides each scan. Null otherwise. */
  venueFullText: string | null;
  /** The kiosk's clock is more than a minute from the issuer's (docs/kiosk.md "The kiosk's clock"); null otherwise. */
  clockWarningText: string | null;
}

/** How many past verdicts the Ready screen lists. */
export const RECENT_VERDICTS_SHOWN = 5;

export function readyView(state: KioskState, time: TimeOptions = {}, nowMs: number = Date.now()): ReadyView {
  const pending = state.pending_scans;
  // A double admission unless the issuer said revoked or party_full (as before party tickets: any other conflict counts).
  const doubles = state.double_admissions.filter((d) => d.conflict !== 'revoked' && d.conflict !== 'party_full').length;
  const revokedAdmitted = state.double_admissions.filter((d) => d.conflict === 'revoked').length;
  const partyRefused = state.double_admissions.reduce((sum, d) => sum + (d.conflict === 'party_full' ? (d.refused_people ?? 0) : 0), 0);
  return {
    eventName: state.event?.name ?? '',
    eventDate: state.event ? formatEventDate(state.event.date, time) : '',
    gate: state.gate_id ? t('ready.gate', { gate: state.gate_id }) : t('ready.all_gates'),
    connection: connectionView(state.connection),
    offlineRule:
      state.connection === 'offline'
        ? state.offline_policy === 'strict'
          ? t('ready.offline_strict')
          : t('ready.offline_optimistic')
        : null,
    pendingText: tn('ready.pending', pending),
    pendingCount: pending,
    doubleAdmissionsText: doubles === 0 ? null : tn('ready.double', doubles),
    revokedAdmissionsText: revokedAdmitted === 0 ? null : tn('ready.double.revoked', revokedAdmitted),
    partyRefusedText: partyRefused === 0 ? null : tn('ready.double.party', partyRefused),
    revocationList: revocationListView(state, time, nowMs),
    unauthorisedText: state.authorised ? null : t('ready.unauthorised'),
    recent: state.last_verdicts.slice(0, RECENT_VERDICTS_SHOWN).map((v) => recentLine(v, time)),
    direction: state.direction,
    directionText: state.direction === 'exit' ? t('ready.direction.exit') : t('ready.direction.entry'),
    venueFullText: state.direction === 'entry' && state.door?.occupancy.level === 'full' ? t('ready.venue_full') : null,
    clockWarningText: clockWarningText(state),
  };
}

/** The revocation list's age, and a warning past the kiosk's limit or before its first sync. */
function revocationListView(state: KioskState, time: TimeOptions, nowMs: number): ReadyView['revocationList'] {
  const list = state.revocations;
  if (!state.enrolled || list === undefined) return null;
  if (list === null || list.synced_at === null) return { text: t('ready.revocations.none'), stale: true };
  const ageMs = Math.max(0, nowMs - Date.parse(list.synced_at));
  const words = { time: formatClockTime(list.synced_at, time), minutes: Math.floor(ageMs / 60_000) };
  return ageMs > list.max_age_ms
    ? { text: t('ready.revocations.stale', words), stale: true }
    : { text: tn('ready.revocations.synced', list.count, words), stale: false };
}

function connectionView(connection: KioskState['connection']): ReadyView['connection'] {
  if (connection === 'online') return { text: t('ready.online'), dataConnection: 'online' };
  if (connection === 'offline') return { text: t('ready.offline'), dataConnection: 'offline' };
  return { text: t('ready.connecting'), dataConnection: 'unknown' };
}

function recentLine(verdict: Verdict, time: TimeOptions): RecentVerdictLine {
  const view = verdictView(verdict, time);
  const who = [view.holderName, view.ticketType].filter((part): part is string => part !== null).join(', ');
  return {
    icon: view.icon,
    dataVerdict: view.dataVerdict,
    time: formatClockTime(verdict.decided_at, time),
    text: who ? `${view.reasonText} — ${who}` : view.reasonText,
  };
}
