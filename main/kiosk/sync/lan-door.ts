/**
 * This kiosk among the kiosks on one LAN (docs/kiosk.md "Kiosks on one LAN"): it joins the event's LAN with
 * the event's LAN key once enrolled, tells its peers of each admission and of each annulment the issuer
 * confirmed, and looks up what they admitted. Whether a peer's admission counts is the scan decision's
 * (decide/scan-decision.ts peerAdmission). In sync/: the wiring between the kiosk's store and the LAN
 * transport (lan-peers.ts, lan-transport.ts), which the host starts.
 */
import { ANNULMENT_RECEIPT_PREFIX } from '../../../protocol/annulment-receipt.js';
import type { Verdict } from '../../../protocol/index.js';
import type { ApiKeyStore } from '../store/api-key-store.js';
import type { LocalStore } from '../store/local-store.js';
import type { BackgroundWork } from './background.js';
import type { DiscoveryCache } from './discovery.js';
import { parseLanCredential } from './enrollment.js';
import { lanSigningKey } from './lan-certificate.js';
import type { GivenRow } from '../../../protocol/handouts.js';
import { isLabel } from './lan-fields.js';
import { eventWindowOf, type LanHandout, type OwnMovesSince, type PeerAdmission, type PeerMove, type PeerNetwork } from './lan-peers.js';

export interface LanDoorDeps {
  /** The LAN, when the host started one. */
  lan: PeerNetwork | undefined;
  store: LocalStore;
  apiKeys: ApiKeyStore;
  /** The issuer's published keys, against which peers' certificates are checked. */
  discovery: DiscoveryCache;
  background: BackgroundWork;
  log: (line: string) => void;
  /** The issuer's time as this kiosk knows it (docs/kiosk.md "The kiosk's clock"): the LAN's time checks go by it. */
  now?: () => number;
}

export class LanDoor {
  constructor(private readonly deps: LanDoorDeps) {}

  /** The host started a LAN for this kiosk. */
  get present(): boolean {
    return this.deps.lan !== undefined;
  }

  /** Joins the event's LAN with this kiosk's own key and certificate from the keyring; without them (an older issuer), leaves it. */
  async join(): Promise<void> {
    const { lan, store, background, log } = this.deps;
    const enrollment = store.getEnrollment();
    if (!lan || !enrollment || background.closed) return;
    let stored: string | null = null;
    try {
      stored = (await this.deps.apiKeys.loadLanKey?.({ iss: enrollment.iss, scanner_id: store.identity().scanner_id })) ?? null;
    } catch (error) {
      log(`LAN warnings off: the LAN key could not be read (${error instanceof Error ? error.message : 'the secret store failed'}).`);
    }
    if (background.closed) return;
    const credential = parseLanCredential(stored);
    const signing = credential ? lanSigningKey(credential.secret) : null;
    if (!credential || !signing) {
      lan.leave();
      log('LAN warnings off: no LAN certificate for this kiosk (the issuer gives none; re-enroll after updating it).');
      return;
    }
    const { discovery } = this.deps;
    lan.join(
      {
        eid: enrollment.eid,
        scannerId: store.identity().scanner_id,
        gate: enrollment.gate_id,
        signer: { privateKey: signing.privateKey, certificate: credential.certificate },
        trust: {
          iss: enrollment.iss,
          keys: () => discovery.cached(enrollment.iss)?.keys ?? [],
          revokedScanners: () => store.revokedScanners(enrollment.eid),
        },
        // docs/kiosk.md "Kiosks on one LAN": a peer's admission dated outside the event's days is not believed.
        eventWindow: eventWindowOf(enrollment.event_date, enrollment.key_expires_at),
        // docs/kiosk.md "Party tickets": a party's parts at other doors are kept up to its size.
        partySize: (tid) => {
          const size = store.partySizeOf(tid);
          return size === 'unsynced' ? 1 : size;
        },
        // A kiosk whose own clock is off still dates and judges messages as its peers do (docs/kiosk.md "Kiosks on one LAN").
        ...(this.deps.now ? { clock: this.deps.now } : {}),
      },
      (since, limit) =>
        store.admissionsSince(since, limit).map((row) => ({
          tid: row.tid,
          admitted_at: row.admitted_at,
          gate: enrollment.gate_id,
          offline: row.admitted_offline === 1,
          ...(row.people !== null && row.people > 1 ? { people: row.people } : {}),
        })),
      (since, limit) =>
        store
          .annulmentsSince(since, limit)
          .map((row) => ({ tid: row.tid, admitted_at: row.annulled_at, gate: enrollment.gate_id, offline: false, ...receiptField(row) })),
      this.ownMovesSince(enrollment.gate_id),
    );
  }

  /** docs/kiosk.md "Kiosks on one LAN": a catch-up answer carries this kiosk's exits and handouts too. */
  private ownMovesSince(gate: string | null): OwnMovesSince {
    const { store } = this.deps;
    return {
      exits: (since, limit) =>
        store.exitsSince(since, limit).map((row) => ({
          tid: row.tid,
          exited_at: row.exited_at,
          gate,
          offline: row.offline === 1,
          people: Math.max(1, row.people ?? 1),
        })),
      handouts: (since, limit) =>
        store.handoutsSince(since, limit).map((row) => ({
          hid: row.hid,
          tid: row.tid,
          item: row.item,
          given_at: row.given_at,
          gate,
          scanner: this.scannerName(),
        })),
    };
  }

  /** The name the issuer shows for this kiosk's handouts ("given at Door 1 (North)"), else its scanner id. */
  private scannerName(): string {
    const identity = this.deps.store.identity();
    return isLabel(identity.scanner_name, 100) ? identity.scanner_name : identity.scanner_id;
  }

  /** Every admission, online or not: a peer that goes offline later needs to know it too. */
  publishAdmission(verdict: Verdict): void {
    // A handout station's scan admits no one (docs/kiosk.md "Handouts").
    if (verdict.kind !== 'admit' || verdict.station !== undefined || !verdict.ticket || !this.deps.lan) return;
    const gate = this.deps.store.getEnrollment()?.gate_id ?? null;
    const people = verdict.party?.people;
    this.deps.lan.publish({
      tid: verdict.ticket.tid,
      admitted_at: verdict.decided_at,
      gate,
      offline: verdict.offline,
      ...(people !== undefined && people > 1 ? { people } : {}),
    });
  }

  /**
   * Every exit, online or not (docs/kiosk.md "Kiosks on one LAN"): offline, a peer's party exit prompt offers only
   * those still inside. A party's exit counts the people the verdict says went out; any other, one.
   */
  publishExit(verdict: Verdict): void {
    if (verdict.kind !== 'exit' || !verdict.ticket || !this.deps.lan?.publishExit) return;
    const people = verdict.party?.people;
    this.deps.lan.publishExit({
      tid: verdict.ticket.tid,
      exited_at: verdict.decided_at,
      gate: this.deps.store.getEnrollment()?.gate_id ?? null,
      offline: verdict.offline,
      people: people !== undefined && people > 1 ? people : 1,
    });
  }

  /** A handout given here (committed, sent or queued): its peers refuse a second one offline (docs/kiosk.md "Handouts"). */
  tellHandout(given: Omit<LanHandout, 'gate' | 'scanner'>): void {
    if (!this.deps.lan?.publishHandout) return;
    this.deps.lan.publishHandout({ ...given, gate: this.deps.store.getEnrollment()?.gate_id ?? null, scanner: this.scannerName() });
  }

  /**
   * The issuer confirmed an annulment this kiosk sent (at the door, or later from the queue): its LAN peers forget
   * the undone admission (docs/kiosk.md "Kiosks on one LAN"), as this kiosk does once the issuer confirmed it. The
   * answer's receipt (docs/protocol.md "Annulment receipt") goes with it: then they forget it whoever admitted it.
   */
  tellAnnulled(tid: string, annulledAt: string, answer: unknown = null): void {
    if (!this.deps.lan) return;
    this.deps.lan.publishAnnulment({
      tid,
      admitted_at: annulledAt,
      gate: this.deps.store.getEnrollment()?.gate_id ?? null,
      offline: false,
      ...receiptField({ receipt: receiptOf(answer) }),
    });
  }

  /** What a peer said it admitted (undefined without a LAN); the scan decision says when it counts. */
  admissionOf(tid: string): PeerAdmission | undefined {
    return this.deps.lan?.admissionOf(tid);
  }

  /** A party's entries and exits at LAN peers after `after` (ISO; null: all), in time order; none without a LAN. */
  peerMoves(tid: string, after: string | null): PeerMove[] {
    return this.deps.lan?.partyMovesAfter?.(tid, after) ?? [];
  }

  /** The handouts of the ticket LAN peers told of (docs/kiosk.md "Handouts"); none without a LAN. */
  peerHandouts(tid: string): GivenRow[] {
    return this.deps.lan?.handoutsOf?.(tid) ?? [];
  }
}

/** The annulment receipt of an issuer's answer (its `annulment_receipt`), or null; a receiver checks it. */
export function receiptOf(answer: unknown): string | null {
  if (typeof answer !== 'object' || answer === null) return null;
  const receipt = (answer as { annulment_receipt?: unknown }).annulment_receipt;
  return typeof receipt === 'string' && receipt.startsWith(ANNULMENT_RECEIPT_PREFIX) ? receipt : null;
}

const receiptField = (row: { receipt: string | null }): { receipt?: string } => (row.receipt === null ? {} : { receipt: row.receipt });
