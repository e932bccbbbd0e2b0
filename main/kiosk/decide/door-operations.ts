/**
 * The kiosk's side of door operations (docs/protocol.md "Door operations";
 * docs/kiosk.md "Direction", "Exit scans", "Annul at the door", "Offline
 * exposure policy"): the scanner heartbeat and what its last answer says
 * (policies, rights, entry policy, capacity, occupancy), kept in the local
 * store so a kiosk that restarts offline still applies them; this kiosk's
 * offline exposure; and the offline decision for an entry.
 *
 * The decisions are pure and live in protocol/ (offline-exposure.ts); this
 * file reads the store and talks to the issuer.
 */
import {
  DEFAULT_OFFLINE_POLICIES,
  ROLLING_HOUR_MS,
  admissionsLastHour,
  decideOfflineAdmission,
  exposureRows,
  occupancyLevel,
  typeKey,
  type ExposureDecision,
  type HeartbeatRequest,
  type Occupancy,
  type OfflinePolicies,
  type OfflinePolicy,
  entriesOnLocalDay,
  evaluateRules,
  type CheckInRules,
  type OfflineContext,
  type RuleRefusal,
  type DiscoveryDocument,
  type TicketPayload,
} from '../../../protocol/index.js';
import { rightsAllow } from '../../../protocol/access.js';
import { heartbeatUrlOf } from '../sync/discovery.js';
import type { HeartbeatCall, IssuerClient } from '../sync/issuer-client.js';
import type { DoorState } from '../kiosk-api.js';
import type { Enrollment, LocalStore, StoredHeartbeat } from '../store/local-store.js';

/** docs/protocol.md "Scanner heartbeat": every minute while online. */
export const HEARTBEAT_INTERVAL_MS = 60_000;
/** How long after a check-in staff may still annul it at the door (KioskCoreOptions.annulWindowMs). */
export const DEFAULT_ANNUL_WINDOW_MS = 2 * 60_000;

export const ANNUL_NOT_ALLOWED_MESSAGE = 'this scanner may not annul check-ins: ask the box office';

export interface DoorOperationsDeps {
  store: LocalStore;
  client: IssuerClient;
  now: () => number;
  annulWindowMs: number;
}

export class DoorOperations {
  constructor(private readonly deps: DoorOperationsDeps) {}

  /** The last heartbeat answer for the enrolled event (one for another event, before a re-enrollment, does not count). */
  lastHeartbeat(enrollment: Enrollment): StoredHeartbeat | null {
    const stored = this.deps.store.getHeartbeat();
    return stored && stored.response.eid === enrollment.eid ? stored : null;
  }

  /** The offline policies to judge by: the last heartbeat's, else admit offline (today's behaviour, an issuer without door operations). */
  policies(enrollment: Enrollment): OfflinePolicies {
    return this.lastHeartbeat(enrollment)?.response.offline_policies ?? DEFAULT_OFFLINE_POLICIES;
  }

  /** May this entry be admitted without the issuer? (protocol/offline-exposure.ts) */
  decideEntry(enrollment: Enrollment, payload: TicketPayload, kioskPolicy: OfflinePolicy): ExposureDecision {
    const type = typeKey(payload.tt);
    const lastHour = admissionsLastHour(this.recentAdmissions(), this.deps.now())[type] ?? 0;
    return decideOfflineAdmission({ kioskPolicy, policies: this.policies(enrollment), ticketType: payload.tt, admittedLastHour: lastHour });
  }

  /**
   * The event's check-in rules to judge by offline (docs/kiosk.md "Check-in rules offline"): the last
   * heartbeat's, else none (an issuer without them). Validated when the answer came (issuer-client.ts).
   */
  checkInRules(enrollment: Enrollment): CheckInRules | null {
    const rules = this.lastHeartbeat(enrollment)?.response.check_in_rules;
    return rules && rules.rules.length > 0 ? rules : null;
  }

  /** What the offline check `rules` needs (protocol/verdict.ts OfflineContext.checkInRules), or undefined: no rules. */
  rulesContext(enrollment: Enrollment): OfflineContext['checkInRules'] {
    const rules = this.checkInRules(enrollment);
    if (!rules) return undefined;
    return {
      rules,
      gateId: enrollment.gate_id,
      entryPolicy: this.lastHeartbeat(enrollment)?.response.entry_policy ?? 'single',
      admissionsHere: (tid) => this.deps.store.admissionTimes(tid),
    };
  }

  /** The check-in rules' refusal of this scan now, or null (the same pure function as the offline check `rules`). */
  ruleRefusal(enrollment: Enrollment, payload: TicketPayload): RuleRefusal | null {
    const context = this.rulesContext(enrollment);
    if (!context) return null;
    const at = this.deps.now();
    const outcome = evaluateRules(context.rules, {
      ticketType: payload.tt,
      gateId: context.gateId,
      direction: enrollment.direction,
      at,
      entriesToday: entriesOnLocalDay(context.admissionsHere(payload.tid), at, context.rules.time_zone),
      entryPolicy: context.entryPolicy,
    });
    return outcome.pass ? null : outcome.refusal;
  }

  /** Staff may annul only when the issuer gave this scanner the right (the last heartbeat's rights: docs/protocol.md "Roles and rights"). */
  canAnnul(enrollment: Enrollment): boolean {
    return rightsAllow(this.lastHeartbeat(enrollment)?.response.rights, 'issuer.annul');
  }

  /**
   * Sends one heartbeat and keeps its answer. Null when the issuer offers no
   * heartbeat endpoint (no door operations: today's behaviour stays).
   */
  async heartbeat(
    enrollment: Enrollment,
    document: DiscoveryDocument,
    apiKey: string,
    scannerId: string,
    pendingScans: number,
    timeoutMs: number,
  ): Promise<HeartbeatCall | null> {
    const url = heartbeatUrlOf(document);
    if (url === null) return null;
    const request: HeartbeatRequest = {
      scanner_id: scannerId,
      direction: enrollment.direction,
      pending_scans: pendingScans,
      offline_exposure: this.deps.store.unsyncedOfflineAdmissions(),
      offline_last_hour: admissionsLastHour(this.recentAdmissions(), this.deps.now()),
      // The head of the kiosk's audit log (docs/kiosk.md "The kiosk's audit log"): the issuer keeps every one.
      log_head: this.deps.store.logHead(),
    };
    const call = await this.deps.client.heartbeat(url, apiKey, request, { timeoutMs });
    if (call.kind === 'answered' && call.response.eid === enrollment.eid) {
      this.deps.store.saveHeartbeat({ response: call.response, received_at: new Date(this.deps.now()).toISOString() });
    }
    return call;
  }

  /** An entry or exit answer's occupancy is newer than the last heartbeat's: the Ready screen's banner follows it. */
  noteOccupancy(enrollment: Enrollment, occupancy: Occupancy | undefined): boolean {
    const stored = this.lastHeartbeat(enrollment);
    if (!stored || !occupancy) return false;
    const level = occupancyLevel(occupancy.inside, occupancy.capacity);
    const before = stored.response.occupancy;
    if (before.inside === occupancy.inside && before.capacity === occupancy.capacity && before.level === level) return false;
    this.deps.store.saveHeartbeat({
      ...stored,
      response: { ...stored.response, capacity: occupancy.capacity, occupancy: { ...occupancy, level } },
    });
    return true;
  }

  /** What the state shows staff and the Ready screen. */
  view(enrollment: Enrollment | null): { door: DoorState | null; offline_exposure: ReturnType<typeof exposureRows> } {
    const lastHour = admissionsLastHour(this.recentAdmissions(), this.deps.now());
    const stored = enrollment ? this.lastHeartbeat(enrollment) : null;
    const rows = exposureRows(stored?.response.offline_policies ?? null, lastHour, this.deps.store.unsyncedOfflineAdmissions());
    if (!stored) return { door: null, offline_exposure: rows };
    const response = stored.response;
    return {
      door: {
        heartbeat_at: stored.received_at,
        entry_policy: response.entry_policy,
        capacity: response.capacity,
        occupancy: { inside: response.occupancy.inside, capacity: response.occupancy.capacity, level: response.occupancy.level },
        can_annul: response.rights.annul,
        annul_window_ms: this.deps.annulWindowMs,
      },
      offline_exposure: rows,
    };
  }

  private recentAdmissions(): ReturnType<LocalStore['offlineAdmissionsSince']> {
    return this.deps.store.offlineAdmissionsSince(new Date(this.deps.now() - ROLLING_HOUR_MS).toISOString());
  }
}
