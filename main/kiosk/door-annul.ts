/**
 * Undoing a recent check-in at the door (docs/kiosk.md "Annul at the door"): offered while the issuer gives
 * this scanner the annul right. Queued like any scan: committed with its idempotency key before it is sent,
 * sent again from the queue when the issuer does not answer now.
 *
 * At the top of main/kiosk/: it wires the store, the issuer and the LAN around the annul rules
 * (decide/annul.ts, decide/door-operations.ts canAnnul), which decide.
 */
import type { AnnulResult } from './kiosk-api.js';
import type { StaffAccess } from './staff-access.js';
import { ANNUL_NOT_ALLOWED_MESSAGE, annulAnswer, annulTooLate } from './decide/annul.js';
import { canAnnul } from './decide/door-operations.js';
import { NOT_ENROLLED } from './door-scan.js';
import { checkInRequestFor, type LocalStore } from './store/local-store.js';
import type { DrainSchedule } from './sync/drain-schedule.js';
import type { Heartbeat } from './sync/heartbeat.js';
import { SCANNER_UNAUTHORIZED_MESSAGE, type IssuerClient } from './sync/issuer-client.js';
import type { IssuerLink } from './sync/issuer-link.js';
import type { LanDoor } from './sync/lan-door.js';
import { storedAnswerOf } from './sync/queue-drain.js';

export interface DoorAnnulDeps {
  store: LocalStore;
  client: IssuerClient;
  link: IssuerLink;
  drains: DrainSchedule;
  heartbeat: Heartbeat;
  lan: LanDoor;
  now: () => number;
  /** Time the door waits for the issuer. */
  budgetMs: number;
  annulWindowMs: number;
  log: (line: string) => void;
  changed: () => void;
  /** Who is unlocked now, and the staff badge that unlocked them (staff-access.ts). */
  staff: Pick<StaffAccess, 'person' | 'badgeCode' | 'badgeRole'>;
}

export async function annulAtDoor(deps: DoorAnnulDeps, tid: string, reason: string): Promise<AnnulResult> {
  const { store, link, drains } = deps;
  const enrollment = store.getEnrollment();
  if (!enrollment) return { type: 'not_enrolled', message: NOT_ENROLLED };
  const person = deps.staff.person();
  const badge = deps.staff.badgeCode();
  if (!canAnnul(deps.heartbeat.last(enrollment), deps.staff.badgeRole()))
    return { type: 'not_allowed', message: ANNUL_NOT_ALLOWED_MESSAGE };
  const document = await link.documentFor(enrollment);
  const lookup = link.authorised ? await link.loadApiKey(enrollment) : { key: null };
  const apiKey = 'key' in lookup ? lookup.key : null;
  // The check-in to undo: this kiosk's own, else the issuer's record of it (a lookup's ticket).
  let checkedInAt = store.lastAdmissionAt(tid) ?? null;
  if (checkedInAt === null) {
    if (!document || !apiKey) return { type: 'unavailable', message: 'the issuer must be reached to annul a check-in made elsewhere' };
    const status = await deps.client.status(document.endpoints.status, apiKey, tid, { timeoutMs: link.interactiveTimeoutMs });
    link.noteConnection(status);
    if (status.kind === 'not_found') return { type: 'not_checked_in', tid };
    if (status.kind !== 'answered') return { type: 'unavailable', message: 'the issuer could not say when the ticket was checked in' };
    if (!status.status.checked_in_at) return { type: 'not_checked_in', tid };
    checkedInAt = status.status.checked_in_at;
  }
  const tooLate = annulTooLate(checkedInAt, deps.now(), deps.annulWindowMs);
  if (tooLate) return tooLate;
  const admitting = store.admittingScan(tid);
  const scan = store.insertScan({
    code: admitting?.code ?? tid,
    iss: enrollment.iss,
    tid,
    eid: admitting?.eid ?? enrollment.eid,
    gate_id: enrollment.gate_id,
    scanner_id: store.identity().scanner_id,
    scanned_at: new Date(deps.now()).toISOString(),
    signature_status: 'valid',
    queue_state: document && apiKey ? 'sending' : 'pending',
    action: 'annul',
    reason,
    ticket_type: admitting?.ticket_type ?? null,
    // docs/protocol.md "Check-in request: who at the door": the issuer records who, and checks the badge.
    staff_id: person?.staff_id ?? null,
    staff_badge: badge,
  });
  deps.log(`Annulment of ticket ${tid} by staff${person ? ` (${person.staff_id})` : ''}, queued with its key.`);
  if (!document || !apiKey) {
    drains.firstRetryUnlessScheduled();
    deps.changed();
    return { type: 'queued_offline', tid };
  }
  const call = await deps.client.checkIn(document.endpoints.check_in, apiKey, checkInRequestFor(scan), { timeoutMs: deps.budgetMs });
  link.noteConnection(call);
  const answeredAt = new Date(deps.now()).toISOString();
  const answer = storedAnswerOf(call, answeredAt);
  if (answer !== null) store.recordAnswer(scan.idempotency_key, answer);
  deps.changed();
  const decided = annulAnswer(call, tid);
  switch (decided.then) {
    case 'tell_peers':
      deps.lan.tellAnnulled(tid, answeredAt, call.kind === 'answered' ? call.response : null);
      return decided.result;
    case 'show':
      return decided.result;
    case 'unauthorized':
      store.setQueueState(scan.idempotency_key, 'held');
      link.authorised = false;
      return { type: 'scanner_unauthorized', message: SCANNER_UNAUTHORIZED_MESSAGE };
    case 'retry':
      store.recordRetry(scan.idempotency_key, drains.firstRetryAt(decided.retryAfterMs), decided.error);
      drains.firstRetryUnlessScheduled();
      return { type: 'queued_offline', tid };
  }
}
