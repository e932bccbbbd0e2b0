/**
 * The kiosk's door rules (docs/protocol.md "Door operations"; docs/kiosk.md "Direction", "Exit scans",
 * "Annul at the door", "Offline exposure policy", "Check-in rules offline"): what the last heartbeat
 * answer says (policies, rights, entry policy, capacity, occupancy), this kiosk's offline exposure, and
 * the offline decision for an entry.
 *
 * Pure, in decide/: the caller passes the stored heartbeat and the store's figures as plain data and
 * gets a decision back. Sending the heartbeat and keeping its answer is sync/heartbeat.ts; the
 * exposure rule itself is protocol/offline-exposure.ts.
 */
import {
  DEFAULT_OFFLINE_POLICIES,
  ROLLING_HOUR_MS,
  admissionsLastHour,
  decideOfflineAdmission,
  exposureRows,
  occupancyLevel,
  typeKey,
  type CheckInRules,
  type EntryPolicy,
  type ExposureDecision,
  type HeartbeatResponse,
  type IsoDateTime,
  type Occupancy,
  type OfflineAdmission,
  type OfflineContext,
  type OfflinePolicies,
  type OfflinePolicy,
} from '../../../protocol/index.js';
import { mayCall, rightsAllow, type StaffRole } from '../../../protocol/access.js';
import type { DoorState } from '../kiosk-api.js';
import { insideAfterCheckOut } from './exit-all.js';

/** A heartbeat answer as the kiosk keeps it (the store's StoredHeartbeat). */
export interface LastHeartbeat {
  response: HeartbeatResponse;
  received_at: IsoDateTime;
}

/** The last heartbeat answer for the enrolled event (one for another event, before a re-enrollment, does not count). */
export function heartbeatOfEvent<H extends LastHeartbeat>(stored: H | null, eid: string): H | null {
  return stored && stored.response.eid === eid ? stored : null;
}

/** Since when the offline admissions count for the rolling hour (what the store is asked for). */
export function rollingHourStart(nowMs: number): IsoDateTime {
  return new Date(nowMs - ROLLING_HOUR_MS).toISOString();
}

/** The offline policies to judge by: the last heartbeat's, else admit offline (today's behaviour, an issuer without door operations). */
export function offlinePolicies(heartbeat: LastHeartbeat | null): OfflinePolicies {
  return heartbeat?.response.offline_policies ?? DEFAULT_OFFLINE_POLICIES;
}

/** The last heartbeat says the event lets people out and back in (docs/protocol.md "Per event: entry policy and capacity"). */
export function isReentry(heartbeat: LastHeartbeat | null): boolean {
  return heartbeat?.response.entry_policy === 'reentry';
}

/** The event's entry policy as the last heartbeat gave it, else the spec's (single). */
export function entryPolicyOf(heartbeat: LastHeartbeat | null): EntryPolicy {
  return heartbeat?.response.entry_policy ?? 'single';
}

/** May this entry be admitted without the issuer? (protocol/offline-exposure.ts) */
export function decideEntry(facts: {
  kioskPolicy: OfflinePolicy;
  heartbeat: LastHeartbeat | null;
  ticketType: string | undefined;
  /** This kiosk's offline admissions since rollingHourStart(nowMs). */
  recentOfflineAdmissions: readonly OfflineAdmission[];
  nowMs: number;
}): ExposureDecision {
  const type = typeKey(facts.ticketType);
  const lastHour = admissionsLastHour(facts.recentOfflineAdmissions, facts.nowMs)[type] ?? 0;
  return decideOfflineAdmission({
    kioskPolicy: facts.kioskPolicy,
    policies: offlinePolicies(facts.heartbeat),
    ticketType: facts.ticketType,
    admittedLastHour: lastHour,
  });
}

/**
 * The event's check-in rules to judge by offline (docs/kiosk.md "Check-in rules offline"): the last
 * heartbeat's, else none (an issuer without them). Validated when the answer came (issuer-client.ts).
 */
export function checkInRules(heartbeat: LastHeartbeat | null): CheckInRules | null {
  const rules = heartbeat?.response.check_in_rules;
  return rules && rules.rules.length > 0 ? rules : null;
}

/** What the offline check `rules` needs (protocol/verdict.ts OfflineContext.checkInRules), or undefined: no rules. */
export function rulesContext(
  heartbeat: LastHeartbeat | null,
  gateId: string | null,
  admissionsHere: (tid: string) => readonly IsoDateTime[],
): OfflineContext['checkInRules'] {
  const rules = checkInRules(heartbeat);
  if (!rules) return undefined;
  return { rules, gateId, entryPolicy: entryPolicyOf(heartbeat), admissionsHere };
}

/**
 * Staff may annul when the issuer lets this scanner's key annul (the last heartbeat's role, else its rights), or
 * when a staff badge whose role may annul unlocked the kiosk: the badge goes with the annulment, and the issuer
 * checks it and allows it by the badge's role (docs/protocol.md "Roles and rights", "Check-in request: who at the door").
 */
export function canAnnul(heartbeat: LastHeartbeat | null, badgeRole: StaffRole | null = null): boolean {
  if (rightsAllow(heartbeat?.response.rights, 'issuer.annul', heartbeat?.response.role)) return true;
  return badgeRole !== null && mayCall(badgeRole, 'issuer.annul');
}

/**
 * An entry or exit answer's occupancy is newer than the last heartbeat's: the heartbeat to keep so the
 * Ready screen's banner follows it, or null when nothing changed.
 */
export function withOccupancy<H extends LastHeartbeat>(heartbeat: H | null, occupancy: Occupancy | undefined): H | null {
  if (!heartbeat || !occupancy) return null;
  const level = occupancyLevel(occupancy.inside, occupancy.capacity);
  const before = heartbeat.response.occupancy;
  if (before.inside === occupancy.inside && before.capacity === occupancy.capacity && before.level === level) return null;
  return { ...heartbeat, response: { ...heartbeat.response, capacity: occupancy.capacity, occupancy: { ...occupancy, level } } };
}

/** The last heartbeat's occupancy, or zero once a check-out at a set time passed after it (docs/kiosk.md "Check-out at a set time"). */
function occupancyNow(stored: LastHeartbeat, nowMs: number): DoorState['occupancy'] {
  const { inside, capacity, level } = stored.response.occupancy;
  const after = insideAfterCheckOut(stored, nowMs);
  return after === inside ? { inside, capacity, level } : { inside: after, capacity, level: occupancyLevel(after, capacity) };
}

/** What the state shows staff and the Ready screen. */
export function doorView(facts: {
  heartbeat: LastHeartbeat | null;
  recentOfflineAdmissions: readonly OfflineAdmission[];
  unsyncedOfflineAdmissions: Readonly<Record<string, number>>;
  nowMs: number;
  annulWindowMs: number;
  /** The role of the staff badge that unlocked the kiosk, if one did. */
  badgeRole?: StaffRole | null;
}): { door: DoorState | null; offline_exposure: ReturnType<typeof exposureRows> } {
  const lastHour = admissionsLastHour(facts.recentOfflineAdmissions, facts.nowMs);
  const stored = facts.heartbeat;
  const rows = exposureRows(stored?.response.offline_policies ?? null, lastHour, facts.unsyncedOfflineAdmissions);
  if (!stored) return { door: null, offline_exposure: rows };
  const response = stored.response;
  return {
    door: {
      heartbeat_at: stored.received_at,
      entry_policy: response.entry_policy,
      capacity: response.capacity,
      occupancy: occupancyNow(stored, facts.nowMs),
      can_annul: canAnnul(stored, facts.badgeRole ?? null),
      annul_window_ms: facts.annulWindowMs,
    },
    offline_exposure: rows,
  };
}
