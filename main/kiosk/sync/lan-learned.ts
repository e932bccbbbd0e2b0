/**
 * What this kiosk learned from its LAN peers and still believes (docs/kiosk.md "Kiosks on one LAN", "Party tickets"):
 * their admissions per ticket, within fixed bounds, and the annulments that undid some. Pure: lan-peers.ts decides
 * which messages are authentic and hands their contents here.
 */
import { MAX_PARTY } from '../../../protocol/party.js';
import type { PeerAdmission } from './lan-wire.js';

/** The peers' admissions kept in memory (tickets); the oldest learned go first beyond it. */
export const MAX_KNOWN_ADMISSIONS = 200_000;
/** Admissions of one ticket kept (the earliest): more than one is already a double admission. */
export const MAX_ADMISSIONS_PER_TICKET = 4;
/**
 * A party ticket's parts kept (docs/kiosk.md "Party tickets", "Kiosks on one LAN"): up to its size (at most
 * MAX_PARTY), since a party of N comes in in N parts at most before it is full as known; never fewer than
 * MAX_ADMISSIONS_PER_TICKET. Every ticket's admissions together are at most MAX_KNOWN_PARTS: beyond it the tickets
 * learned first go, so a hostile peer cannot grow this kiosk's memory past a fixed bound.
 */
export const MAX_KNOWN_PARTS = 2 * MAX_KNOWN_ADMISSIONS;

/**
 * How many of a ticket's admissions (or exits: lan-learned-moves.ts) are kept: MAX_ADMISSIONS_PER_TICKET, or a
 * party's size (by the synced list; absent: one person) up to MAX_PARTY.
 */
export function keptPerTicket(partySize: number | undefined): number {
  const size = partySize ?? 1;
  return Math.max(MAX_ADMISSIONS_PER_TICKET, Math.min(MAX_PARTY, Number.isSafeInteger(size) ? size : 1));
}

/** Annulments heard of, per admitting kiosk and ticket (a line feed is in neither: the label rules refuse it). */
const annulmentKey = (scannerId: string, tid: string): string => `${scannerId}\n${tid}`;

/** The peers' admissions this kiosk keeps, and the annulments heard of. */
export class LearnedAdmissions {
  /**
   * The peers' admissions per ticket, earliest first, at most MAX_ADMISSIONS_PER_TICKET: when an annulment undoes
   * the earliest, a later one (another kiosk's, after the annulment) still stands, whatever order they were heard in.
   */
  private readonly admissions = new Map<string, PeerAdmission[]>();
  /** Every ticket's admissions in `admissions` together: at most MAX_KNOWN_PARTS. */
  private parts = 0;
  /** Annulments heard of, per kiosk and ticket (the latest): an admission told of later but made before it is stale. */
  private readonly annulments = new Map<string, string>();
  /** Annulments the issuer's receipt vouches for, per ticket (the latest, epoch ms): they undo every kiosk's admissions. */
  private readonly receiptAnnulments = new Map<string, number>();

  /**
   * `maxKnownParts`: every ticket's admissions kept together (MAX_KNOWN_PARTS; a test sets fewer). `partySize`: a
   * ticket's party size by the synced list (absent: one person), read when an admission is kept.
   */
  constructor(
    private readonly maxKnownParts: number = MAX_KNOWN_PARTS,
    private readonly partySize: () => ((tid: string) => number) | undefined = () => undefined,
  ) {}

  /** Forgets everything (a change of event). */
  clear(): void {
    this.admissions.clear();
    this.parts = 0;
    this.annulments.clear();
    this.receiptAnnulments.clear();
  }

  /** A peer's admission of the ticket (the earliest this kiosk heard of), or undefined. */
  admissionOf(tid: string): PeerAdmission | undefined {
    return this.admissions.get(tid)?.[0];
  }

  /** Every admission of the ticket this kiosk heard of and still believes, earliest first. */
  admissionsOf(tid: string): readonly PeerAdmission[] {
    return this.admissions.get(tid) ?? [];
  }

  /**
   * The people of the ticket's admissions this kiosk heard of and believes: a party's parts at its peers (docs/kiosk.md
   * "Party tickets"). Those made online and at or before `after` (ISO: the issuer's last answer here) are in that
   * answer's counts already; one decided offline may not have reached the issuer, so it always counts. An admission
   * told without a believed count is one person.
   */
  peopleAfter(tid: string, after: string | null): number {
    const afterMs = after === null ? Number.NEGATIVE_INFINITY : Date.parse(after);
    return this.admissionsOf(tid)
      .filter((admission) => admission.offline || Date.parse(admission.admitted_at) > afterMs)
      .reduce((sum, admission) => sum + (admission.people ?? 1), 0);
  }

  get knownAdmissions(): number {
    return this.admissions.size;
  }

  /** Every ticket's admissions kept, together (at most MAX_KNOWN_PARTS, or the option's bound). */
  get knownParts(): number {
    return this.parts;
  }

  /** How many admissions of the ticket are kept (keptPerTicket). */
  private keptOf(tid: string): number {
    return keptPerTicket(this.partySize()?.(tid));
  }

  /** Drops the tickets learned first until there is room for `more` admissions (and a new ticket when `ticket`). */
  private makeRoom(more: number, ticket: boolean): void {
    while (
      this.admissions.size > 0 &&
      (this.parts + more > this.maxKnownParts || (ticket && this.admissions.size >= MAX_KNOWN_ADMISSIONS))
    ) {
      const [oldest, list] = this.admissions.entries().next().value as [string, PeerAdmission[]];
      this.admissions.delete(oldest);
      this.parts -= list.length;
    }
  }

  /** The issuer annulled the ticket at `annulledAtMs`: every kiosk's admission of it up to then is undone. 1 when one was forgotten. */
  forgetAll(tid: string, annulledAtMs: number): number {
    const heard = this.receiptAnnulments.get(tid);
    if (heard === undefined || heard < annulledAtMs) {
      if (this.receiptAnnulments.size >= MAX_KNOWN_ADMISSIONS) {
        const oldest = this.receiptAnnulments.keys().next().value;
        if (oldest !== undefined) this.receiptAnnulments.delete(oldest);
      }
      this.receiptAnnulments.delete(tid);
      this.receiptAnnulments.set(tid, annulledAtMs);
    }
    return this.undo(tid, (admission) => Date.parse(admission.admitted_at) <= annulledAtMs);
  }

  /** Drops the ticket's admissions that `undone` says were annulled. 1 when one was. */
  private undo(tid: string, undone: (admission: PeerAdmission) => boolean): number {
    const known = this.admissions.get(tid);
    if (known === undefined) return 0;
    const standing = known.filter((admission) => !undone(admission));
    if (standing.length === known.length) return 0;
    this.parts -= known.length - standing.length;
    if (standing.length === 0) this.admissions.delete(tid);
    else this.admissions.set(tid, standing);
    return 1;
  }

  /** Keeps a peer's admission; the earliest of a ticket is the one told (admissionOf). 1 when the ticket was new. */
  learn(admission: PeerAdmission): number {
    const annulledByIssuer = this.receiptAnnulments.get(admission.tid);
    // Made before an annulment the issuer vouched for (whoever made it): undone.
    if (annulledByIssuer !== undefined && Date.parse(admission.admitted_at) <= annulledByIssuer) return 0;
    const annulledAt = this.annulments.get(annulmentKey(admission.scanner_id, admission.tid));
    // Made before an annulment its kiosk told already (a catch-up reply can bring an old admission late): undone.
    if (annulledAt !== undefined && admission.admitted_at <= annulledAt) return 0;
    const known = this.admissions.get(admission.tid);
    if (known) {
      const same = known.some((other) => other.scanner_id === admission.scanner_id && other.admitted_at === admission.admitted_at);
      const kept = this.keptOf(admission.tid);
      // A ticket already at its bound whose new admission is later than every kept one: nothing changes.
      const latest = known[known.length - 1]!;
      if (!same && (known.length < kept || Date.parse(admission.admitted_at) < Date.parse(latest.admitted_at))) {
        known.push(admission);
        known.sort((a, b) => Date.parse(a.admitted_at) - Date.parse(b.admitted_at));
        const before = known.length;
        known.length = Math.min(known.length, kept);
        this.parts += 1 - (before - known.length);
        if (this.parts > this.maxKnownParts) {
          // Room for it by dropping the tickets learned first (this one, learned anew, goes to the end of the order).
          this.admissions.delete(admission.tid);
          this.parts -= known.length;
          this.makeRoom(known.length, true);
          this.admissions.set(admission.tid, known);
          this.parts += known.length;
        }
      }
      return 0;
    }
    this.makeRoom(1, true);
    this.admissions.set(admission.tid, [admission]);
    this.parts += 1;
    return 1;
  }

  /**
   * A peer's annulment: the ticket's admissions made by that same kiosk up to `annulledAt` are undone (a kiosk
   * undoes only its own admissions: docs/kiosk.md "Kiosks on one LAN"). 1 when one was forgotten.
   */
  forget(tid: string, annulledAt: string, by: string): number {
    const key = annulmentKey(by, tid);
    const heard = this.annulments.get(key);
    if (heard === undefined || heard < annulledAt) {
      if (this.annulments.size >= MAX_KNOWN_ADMISSIONS) {
        const oldest = this.annulments.keys().next().value;
        if (oldest !== undefined) this.annulments.delete(oldest);
      }
      this.annulments.delete(key);
      this.annulments.set(key, annulledAt);
    }
    return this.undo(tid, (admission) => admission.scanner_id === by && admission.admitted_at <= annulledAt);
  }
}
