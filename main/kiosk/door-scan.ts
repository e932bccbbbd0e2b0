/**
 * One ticket scan at the door, the kiosk's I/O around the scan decision (docs/architecture.md "One scan at
 * the door, offline and online"): the offline checks of the code read (an unknown kid triggers one
 * rate-limited discovery refetch), the scan committed with a fresh idempotency key, the check-in sent within
 * the online budget, the verdict committed, then shown. When no request will be sent (known offline with a
 * scan the offline rules let through, lost authorisation), the scan and its verdict are one commit.
 *
 * At the top of main/kiosk/: it wires the store (store/), the issuer (sync/) and the decisions
 * (decide/scan-decision.ts, protocol/verdict.ts), and decides no verdict itself.
 */
import {
  type DiscoveryDocument,
  type OfflineEvaluation,
  type TicketPayload,
  type Verdict,
  type VerdictAttention,
} from '../../protocol/index.js';
import type { ScanResult } from './kiosk-api.js';
import { attentionFromAnswer, withAttention } from './decide/attention.js';
import { notesUrlOf } from '../../protocol/attention.js';
import { idCheckFromAnswer, type IdCheck } from '../../protocol/id-check.js';
import { handoutsFromAnswer, type Handout } from '../../protocol/handouts.js';
import type { IdCheckActor, PendingIdCheck } from './id-check-door.js';
import type { PendingParty } from './party-door.js';
import { knownParty, partyAfterAdmit, partyAfterExit } from './decide/party.js';
import { partySizeOf, partyStateFrom, type PartyState } from '../../protocol/party.js';
import type { EntryPolicy } from '../../protocol/door.js';
import type { PartyFacts } from './store/party.js';
import { decideCheckIn, evaluateScan, offlineOutcome, type DoorFacts } from './decide/scan-decision.js';
import type { Lane } from './decide/lanes.js';
import { verifyEd25519Node } from './node-ed25519.js';
import type { StaffAccess } from './staff-access.js';
import {
  checkInRequestFor,
  type Enrollment,
  type LocalStore,
  type NewScan,
  type StoredScan,
  type VerdictAuditExtra,
} from './store/local-store.js';
import type { BackgroundWork } from './sync/background.js';
import type { DiscoveryCache } from './sync/discovery.js';
import type { DrainSchedule } from './sync/drain-schedule.js';
import type { Heartbeat } from './sync/heartbeat.js';
import { SCANNER_UNAUTHORIZED_MESSAGE, type IssuerClient } from './sync/issuer-client.js';
import type { IssuerLink } from './sync/issuer-link.js';
import type { LanDoor } from './sync/lan-door.js';
import { storedAnswerOf } from './sync/queue-drain.js';
import type { RevocationSchedule, RevocationSync } from './sync/revocation-sync.js';

/** docs/kiosk.md "Handouts": offline checks a handout station passes (a ticket used at the door still gets its items). */
const STATION_PASSES = new Set<string>(['seen_here', 'seen_by_peer', 'rules']);

export const NOT_ENROLLED = 'this kiosk is not enrolled: scan a setup code';
const SCANNER_KEY_EXPIRED_MESSAGE = "this scanner's key has expired — re-enroll";
const STAFF_PIN_NEEDED = 'set a staff PIN first: this kiosk scans tickets once one is set';

export interface DoorScanDeps {
  store: LocalStore;
  client: IssuerClient;
  discovery: DiscoveryCache;
  link: IssuerLink;
  background: BackgroundWork;
  drains: DrainSchedule;
  heartbeat: Heartbeat;
  revocations: RevocationSync;
  revocationSchedule: RevocationSchedule;
  lan: LanDoor;
  staff: StaffAccess;
  now: () => number;
  /** Time the door waits for the issuer before taking the offline path. */
  budgetMs: number;
  kioskPolicy: DoorFacts['kioskPolicy'];
  /** The synced attention notes of a ticket (docs/kiosk.md "Attention notes"): what an ADMIT decided here shows. */
  notes: (payload: TicketPayload) => VerdictAttention | null;
  /**
   * docs/kiosk.md "ID checks": the check a ticket needs by the synced list (its type's check, its band); null: none;
   * `unsynced`: the kiosk has no list of this event yet (the issuer's status answer is asked instead).
   */
  idCheck: (payload: TicketPayload) => IdCheck | null | 'unsynced';
  /**
   * docs/kiosk.md "Handouts": what a ticket gets and what was given (the issuer's answer when it sent one, else the
   * synced list, with this kiosk's own handouts); null: no items.
   */
  handouts: (payload: TicketPayload, fromAnswer: Handout[] | null) => Handout[] | null;
  /** docs/kiosk.md "Handouts": this kiosk's key is a handout station's (the heartbeat's role): it never checks in. */
  isStation: () => boolean;
  /** Puts the scan on hold behind the ID screen (id-check-door.ts) and answers the page. */
  askIdCheck: (pending: Omit<PendingIdCheck, 'refused' | 'asked_at'>) => ScanResult;
  /** docs/kiosk.md "Party tickets": a ticket's party size by the synced list (1: one person); `unsynced`: no list yet. */
  partySize: (tid: string) => number | 'unsynced';
  /** The issuer's last answer about the ticket's party here and this kiosk's own unanswered entries of it. */
  partyFacts: (tid: string) => PartyFacts;
  /** Puts the scan on hold behind the party screen (party-door.ts) and answers the page. */
  askParty: (pending: Omit<PendingParty, 'refused' | 'asked_at'>) => ScanResult;
  /** Shows the verdict (on the scan's lane) and answers the page. */
  show: (verdict: Verdict, lane: Lane | null) => ScanResult;
  changed: () => void;
}

export class DoorScan {
  constructor(private readonly deps: DoorScanDeps) {}

  /**
   * One ticket scan (a trimmed text that is not a setup code) on its lane (null: no lanes). `options.idChecked`: the
   * steward confirmed the ID of this scan's holder (docs/kiosk.md "ID checks"): the check-in is sent with
   * `id_checked: true` and the staff id; without it a ticket whose type asks for a check waits for the ID screen.
   */
  async scan(
    text: string,
    lane: Lane | null,
    options: { idChecked?: { staff_id: string | null }; who?: IdCheckActor | null; people?: number } = {},
  ): Promise<ScanResult> {
    const { store, discovery, link, now } = this.deps;
    const stored = store.getEnrollment();
    const enrollment = stored && lane?.direction ? { ...stored, direction: lane.direction } : stored;
    if (!enrollment) return { type: 'not_enrolled', message: NOT_ENROLLED };
    // The setup code required a staff PIN: the door opens once one is set (docs/kiosk.md "Staff PIN").
    if (this.deps.staff.pinNeeded()) {
      store.auditDoorRefusal(null, 'staff_pin_needed', new Date(now()).toISOString());
      return { type: 'staff_pin_needed', message: STAFF_PIN_NEEDED };
    }
    // docs/protocol.md "Authentication": the key ends at expires_at; past it the door must not admit, even offline.
    if (Date.parse(enrollment.key_expires_at) <= now()) {
      store.auditDoorRefusal(null, 'scanner_key_expired', new Date(now()).toISOString());
      link.authorised = false;
      this.deps.changed();
      return { type: 'scanner_unauthorized', message: SCANNER_KEY_EXPIRED_MESSAGE };
    }

    let document = discovery.cached(enrollment.iss);
    if (!discovery.isFresh(enrollment.iss)) this.deps.background.run(this.refreshInBackground(enrollment.iss));
    let evaluation = this.evaluate(text, enrollment, document);
    if (!evaluation.pass && evaluation.check === 'key_known') {
      // docs/protocol.md "Versioning": an unknown kid may be a freshly rotated key. One refetch, rate-limited.
      const refetch = discovery.refreshLimited(enrollment.iss, this.deps.budgetMs);
      const result = refetch ? await refetch : null;
      if (result) link.noteRefresh(result);
      if (result?.ok) {
        document = result.document;
        evaluation = this.evaluate(text, enrollment, document);
      }
    }
    // docs/kiosk.md "Handouts": at a handout station a ticket used at the door is the usual case, not a refusal.
    if (
      !evaluation.pass &&
      this.deps.isStation() &&
      STATION_PASSES.has(evaluation.check) &&
      evaluation.claimed &&
      evaluation.signatureVerified
    )
      return this.stationScan(evaluation.claimed, enrollment, document!, lane);
    if (!evaluation.pass) {
      // docs/kiosk.md "The kiosk's audit log": every refusal is recorded, online or offline, with its reason.
      if (evaluation.check === 'signature' && evaluation.claimed?.eid === enrollment.eid) {
        this.reportInvalidSignature(text, evaluation.claimed, enrollment, evaluation.verdict);
      } else {
        store.auditVerdict(null, evaluation.verdict, this.auditExtra(evaluation.verdict));
      }
      return this.deps.show(evaluation.verdict, lane);
    }
    const payload = evaluation.ticket.payload;
    if (this.deps.isStation()) return this.stationScan(payload, enrollment, document!, lane);
    if (options.idChecked === undefined && enrollment.direction === 'entry') {
      // docs/kiosk.md "ID checks": the steward is asked before an entry is checked in, online and offline alike (an
      // exit is not an admission: no ID is asked).
      const asked = await this.idCheckFor(payload, enrollment, document!);
      if (asked !== null)
        return this.deps.askIdCheck({
          code: text,
          lane,
          check: asked.check,
          source: asked.source,
          tid: payload.tid,
          eid: payload.eid,
          holder_name: payload.hn ?? null,
          ticket_type: payload.tt ?? null,
          scannedBy: options.who ?? null,
        });
    }
    if (options.people === undefined) {
      // docs/kiosk.md "Party tickets": a ticket of several people asks how many come in now, after its ID check, or at
      // an exit how many leave now (1..inside). With nobody inside as far as the door knows, an exit goes out as one
      // person's: the issuer answers not_inside, and offline the door lets them out as it does any ticket.
      const party = await this.partyFor(payload, enrollment, document!);
      const exit = enrollment.direction === 'exit';
      const most = party === null ? 0 : exit ? party.state.inside : party.state.remaining;
      if (party !== null && most > 0)
        return this.deps.askParty({
          direction: enrollment.direction,
          code: text,
          lane,
          tid: payload.tid,
          eid: payload.eid,
          holder_name: payload.hn ?? null,
          ticket_type: payload.tt ?? null,
          party: party.state,
          source: party.source,
          ...(options.idChecked === undefined ? {} : { idChecked: options.idChecked }),
        });
      // Nobody of the party may come in by what this kiosk knows (the issuer did not answer just now): that is the
      // answer. By the issuer's status just now, the check-in goes out and the issuer answers already_used.
      if (!exit && party !== null && party.source === 'known') return this.partyUsedUp(payload, party.state, lane);
    }
    return this.checkIn(text, payload, enrollment, document!, lane, options.idChecked, options.people);
  }

  /**
   * The party a ticket has, with the counts the door goes by: online the issuer's status answer (within the budget),
   * else the synced list's size with the issuer's last answer here and this kiosk's own entries since
   * (decide/party.ts knownParty). Null: a ticket of one person (or none known).
   */
  private async partyFor(
    payload: TicketPayload,
    enrollment: Enrollment,
    document: DiscoveryDocument,
  ): Promise<{ state: PartyState; source: 'issuer' | 'known' } | null> {
    // Only a ticket known to be a party (the synced list, or before it the issuer's last answer here) costs a status
    // request: every other scan goes out as before, and the issuer counts it as one person.
    if (!this.isParty(payload.tid)) return null;
    const listed = this.deps.partySize(payload.tid);
    const policy = this.deps.heartbeat.last(enrollment)?.response.entry_policy ?? 'single';
    const { link } = this.deps;
    if (link.authorised && link.connection !== 'offline') {
      const lookup = await link.loadApiKey(enrollment);
      if ('key' in lookup && lookup.key !== null) {
        const call = await this.deps.client.status(document.endpoints.status, lookup.key, payload.tid, { timeoutMs: this.deps.budgetMs });
        if (call.kind === 'answered') {
          const party = partyStateFrom((call.status as { party?: unknown }).party);
          if (party === null) return null;
          const facts = this.deps.partyFacts(payload.tid);
          return {
            state: knownParty(party.size, party, facts.own, [], policy),
            source: 'issuer',
          };
        }
      }
    }
    const facts = this.deps.partyFacts(payload.tid);
    const size = listed === 'unsynced' ? (facts.lastAnswer?.size ?? 1) : listed;
    // Offline, the parts and exits LAN peers told of count too (docs/kiosk.md "Party tickets").
    const peers = this.deps.lan.peerMoves(payload.tid, facts.lastAnsweredAt);
    return {
      state: knownParty(partySizeOf(size), facts.lastAnswer, facts.own, peers, policy),
      source: 'known',
    };
  }

  /** Offline, a party this kiosk knows to be used up: refused here as `already_used`, nothing queued. */
  private partyUsedUp(payload: TicketPayload, party: PartyState, lane: Lane | null): ScanResult {
    const verdict: Verdict = {
      kind: 'refuse',
      reason: 'already_used',
      decided_at: new Date(this.deps.now()).toISOString(),
      offline: true,
      decided_by: 'seen_here',
      ticket: {
        tid: payload.tid,
        eid: payload.eid,
        ...(payload.hn === undefined ? {} : { holder_name: payload.hn }),
        ...(payload.tt === undefined ? {} : { ticket_type: payload.tt }),
      },
      party,
      detail: 'every person of this party ticket is in, as this kiosk last knew',
    };
    this.deps.store.auditVerdict(null, verdict, {});
    return this.deps.show(verdict, lane);
  }

  /**
   * The check a ticket needs: the synced list's (type check and band, the issuer's own rule); a kiosk without the
   * list yet asks the issuer's status (its `id_check` extension) within the online budget, before any check-in.
   * Offline and without a list there is nothing to ask: the door decides as before (docs/kiosk.md "ID checks").
   */
  private async idCheckFor(
    payload: TicketPayload,
    enrollment: Enrollment,
    document: DiscoveryDocument,
  ): Promise<{ check: IdCheck; source: 'list' | 'status' } | null> {
    const local = this.deps.idCheck(payload);
    if (local !== 'unsynced') return local === null ? null : { check: local, source: 'list' };
    const { link } = this.deps;
    // Only an issuer with the notes list has ID checks; only one heard from lately is asked (a scan of an issuer
    // that has just gone away must not wait two budgets). Until the first sync completes, that is one extra request.
    if (notesUrlOf(document) === null || !link.authorised || link.connection !== 'online') return null;
    const lookup = await link.loadApiKey(enrollment);
    if (!('key' in lookup) || lookup.key === null) return null;
    const call = await this.deps.client.status(document.endpoints.status, lookup.key, payload.tid, { timeoutMs: this.deps.budgetMs });
    if (call.kind !== 'answered') return null;
    const check = idCheckFromAnswer(call.status);
    return check === null ? null : { check, source: 'status' };
  }

  /**
   * docs/kiosk.md "The kiosk's audit log": a read the page found typed through another keyboard layout is
   * refused on screen by the page (docs/kiosk.md "Scanner settings"); its refusal is recorded here like every
   * other. Nothing is decided from the text: it is not the code the scanner read.
   */
  refuseForeignLayout(layout: string): ScanResult {
    this.deps.store.auditDoorRefusal(null, 'layout_mismatch', new Date(this.deps.now()).toISOString(), { keyboard_layout: layout });
    return { type: 'layout_mismatch', layout };
  }

  /** A discovery document past its age is refreshed without holding the scan; a heartbeat follows a good refresh. */
  async refreshInBackground(iss: string): Promise<void> {
    const { discovery, link, background } = this.deps;
    const refresh = discovery.refreshLimited(iss, link.interactiveTimeoutMs);
    if (!refresh) return;
    const result = await refresh;
    if (!background.closed) link.noteRefresh(result);
    if (result.ok && !background.closed) await this.deps.heartbeat.run(); // docs/protocol.md "Scanner heartbeat": after each discovery refresh
  }

  private unauthorised(tid: string): ScanResult {
    this.deps.store.auditDoorRefusal(tid, 'scanner_unauthorized', new Date(this.deps.now()).toISOString());
    this.deps.link.authorised = false;
    this.deps.changed();
    return { type: 'scanner_unauthorized', message: SCANNER_UNAUTHORIZED_MESSAGE };
  }

  /**
   * What a verdict's audit record adds (docs/kiosk.md "The kiosk's audit log"): for a `seen_by_peer`
   * refusal, the peer kiosk (scanner id, gate) whose admission refused it.
   */
  private auditExtra(verdict: Verdict): VerdictAuditExtra {
    if (verdict.kind !== 'refuse' || verdict.decided_by !== 'seen_by_peer' || !verdict.ticket) return {};
    const peer = this.deps.lan.admissionOf(verdict.ticket.tid);
    return peer ? { peer: { scanner_id: peer.scanner_id, gate: peer.gate, admitted_at: peer.admitted_at } } : {};
  }

  /** What the scan decision knows of this door (decide/scan-decision.ts), read from the store and the LAN when asked. */
  private facts(enrollment: Enrollment): DoorFacts {
    const { store, heartbeat, revocations, lan } = this.deps;
    return {
      direction: enrollment.direction,
      eid: enrollment.eid,
      gateId: enrollment.gate_id,
      kioskPolicy: this.deps.kioskPolicy,
      heartbeat: () => heartbeat.last(enrollment),
      revocations: () => revocations.offlineList(enrollment),
      // docs/kiosk.md "Party tickets": a party ticket's earlier admissions are parts of it, judged by the party's
      // counts (partyFor), not a second use.
      firstAdmissionAt: (tid) => (this.isParty(tid) ? undefined : store.firstAdmissionAt(tid)),
      admissionTimes: (tid) => store.admissionTimes(tid),
      peerAdmission: (tid) => (this.isParty(tid) ? undefined : lan.admissionOf(tid)),
      offlineAdmissionsSince: (since) => store.offlineAdmissionsSince(since),
    };
  }

  /** A ticket of several people by the synced list, or (no list yet) by the issuer's last answer about it here. */
  private isParty(tid: string): boolean {
    const listed = this.deps.partySize(tid);
    return listed === 'unsynced' ? (this.deps.partyFacts(tid).lastAnswer?.size ?? 1) > 1 : listed > 1;
  }

  private evaluate(text: string, enrollment: Enrollment, document: DiscoveryDocument | null): OfflineEvaluation {
    return evaluateScan(text, this.facts(enrollment), {
      issuer: enrollment.iss,
      keys: document?.keys ?? [],
      nowMs: this.deps.now(),
      knownOffline: this.deps.link.connection === 'offline',
      verify: verifyEd25519Node,
    });
  }

  /**
   * docs/protocol.md "Reporting a failed signature": queued like a check-in
   * (so it survives being offline) with signature_status "invalid". The verdict
   * is already decided locally; the issuer's 400 only confirms it was logged.
   */
  private reportInvalidSignature(code: string, claimed: TicketPayload, enrollment: Enrollment, verdict: Verdict): void {
    const { store } = this.deps;
    store.atomically(() => {
      const scan = store.insertScan({
        ...this.scanAtThisDoor(code, claimed, enrollment, new Date(this.deps.now()).toISOString()),
        signature_status: 'invalid',
        queue_state: 'pending',
        verdict,
      });
      store.auditVerdict(scan.idempotency_key, verdict);
    });
    this.deps.drains.soon();
  }

  /** What every queued scan records of itself: the code, its ticket, this door, and when (the check-in request is made from it). */
  private scanAtThisDoor(
    code: string,
    ticket: Pick<TicketPayload, 'tid' | 'eid'>,
    enrollment: Enrollment,
    scannedAt: string,
  ): Omit<NewScan, 'signature_status' | 'queue_state' | 'verdict'> {
    return {
      code,
      iss: enrollment.iss,
      tid: ticket.tid,
      eid: ticket.eid,
      gate_id: enrollment.gate_id,
      scanner_id: this.deps.store.identity().scanner_id,
      scanned_at: scannedAt,
    };
  }

  private async checkIn(
    code: string,
    payload: TicketPayload,
    enrollment: Enrollment,
    document: DiscoveryDocument,
    lane: Lane | null,
    idChecked?: { staff_id: string | null },
    people?: number,
  ): Promise<ScanResult> {
    const { store, link, drains, now } = this.deps;
    // docs/kiosk.md "Party tickets": a part of a party was picked within what remains, so this kiosk's own earlier
    // admissions of the ticket (and its peers') are the party's, not a second use.
    const party = people === undefined ? null : this.knownPartyNow(payload, enrollment);
    const doorFacts = this.facts(enrollment);
    // A party ticket sent without people (its party used up by the issuer's status): offline, this kiosk's own
    // admissions of it refuse it as for any ticket.
    const facts: DoorFacts =
      people === undefined
        ? {
            ...doorFacts,
            firstAdmissionAt: (tid) => store.firstAdmissionAt(tid),
            peerAdmission: (tid) => this.deps.lan.admissionOf(tid),
          }
        : { ...doorFacts, firstAdmissionAt: () => undefined, peerAdmission: () => undefined };
    const scannedAt = new Date(now()).toISOString();
    const action = enrollment.direction;
    // Known offline and the offline rules would let the person through (an exit; an entry the
    // exposure policy admits): do not make the queue wait a full budget per person. A refusal is
    // worth one more try of the issuer.
    const knownOffline = link.connection === 'offline' ? offlineOutcome(payload, facts, scannedAt) : null;
    const skipOnline = knownOffline?.queueState === 'pending';
    // The key is read only when a request may go out: each read is a keyring round trip (D-Bus on
    // Linux, milliseconds, tens under load) that a known-offline scan does not need. Not cached:
    // between requests the key stays in the keyring only, with no copy to invalidate.
    const lookup = link.authorised && !skipOnline ? await link.loadApiKey(enrollment) : null;
    // A keyring that fails right now (locked, D-Bus restarting) is not a lost authorisation: the offline path.
    const keyringDown = lookup !== null && 'unavailable' in lookup;
    const apiKey = lookup !== null && 'key' in lookup ? lookup.key : null;
    // A held scan of this ticket (strict offline refusal, or lost authorisation) is resent as it was:
    // same body, same idempotency key, so an earlier request that did land is answered consistently.
    const heldScan = store.heldScanFor(payload.tid);
    // Only a held scan of the same action (a kiosk turned from entry to exit holds on to its entries).
    const held = heldScan && (heldScan.action ?? 'entry') === action ? heldScan : null;
    const newScan = (queueState: NewScan['queue_state'], sentAsOffline = false): StoredScan =>
      store.insertScan({
        ...this.scanAtThisDoor(code, payload, enrollment, scannedAt),
        signature_status: 'valid',
        queue_state: queueState,
        action,
        ticket_type: payload.tt ?? null,
        sent_as_offline: sentAsOffline,
        // docs/kiosk.md "ID checks": the steward confirmed the ID; the check-in carries it and who.
        ...(idChecked === undefined ? {} : { id_checked: true, staff_id: idChecked.staff_id }),
        ...(people === undefined ? {} : { people }),
      });

    if (!apiKey) {
      // No request goes out (known offline, lost authorisation, no key, or the keyring failing for
      // now): the outcome is known already, so the scan is committed once, with its verdict (one
      // transaction, one fsync instead of two), still before anything is shown.
      if (!link.authorised || (!skipOnline && !keyringDown)) {
        if (!held) newScan('held'); // kept, not sent: rescanning after a re-enrollment sends it, same key
        return this.unauthorised(payload.tid);
      }
      // Decided before any request went out: the request says so (`admitted_offline`, docs/protocol.md "Door operations").
      // Known offline: decided above already, at the scan's time.
      const { verdict, queueState } = knownOffline ?? offlineOutcome(payload, facts, new Date(now()).toISOString());
      store.atomically(() =>
        store.decideScan(
          (held ?? newScan(queueState, verdict.kind !== 'refuse')).idempotency_key,
          verdict,
          queueState,
          this.auditExtra(verdict),
        ),
      );
      if (queueState === 'pending') drains.firstRetryUnlessScheduled();
      return this.deps.show(this.withLocalParty(this.withLocalNotes(verdict, payload), party, people), lane);
    }

    // A request goes out: the scan (with its idempotency key) is committed BEFORE it is sent, so a
    // crash after sending resends the same key (docs/protocol.md "Idempotency and offline scans"; every acknowledged check-in
    // survives a crash).
    let scan: StoredScan;
    if (held) {
      store.setQueueState(held.idempotency_key, 'sending');
      scan = held;
    } else {
      scan = newScan('sending');
    }
    const call = await this.deps.client.checkIn(document.endpoints.check_in, apiKey, checkInRequestFor(scan), {
      timeoutMs: this.deps.budgetMs,
    });
    link.noteConnection(call);
    const decidedAt = new Date(now()).toISOString();
    const decision = decideCheckIn(call, payload, facts, decidedAt);

    if (decision.kind === 'answered') {
      store.atomically(() => {
        store.recordAnswer(scan.idempotency_key, storedAnswerOf(call, decidedAt)!);
        store.decideScan(scan.idempotency_key, decision.verdict, 'done');
      });
      if (call.kind === 'answered' && this.deps.heartbeat.noteOccupancy(enrollment, call.response.occupancy)) this.deps.changed();
      // Revocations are final: a ticket the issuer says is revoked stays refused here offline too.
      if (call.kind === 'answered' && call.response.status === 'revoked') store.addRevoked(payload.tid);
      if (store.pendingCount() > 0) drains.soon(); // the issuer is back: flush the queue
      this.deps.revocationSchedule.runIfBehind();
      // The issuer decided: its `attention` answer, never the local list (it knows the newest notes).
      const attention = call.kind === 'answered' ? attentionFromAnswer(call.response) : null;
      const handouts = call.kind === 'answered' ? handoutsFromAnswer(call.response) : null;
      const shown = this.withHandouts(withAttention(decision.verdict, attention), payload, handouts);
      return this.deps.show(
        people !== undefined && shown.party !== undefined ? { ...shown, party: { ...shown.party, people } } : shown,
        lane,
      );
    }
    if (decision.kind === 'unauthorized') {
      store.setQueueState(scan.idempotency_key, 'held');
      return this.unauthorised(payload.tid);
    }

    // Offline path after trying: the request already went out without `admitted_offline`, and a replay must be
    // the same body: it is queued as it was.
    const { verdict, queueState, final } = decision;
    store.atomically(() => {
      if (final) store.recordAnswer(scan.idempotency_key, storedAnswerOf(call, decidedAt)!);
      store.decideScan(scan.idempotency_key, verdict, queueState, this.auditExtra(verdict));
    });
    if (queueState === 'pending') {
      // docs/protocol.md "Rate limits": a 429 at the door also delays the queue by its Retry-After.
      const retryAfterMs = call.kind === 'rate_limited' ? call.retryAfterMs : undefined;
      const due = drains.firstRetryAt(retryAfterMs);
      if (retryAfterMs !== undefined) {
        store.recordRetry(scan.idempotency_key, due, 'RATE_LIMITED');
        drains.holdUntil(due);
      }
      drains.atUnlessScheduled(due);
    }
    return this.deps.show(this.withLocalParty(this.withLocalNotes(verdict, payload), party, people), lane);
  }

  /** The party's counts as this kiosk knows them now (no request): the list's size, the last answer, its own entries. */
  private knownPartyNow(payload: TicketPayload, enrollment: Enrollment): { state: PartyState; policy: EntryPolicy } | null {
    const listed = this.deps.partySize(payload.tid);
    const facts = this.deps.partyFacts(payload.tid);
    const size = listed === 'unsynced' ? (facts.lastAnswer?.size ?? 1) : listed;
    if (size === 1) return null;
    const policy = this.deps.heartbeat.last(enrollment)?.response.entry_policy ?? 'single';
    const peers = this.deps.lan.peerMoves(payload.tid, facts.lastAnsweredAt);
    return { state: knownParty(size, facts.lastAnswer, facts.own, peers, policy), policy };
  }

  /**
   * An ADMIT of a party's part decided here says how many are in now, as the kiosk knows it (decide/party.ts); an
   * EXIT, how many are still inside.
   */
  private withLocalParty(verdict: Verdict, known: { state: PartyState; policy: EntryPolicy } | null, people: number | undefined): Verdict {
    if (known === null || people === undefined) return verdict;
    // `known` was read before this scan was stored: its people come on top (or go out).
    if (verdict.kind === 'admit') return { ...verdict, party: partyAfterAdmit(known.state, people, known.policy) };
    if (verdict.kind === 'exit') return { ...verdict, party: partyAfterExit(known.state, people, known.policy) };
    return verdict;
  }

  /** An ADMIT decided here shows the synced notes, so offline gives the screen online would (decide/attention.ts). */
  private withLocalNotes(verdict: Verdict, payload: TicketPayload): Verdict {
    return verdict.kind === 'admit' ? this.withHandouts(withAttention(verdict, this.deps.notes(payload)), payload, null) : verdict;
  }

  /** docs/kiosk.md "Handouts": an ADMIT carries what the person gets; any other verdict as it was. */
  private withHandouts(verdict: Verdict, payload: TicketPayload, fromAnswer: Handout[] | null): Verdict {
    if (verdict.kind !== 'admit') return verdict;
    const handouts = this.deps.handouts(payload, fromAnswer);
    return handouts === null ? verdict : { ...verdict, handouts };
  }

  /**
   * docs/kiosk.md "Handouts": a handout station's scan. Nothing is checked in, queued or told to LAN peers: the
   * HANDOUT screen shows the ticket's items, from the issuer's status answer within the online budget, else the
   * synced list, with this kiosk's own handouts. Recorded in the audit log as a verdict.
   */
  private async stationScan(
    payload: TicketPayload,
    enrollment: Enrollment,
    document: DiscoveryDocument,
    lane: Lane | null,
  ): Promise<ScanResult> {
    const { link, now } = this.deps;
    let fromAnswer: Handout[] | null = null;
    let offline = true;
    if (link.authorised && link.connection !== 'offline') {
      const lookup = await link.loadApiKey(enrollment);
      if ('key' in lookup && lookup.key !== null) {
        const call = await this.deps.client.status(document.endpoints.status, lookup.key, payload.tid, { timeoutMs: this.deps.budgetMs });
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
      handouts: this.deps.handouts(payload, fromAnswer) ?? [],
    };
    this.deps.store.auditVerdict(null, verdict, {});
    return this.deps.show(verdict, lane);
  }
}
