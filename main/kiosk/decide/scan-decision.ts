/**
 * The kiosk's scan decision (docs/architecture.md "One scan at the door, offline and online"), shaped like
 * the issuer's issuer/services/check-in-decision.ts: the caller gathers the facts, this module decides,
 * the caller records and shows. Three decisions:
 * - the offline checks of a code just read (protocol/verdict.ts evaluateTicketOffline, in scanContext's context);
 * - the issuer's answer to a check-in → the verdict, or the offline path when it gave none;
 * - the offline outcome (docs/kiosk.md "Exit scans", "Offline exposure policy"): the checks the issuer
 *   would have judged, run from protocol/verdict.ts's one list (checkVerifiedTicketOffline), then the
 *   exposure policy. Let through: queued; refused: held.
 *
 * Pure, in decide/: no store, no network. The facts' lookups are plain functions the caller binds to its
 * store and LAN peers (main/kiosk/door-scan.ts).
 */
import {
  checkVerifiedTicketOffline,
  evaluateTicketOffline,
  exitVerdict,
  exposureRefusal,
  offlineVerdict,
  unknownTicketVerdict,
  verdictFromCheckIn,
  type DoorCheckInResponse,
  type DoorScanResponse,
  type GateDirection,
  type IsoDateTime,
  type OfflineAdmission,
  type OfflineContext,
  type OfflineEvaluation,
  type OfflinePolicy,
  type PeerAdmissionFact,
  type PublicKey,
  type TicketPayload,
  type Verdict,
} from '../../../protocol/index.js';
import { admittedSinceCheckOut } from './exit-all.js';
import { decideEntry, entryPolicyOf, isReentry, rollingHourStart, rulesContext, type LastHeartbeat } from './door-operations.js';

/** What this door knows when it decides; the lookups read the kiosk's store and LAN peers. */
export interface DoorFacts {
  /** Which way this scan goes (the kiosk's direction, or its lane's). */
  direction: GateDirection;
  /** The enrolled event and this kiosk's gate. */
  eid: string;
  gateId: string | null;
  /** The kiosk's own offline policy (optimistic or strict). */
  kioskPolicy: OfflinePolicy;
  /** The last heartbeat answer of the enrolled event, or null. */
  heartbeat(): LastHeartbeat | null;
  /** The revocation list of the last sync (docs/kiosk.md "Revocation list"), or undefined before the first. */
  revocations(): OfflineContext['revocations'];
  /** When this kiosk first admitted the ticket, and every time it did. */
  firstAdmissionAt(tid: string): IsoDateTime | undefined;
  admissionTimes(tid: string): readonly IsoDateTime[];
  /** A LAN peer's admission of the ticket as it told this kiosk (docs/kiosk.md "Kiosks on one LAN"); undefined without a LAN. */
  peerAdmission(tid: string): PeerAdmissionFact | undefined;
  /** This kiosk's offline admissions since then. */
  offlineAdmissionsSince(since: IsoDateTime): readonly OfflineAdmission[];
}

/** A LAN peer's admission of the ticket: consulted offline only (online the issuer decides), never on a re-entry event. */
export function peerAdmission(facts: DoorFacts, tid: string): PeerAdmissionFact | undefined {
  if (isReentry(facts.heartbeat())) return undefined;
  return facts.peerAdmission(tid);
}

/** What a code just read is, by the offline checks (protocol/verdict.ts evaluateTicketOffline) in this door's context. */
export function evaluateScan(text: string, facts: DoorFacts, read: ScanRead): OfflineEvaluation {
  return evaluateTicketOffline(text, scanContext(facts, read));
}

/** What the door knows as a code is read, beside its facts. */
export interface ScanRead {
  issuer: string;
  keys: readonly PublicKey[];
  nowMs: number;
  /** The issuer is known to be unreachable now (the last request got no answer). */
  knownOffline: boolean;
  verify: OfflineContext['verify'];
}

/** The context of the offline checks for a code just read (protocol/verdict.ts evaluateTicketOffline). */
export function scanContext(facts: DoorFacts, read: ScanRead): OfflineContext {
  return {
    issuer: read.issuer,
    eid: facts.eid,
    keys: read.keys,
    nowMs: read.nowMs,
    // A re-entry event: the issuer knows of exits at other gates, this kiosk does not; "seen here" is
    // then checked only when the issuer cannot answer (offlineOutcome).
    admittedHereAt: (tid) => (isReentry(facts.heartbeat()) ? undefined : facts.firstAdmissionAt(tid)),
    // Known offline: what the LAN's kiosks admitted counts. Otherwise the issuer is asked first, and
    // offlineOutcome consults the peers only if it does not answer.
    admittedByPeerAt: (tid) => (read.knownOffline ? peerAdmission(facts, tid) : undefined),
    // Known offline: the revocation list of the last sync. Online the issuer decides (offlineOutcome consults
    // the list if it does not answer).
    ...(read.knownOffline ? { revocations: facts.revocations() } : {}),
    // The check-in rules likewise (docs/kiosk.md "Check-in rules offline"): online the issuer judges by its
    // rules of this moment; known offline, the last heartbeat's rules judge here, and offlineOutcome applies
    // them when the issuer does not answer.
    ...(read.knownOffline ? { checkInRules: rulesContext(facts.heartbeat(), facts.gateId, facts.admissionTimes) } : {}),
    direction: facts.direction,
    verify: read.verify,
  };
}

/** What the door shows when the issuer cannot answer, and whether the scan is queued (pending) or kept back (held). */
export interface OfflineOutcome {
  verdict: Verdict;
  queueState: 'pending' | 'held';
}

/**
 * What the door shows when the issuer cannot answer (docs/kiosk.md "Exit scans", "Offline
 * exposure policy"): an exit lets the person out; an entry is judged by the checks the issuer would
 * have judged, then by the kiosk's own option and its ticket type's policy (protocol/offline-exposure.ts).
 * Let through: queued; refused: held.
 */
export function offlineOutcome(payload: TicketPayload, facts: DoorFacts, decidedAt: IsoDateTime): OfflineOutcome {
  if (facts.direction === 'exit') return { verdict: exitVerdict(payload, true, decidedAt), queueState: 'pending' };
  const heartbeat = facts.heartbeat();
  const reentry = isReentry(heartbeat);
  const nowMs = Date.parse(decidedAt);
  // The event and the expiry were checked when the code was read (scanContext). From the revocation list on,
  // the checks are the ones the issuer would have judged (protocol/verdict.ts OFFLINE_CHECKS order: the list of
  // the last sync, the check-in rules before "already used", this kiosk's own admissions, its LAN peers').
  const checked = checkVerifiedTicketOffline(
    payload,
    {
      eid: facts.eid,
      nowMs,
      // A re-entry event was not checked for "seen here" when the code was read; on any other it was, and passed.
      // Its admissions before a check-out at a set time ended there (docs/kiosk.md "Check-out at a set time"). A
      // party's part has no first admission to go by (docs/kiosk.md "Party tickets": its counts judged it already).
      admittedHereAt: (tid) =>
        reentry && facts.firstAdmissionAt(tid) !== undefined
          ? admittedSinceCheckOut(heartbeat, facts.admissionTimes(tid), nowMs)
          : undefined,
      admittedByPeerAt: (tid) => peerAdmission(facts, tid),
      revocations: facts.revocations(),
      checkInRules: rulesContext(heartbeat, facts.gateId, facts.admissionTimes),
      direction: facts.direction,
      entryPolicy: entryPolicyOf(heartbeat),
    },
    'revoked_list',
  );
  if (!checked.pass) return { verdict: checked.verdict, queueState: 'held' };
  const decision = decideEntry({
    kioskPolicy: facts.kioskPolicy,
    heartbeat,
    ticketType: payload.tt,
    recentOfflineAdmissions: facts.offlineAdmissionsSince(rollingHourStart(nowMs)),
    nowMs,
  });
  if (decision.admit) return { verdict: offlineVerdict(payload, 'optimistic', decidedAt), queueState: 'pending' };
  return { verdict: exposureRefusal(decision, payload, decidedAt), queueState: 'held' };
}

/** What the issuer said to one check-in request (sync/issuer-client.ts CheckInCall has this shape). */
export type CheckInAnswer =
  | { kind: 'answered'; response: DoorCheckInResponse }
  | { kind: 'not_found' | 'signature_reported' | 'action_not_allowed' | 'unauthorized' | 'unreachable' | 'server_error' }
  | { kind: 'rate_limited'; retryAfterMs?: number }
  | { kind: 'rejected'; status: number; code?: string };

/** The scan after the issuer was asked. */
export type CheckInDecision =
  /** The issuer decided: its verdict, the scan is done. */
  | { kind: 'answered'; verdict: Verdict }
  /** The issuer refused this scanner's key: the scan is held until a re-enrollment. */
  | { kind: 'unauthorized' }
  /**
   * No verdict from the issuer: the offline outcome. `final`: the issuer refused the request for good (a
   * rejection, an action this scanner may not take), so its answer is kept and the scan is not sent again.
   */
  | { kind: 'offline'; verdict: Verdict; queueState: 'pending' | 'held' | 'failed'; final: boolean };

/** The issuer's answer to an entry or an exit → what the door shows (protocol/verdict.ts), else the offline outcome. */
export function decideCheckIn(call: CheckInAnswer, payload: TicketPayload, facts: DoorFacts, decidedAt: IsoDateTime): CheckInDecision {
  if (call.kind === 'answered' || call.kind === 'not_found') {
    // The client let through only the statuses this action may be answered (issuer-client.ts): an entry's or an exit's.
    const verdict =
      call.kind === 'answered'
        ? verdictFromCheckIn(call.response as DoorScanResponse, payload, decidedAt)
        : unknownTicketVerdict(payload, decidedAt);
    return { kind: 'answered', verdict };
  }
  if (call.kind === 'unauthorized') return { kind: 'unauthorized' };
  // Offline path after trying: timeout, network error, 5xx, 429, or a final rejection.
  const final = call.kind === 'rejected' || call.kind === 'action_not_allowed';
  const offline = offlineOutcome(payload, facts, decidedAt);
  return { kind: 'offline', verdict: offline.verdict, queueState: final ? 'failed' : offline.queueState, final };
}
