/**
 * Sending the handouts confirmed at this kiosk (docs/kiosk.md "Handouts"; docs/protocol.md "Handouts (project
 * extension)"): each committed before it is sent, with its id as the issuer's idempotency key, so a crash or a lost
 * answer sends the same handout again and the issuer records it once. `give` is the steward's tap: the one rule
 * (protocol/handouts.ts decideHandout) on what the kiosk knows, then the issuer's answer when it answers in time, else
 * the handout waits in the queue and the drain sends it (drain-pass.ts). In sync/: it talks to the issuer.
 */
import crypto from 'node:crypto';
import { decideHandout, type GivenRow, type Handout, type HandoutGiven, type HandoutRequest } from '../../../protocol/handouts.js';
import type { Enrollment, LocalStore } from '../store/local-store.js';
import type { LocalHandout } from '../store/handouts.js';
import type { HandoutCall, IssuerClient } from './issuer-client.js';

/** What the page is told after a tap. */
export type GiveResult =
  /** `recorded`: the handout committed here (its id, ticket, item and time), which LAN peers are told of. */
  | { kind: 'given'; offline: boolean; handouts: Handout[]; recorded: { hid: string; tid: string; item: string; given_at: string } }
  | { kind: 'refused'; reason: 'not_listed' | 'already_given'; given: HandoutGiven[]; handouts: Handout[] }
  | { kind: 'failed'; message: string };

export interface HandoutSender {
  client: IssuerClient;
  /** The endpoint from the discovery document, or null (an issuer without handouts: nothing is sent). */
  url: string | null;
  apiKey: string | null;
  timeoutMs: number;
}

const requestOf = (row: Pick<LocalHandout, 'hid' | 'tid' | 'eid' | 'item' | 'given_at' | 'gate_id' | 'staff_id'>): HandoutRequest => ({
  handout_id: row.hid,
  tid: row.tid,
  eid: row.eid,
  item: row.item,
  given_at: row.given_at,
  ...(row.gate_id === null ? {} : { gate_id: row.gate_id }),
  ...(row.staff_id === null ? {} : { staff_id: row.staff_id }),
});

/** The outcome of one send for the queue: settled (with what to record) or still pending. */
function settleOf(call: HandoutCall): { status: string } | null {
  if (call.kind === 'answered') return { status: call.answer.status };
  if (call.kind === 'not_found') return { status: 'not_found' };
  if (call.kind === 'conflict') return { status: 'conflict' };
  if (call.kind === 'action_not_allowed') return { status: 'forbidden' };
  return null;
}

/**
 * The steward's tap on an item of `tid` (docs/kiosk.md "Handouts"): refused from what the kiosk knows (the issuer's
 * last answer, the synced list, its own handouts and those its LAN peers told of, `ticket.peers`) when the item is not
 * listed or all given, with when and where;
 * else committed, then sent at once; the issuer's refusal (another kiosk gave it meanwhile) is shown as such.
 */
export async function give(
  store: LocalStore,
  enrollment: Enrollment,
  sender: HandoutSender,
  ticket: { tid: string; ticketType: string | null; known: Handout[] | null; peers?: readonly GivenRow[] },
  item: string,
  who: { staff_id: string | null; scannerName: string },
  now: () => number,
): Promise<GiveResult> {
  const handouts = store.handouts.handoutsFor(ticket.tid, ticket.ticketType, who.scannerName, ticket.known, ticket.peers) ?? [];
  const decision = decideHandout(handouts, item);
  if (!decision.ok)
    return { kind: 'refused', reason: decision.reason, given: decision.reason === 'already_given' ? decision.given : [], handouts };
  const row = {
    hid: crypto.randomUUID(),
    iss: enrollment.iss,
    eid: enrollment.eid,
    tid: ticket.tid,
    item,
    gate_id: enrollment.gate_id ?? null,
    staff_id: who.staff_id,
    given_at: new Date(now()).toISOString(),
  };
  // Committed before anything is sent or shown: every confirmed handout survives a crash.
  store.handouts.record(row);
  const after = (): Handout[] =>
    store.handouts.handoutsFor(ticket.tid, ticket.ticketType, who.scannerName, ticket.known, ticket.peers) ?? [];
  const recorded = { hid: row.hid, tid: row.tid, item: row.item, given_at: row.given_at };
  if (sender.url === null || sender.apiKey === null) return { kind: 'given', offline: true, handouts: after(), recorded };
  const call = await sender.client.handout(sender.url, sender.apiKey, requestOf(row), { timeoutMs: sender.timeoutMs });
  const settled = settleOf(call);
  if (settled === null) {
    store.handouts.noteAttempt(row.hid);
    return { kind: 'given', offline: true, handouts: after(), recorded };
  }
  store.handouts.settle(row.hid, settled.status, call.kind === 'answered' ? call.answer : null, new Date(now()).toISOString());
  if (call.kind === 'answered' && call.answer.status === 'refused')
    return {
      kind: 'refused',
      reason: call.answer.reason ?? 'already_given',
      given: call.answer.given ?? [],
      handouts: call.answer.handouts,
    };
  if (call.kind === 'answered') return { kind: 'given', offline: false, handouts: call.answer.handouts, recorded };
  return { kind: 'failed', message: `the issuer did not take the handout (${settled.status})` };
}

/**
 * One pass over the pending handouts of the enrolled issuer; stops at the first send without an answer (offline).
 * Returns how many are still pending, and the ones the issuer refused in this pass (an offline second handout).
 */
export async function drainHandouts(
  store: LocalStore,
  enrollment: Enrollment,
  sender: HandoutSender,
  now: () => number,
): Promise<{ left: number; refused: LocalHandout[] }> {
  const refused: LocalHandout[] = [];
  if (sender.url === null || sender.apiKey === null) return { left: store.handouts.pendingCount(), refused };
  for (const row of store.handouts.pending(enrollment.iss)) {
    const call = await sender.client.handout(sender.url, sender.apiKey, requestOf(row), { timeoutMs: sender.timeoutMs });
    const settled = settleOf(call);
    if (settled === null) {
      store.handouts.noteAttempt(row.hid);
      break;
    }
    store.handouts.settle(row.hid, settled.status, call.kind === 'answered' ? call.answer : null, new Date(now()).toISOString());
    if (settled.status === 'refused') refused.push(row);
  }
  return { left: store.handouts.pendingCount(), refused };
}
