/**
 * Finding a ticket at the door (docs/kiosk.md "Finding a ticket"): the issuer's ticket search by holder name,
 * short id or ticket id, and a found ticket checked in by hand with a reason (docs/protocol.md "Ticket search").
 * Online only: the kiosk keeps no list of names, so without the issuer it says the search needs it.
 *
 * At the top of main/kiosk/: it wires the store (the audit log), the issuer and the screen's verdict around
 * the pure answer-to-verdict step (decide/manual-check-in.ts).
 */
import { randomUUID } from 'node:crypto';
import type { DoorCheckInRequest } from '../../protocol/index.js';
import type { ManualCheckInOutcome, ScanResult, TicketSearchOutcome, Verdict } from './kiosk-api.js';
import { manualVerdict } from './decide/manual-check-in.js';
import type { StaffAccess } from './staff-access.js';
import type { DiscoveryDocument } from '../../protocol/index.js';
import type { CallFailure } from './sync/issuer-client.js';
import { SCANNER_UNAUTHORIZED_MESSAGE } from './sync/issuer-client.js';
import type { StatusLookupDeps } from './sync/status-lookup.js';

export interface TicketSearchDeps extends StatusLookupDeps {
  /** Who is unlocked now, and the staff badge that unlocked them (staff-access.ts): the check-in names them. */
  staff: Pick<StaffAccess, 'person' | 'badgeCode' | 'role'>;
  now: () => number;
  log: (line: string) => void;
  /** The door shows the issuer's answer as it shows a scan's (kiosk-core.ts show). */
  show: (verdict: Verdict) => ScanResult;
}

type Reached =
  | { document: DiscoveryDocument; apiKey: string; eid: string; gateId: string | null }
  | { outcome: { type: 'not_enrolled' | 'offline'; message: string } };

/** The enrollment, the discovery document and the API key, or why the issuer cannot be asked. */
async function reach(deps: TicketSearchDeps): Promise<Reached> {
  const enrollment = deps.store.getEnrollment();
  if (!enrollment) return { outcome: { type: 'not_enrolled', message: deps.notEnrolled } };
  const document = await deps.link.documentFor(enrollment);
  const lookup = await deps.link.loadApiKey(enrollment);
  if ('unavailable' in lookup) return { outcome: { type: 'offline', message: lookup.unavailable } };
  if (!document || !lookup.key) return { outcome: { type: 'offline', message: 'the issuer has not been reached yet' } };
  return { document, apiKey: lookup.key, eid: enrollment.eid, gateId: enrollment.gate_id ?? null };
}

/** Why the issuer gave no answer, as the screen's "the search needs the issuer". */
function offline(call: CallFailure): { type: 'offline'; message: string } | { type: 'scanner_unauthorized'; message: string } {
  switch (call.kind) {
    case 'unauthorized':
      return { type: 'scanner_unauthorized', message: SCANNER_UNAUTHORIZED_MESSAGE };
    case 'rate_limited':
      return { type: 'offline', message: 'the issuer asks to slow down; try again shortly' };
    case 'unreachable':
      return { type: 'offline', message: `the issuer is unreachable (${call.detail})` };
    case 'server_error':
    case 'rejected':
      return { type: 'offline', message: `the issuer could not answer (HTTP ${call.status})` };
  }
}

export async function findTickets(deps: TicketSearchDeps, query: string): Promise<TicketSearchOutcome> {
  const reached = await reach(deps);
  if ('outcome' in reached) return reached.outcome;
  const url = (reached.document.endpoints as { ticket_search?: unknown }).ticket_search;
  if (typeof url !== 'string') return { type: 'offline', message: 'this issuer offers no ticket search' };
  const call = await deps.client.search(url, reached.apiKey, query.trim(), { timeoutMs: deps.link.interactiveTimeoutMs });
  deps.link.noteConnection(call);
  if (call.kind === 'answered') return { type: 'results', results: call.results, more: call.more };
  if (call.kind === 'action_not_allowed' || call.kind === 'invalid_query')
    return { type: call.kind === 'invalid_query' ? 'invalid_query' : 'not_allowed' };
  return offline(call);
}

/**
 * docs/kiosk.md "Finding a ticket": an entry with `manual_reason`, sent now and never queued (a person stands
 * there; without the issuer nothing is checked in and the screen says so). The kiosk's audit log records it
 * with the staff id, and the door shows the issuer's answer as a verdict. For a party ticket, `people` of it come
 * in (docs/kiosk.md "Party tickets"): the issuer judges the number against what remains, as at a scan.
 */
export async function checkInByHand(deps: TicketSearchDeps, tid: string, reason: string, people?: number): Promise<ManualCheckInOutcome> {
  const reached = await reach(deps);
  if ('outcome' in reached) return reached.outcome;
  const person = deps.staff.person();
  const badge = deps.staff.badgeCode();
  const request: DoorCheckInRequest = {
    tid,
    eid: reached.eid,
    scanned_at: new Date(deps.now()).toISOString(),
    scanner_id: deps.store.identity().scanner_id,
    ...(reached.gateId === null ? {} : { gate_id: reached.gateId }),
    idempotency_key: randomUUID(),
    action: 'entry',
    manual_reason: reason,
    ...(people === undefined ? {} : { people }),
    // docs/protocol.md "Check-in request: who at the door": the issuer records who, and checks the badge.
    ...(person ? { staff_id: person.staff_id } : {}),
    ...(badge ? { staff_badge: badge } : {}),
  };
  const call = await deps.client.checkIn(reached.document.endpoints.check_in, reached.apiKey, request, {
    timeoutMs: deps.link.interactiveTimeoutMs,
  });
  deps.link.noteConnection(call);
  const who = { staff_id: person?.staff_id ?? null, role: deps.staff.role() };
  const answer = call.kind === 'answered' ? call.response.status : call.kind;
  // Every attempt is in the chained log, the ones the issuer did not answer too.
  deps.store.auditStaff({
    action: 'manual_check_in',
    tid,
    reason,
    ...(people === undefined ? {} : { people }),
    idempotency_key: request.idempotency_key,
    answer,
    ...who,
  });
  const party = people === undefined ? '' : ` (${people} of the party)`;
  deps.log(`Manual check-in of ticket ${tid}${party} by staff${person ? ` (${person.staff_id})` : ''}: ${answer}.`);
  switch (call.kind) {
    case 'answered': {
      const verdict = manualVerdict(call.response, new Date(deps.now()).toISOString(), people);
      deps.store.auditVerdict(request.idempotency_key, verdict, person ? { staff_id: person.staff_id } : {});
      deps.show(verdict);
      return { type: 'verdict', verdict };
    }
    case 'not_found':
      return { type: 'not_found' };
    case 'action_not_allowed':
      return { type: 'not_allowed' };
    case 'signature_reported':
      return { type: 'offline', message: 'the issuer gave an unexpected answer' };
    default:
      return offline(call);
  }
}
