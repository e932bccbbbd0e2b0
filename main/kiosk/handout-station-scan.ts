/**
 * A handout station's scan (docs/kiosk.md "Handouts"): its key is a handout station's (the heartbeat's role), so it
 * never checks in; a ticket used at the door is the usual case there, not a refusal (STATION_PASSES). door-scan.ts
 * sends a station's ticket scans here once the code's signature is verified.
 */
import type { DiscoveryDocument, TicketPayload, Verdict } from '../../protocol/index.js';
import { handoutsFromAnswer, type Handout } from '../../protocol/handouts.js';
import type { Lane } from './decide/lanes.js';
import type { ScanResult } from './kiosk-api.js';
import type { Enrollment, LocalStore } from './store/local-store.js';
import type { IssuerClient } from './sync/issuer-client.js';
import type { IssuerLink } from './sync/issuer-link.js';

/** docs/kiosk.md "Handouts": offline checks a handout station passes (a ticket used at the door still gets its items). */
export const STATION_PASSES = new Set<string>(['seen_here', 'seen_by_peer', 'rules']);

/** What a station's scan reads and writes: the issuer (status within the budget), the handout list, the audit log. */
export interface StationScanDeps {
  store: LocalStore;
  client: IssuerClient;
  link: IssuerLink;
  now: () => number;
  /** Time the door waits for the issuer before taking the offline path. */
  budgetMs: number;
  /** What a ticket gets and what was given (the issuer's answer when it sent one, else the synced list, with this kiosk's own handouts). */
  handouts: (payload: TicketPayload, fromAnswer: Handout[] | null) => Handout[] | null;
  /** Shows the verdict (on the scan's lane) and answers the page. */
  show: (verdict: Verdict, lane: Lane | null) => ScanResult;
}

/**
 * docs/kiosk.md "Handouts": a handout station's scan. Nothing is checked in, queued or told to LAN peers: the
 * HANDOUT screen shows the ticket's items, from the issuer's status answer within the online budget, else the
 * synced list, with this kiosk's own handouts. Recorded in the audit log as a verdict.
 */
export async function stationScan(
  deps: StationScanDeps,
  payload: TicketPayload,
  enrollment: Enrollment,
  document: DiscoveryDocument,
  lane: Lane | null,
): Promise<ScanResult> {
  const { link, now } = deps;
  let fromAnswer: Handout[] | null = null;
  let offline = true;
  if (link.authorised && link.connection !== 'offline') {
    const lookup = await link.loadApiKey(enrollment);
    if ('key' in lookup && lookup.key !== null) {
      const call = await deps.client.status(document.endpoints.status, lookup.key, payload.tid, { timeoutMs: deps.budgetMs });
      link.noteConnection(call);
      if (call.kind === 'answered') {
        offline = false;
        fromAnswer = handoutsFromAnswer(call.status) ?? [];
      }
    }
  }
  const verdict: Verdict = {
    kind: 'admit',
    station: 'handout',
    decided_at: new Date(now()).toISOString(),
    offline,
    decided_by: offline ? 'offline_policy' : 'issuer',
    ticket: {
      tid: payload.tid,
      eid: payload.eid,
      ...(payload.hn === undefined ? {} : { holder_name: payload.hn }),
      ...(payload.tt === undefined ? {} : { ticket_type: payload.tt }),
    },
    handouts: deps.handouts(payload, fromAnswer) ?? [],
  };
  deps.store.auditVerdict(null, verdict, {});
  return deps.show(verdict, lane);
}
