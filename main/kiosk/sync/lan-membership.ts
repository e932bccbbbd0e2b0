/**
 * Taking part in the LAN (docs/kiosk.md "Kiosks on one LAN"): what a kiosk needs to join (its event, identity,
 * gate, signing key and what it trusts), the event's window for the times peers tell, and the LAN as the kiosk core
 * sees it (PeerNetwork, which lan-transport.ts implements). Types and one pure function.
 */
import type { GivenRow } from '../../../protocol/handouts.js';
import type { PublicKey } from '../../../protocol/index.js';
import type { LanExit, LanHandout, PeerMove } from './lan-moves.js';
import type { LanAdmission, LanSigner, PeerAdmission } from './lan-wire.js';

/**
 * A peer's admission or annulment must fall within the event's window: from this long before the event's date
 * (docs/kiosk.md "Kiosks on one LAN": doors may open the evening before)...
 */
export const EVENT_WINDOW_BEFORE_MS = 24 * 3600_000;
/** ...to this long after it, or the scanner key's expiry if later (a multi-day event's key lasts its days). */
export const EVENT_WINDOW_AFTER_MS = 48 * 3600_000;

/** What a kiosk needs to take part: its event, identity, gate, its signing key (kept in memory only) and what it trusts. */
export interface LanMembership {
  eid: string;
  scannerId: string;
  gate: string | null;
  signer: LanSigner;
  trust: LanTrust;
  /** When a peer's admissions and annulments may be dated (eventWindowOf); absent: no bound but "not in the future". */
  eventWindow?: EventWindow;
  /**
   * docs/kiosk.md "Party tickets": a ticket's party size by the synced list (1: one person), so a party's parts at
   * other doors are kept up to its size. Absent: every ticket is of one person.
   */
  partySize?: (tid: string) => number;
  /**
   * The time the LAN goes by: the issuer's time as this kiosk knows it (docs/kiosk.md "The kiosk's clock"), for the
   * messages' `ts` and `seq` and every time check on what peers say. Absent: the transport's own clock.
   */
  clock?: () => number;
}

/** What a receiver checks a peer's certificate against (docs/kiosk.md "Kiosks on one LAN"). */
export interface LanTrust {
  /** The issuer this kiosk is enrolled with (its base URL). */
  iss: string;
  /** The issuer's published signing keys (the discovery document's, as for tickets). */
  keys(): readonly PublicKey[];
  /** The event's revoked scanners, from the last revocation-list sync. */
  revokedScanners(): ReadonlySet<string>;
}

/** Unix milliseconds, both ends included. */
export interface EventWindow {
  fromMs: number;
  toMs: number;
}

/**
 * The times a peer may give an admission or annulment of this event: from EVENT_WINDOW_BEFORE_MS before the
 * enrollment scope's `event_date` to EVENT_WINDOW_AFTER_MS after it, or to the scanner key's `expires_at` if later.
 */
export function eventWindowOf(eventDate: string, keyExpiresAt: string | null): EventWindow {
  const date = Date.parse(eventDate);
  const expires = keyExpiresAt === null ? Number.NaN : Date.parse(keyExpiresAt);
  const after = date + EVENT_WINDOW_AFTER_MS;
  return { fromMs: date - EVENT_WINDOW_BEFORE_MS, toMs: Number.isNaN(expires) ? after : Math.max(after, expires) };
}

/**
 * The LAN as the kiosk core sees it (lan-transport.ts implements it over
 * UDP). The core joins after enrollment with its own signing key and certificate, consults
 * `admissionOf` on its offline path, and publishes its own admissions.
 */
export interface PeerNetwork {
  /** `ownAnnulmentsSince`: this kiosk's annulments the issuer confirmed, newest first (catch-up answers carry them). */
  join(
    membership: LanMembership,
    ownAdmissionsSince: (since: string, limit: number) => LanAdmission[],
    ownAnnulmentsSince?: (since: string, limit: number) => LanAdmission[],
    ownMovesSince?: OwnMovesSince,
  ): void;
  leave(): void;
  admissionOf(tid: string): PeerAdmission | undefined;
  /** The people of a party's parts admitted at peers after `after` (LanPeerState.peopleAfter); absent: none known. */
  peopleAfter?(tid: string, after: string | null): number;
  publish(admission: LanAdmission): void;
  /** Tells the peers that the issuer confirmed this kiosk's annulment of the ticket (`admitted_at`: when). */
  publishAnnulment(annulment: LanAdmission): void;
  /** A party's entries and exits at peers the issuer's last answer may not count (LanPeerState.partyMovesAfter); absent: none. */
  partyMovesAfter?(tid: string, after: string | null): PeerMove[];
  /** The handouts of a ticket peers told of; absent: none. */
  handoutsOf?(tid: string): GivenRow[];
  /** Tells the peers of an exit at this kiosk; absent: not told. */
  publishExit?(exit: LanExit): void;
  /** Tells the peers of a handout given at this kiosk; absent: not told. */
  publishHandout?(handout: LanHandout): void;
}

/** This kiosk's own exits and handouts since a time, newest first, at most `limit` (catch-up answers carry them). */
export interface OwnMovesSince {
  exits(since: string, limit: number): LanExit[];
  handouts(since: string, limit: number): LanHandout[];
}
