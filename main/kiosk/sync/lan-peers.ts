/**
 * Kiosks on one LAN warn each other (docs/kiosk.md "Kiosks on one LAN",
 * docs/protocol.md "LAN messages between kiosks"): the decisions. Message
 * encoding, the signatures, the replay window, the peer table and what to do
 * with each datagram. No socket, no clock, no timer: the caller passes the
 * bytes, where they came from and "now"; the socket side is lan-transport.ts.
 *
 * A message is one UDP datagram of JSON (`tvlan/2`). Each kiosk signs its own
 * messages with its own Ed25519 key (made at enrollment, never shared) and
 * carries the certificate the issuer gave it for that key (`cert`,
 * protocol/kiosk-certificate.ts; docs/protocol.md "Kiosk certificate"): scanner id, event, gate and public key, signed by the
 * issuer's signing key, which every kiosk of the event already holds. The
 * signature (`sig`) covers a canonical encoding: the JSON array
 * `["tvlan/2", type, eid, from, gate, seq, ts, since, adm]` (arrays keep their
 * order, so the bytes are fixed). A message is ignored, with one log line
 * without secrets, when it does not parse, is for another event, its
 * certificate or signature fails, it speaks for another scanner or gate than
 * its certificate names, its scanner is revoked, its times are out of bounds,
 * or its sequence number is not newer than the last one seen from its sender.
 *
 * An `annul` message says that a check-in the sender told of (or any earlier
 * admission of the ticket) was undone at the issuer: the receivers forget it,
 * so an offline kiosk does not refuse the ticket's rightful holder with
 * "Already admitted at Gate A" after staff annulled that admission. Without
 * more, a kiosk undoes only its own admissions; with the issuer's annulment
 * receipt (`rcpt`, protocol/annulment-receipt.ts) any kiosk of the event may
 * tell of an annulment, and the ticket's admissions up to it are forgotten
 * whoever made them (docs/kiosk.md "Kiosks on one LAN").
 */
import { createHash, sign as signBytes, type KeyObject } from 'node:crypto';
import type { PublicKey } from '../../../protocol/index.js';
import { checkKioskCertificate } from '../../../protocol/kiosk-certificate.js';
import { labelCharacterProblem } from '../../../protocol/labels.js';
import { MAX_PARTY } from '../../../protocol/party.js';
import { verifyEd25519 } from './lan-certificate.js';
import { believedPeople, peopleFields, type RawPeople } from './lan-people.js';
import { isReceiptText, receiptAnnulledAt, RECEIPTS_PER_DATAGRAM, type ReceiptTrust } from './lan-receipts.js';

export const LAN_PROTOCOL = 'tvlan/2';
/** The documented UDP port (docs/kiosk.md "Kiosks on one LAN"). */
export const DEFAULT_LAN_PORT = 47474;
/** Administratively scoped IPv4 multicast (RFC 2365): stays on the site. */
export const DEFAULT_LAN_GROUP = '239.255.47.74';
/** A message's `ts` may differ this much from the receiver's clock. */
export const DEFAULT_REPLAY_WINDOW_MS = 60_000;
export const DEFAULT_HELLO_INTERVAL_MS = 5_000;
/** A discovered peer not heard from for this long is dropped; any peer silent this long has "rejoined" when heard again. */
export const DEFAULT_PEER_TIMEOUT_MS = 20_000;
/** A kiosk that never heard of a peer asks for what it admitted in the last this-long. */
export const DEFAULT_CATCHUP_HORIZON_MS = 24 * 3600_000;
/** A catch-up answer holds at most this many admissions (the newest), */
export const CATCHUP_LIMIT = 2000;
/** in datagrams of at most this many (with the certificate, about 1.3 KB: no IP fragmentation on Ethernet). */
export const ADMISSIONS_PER_DATAGRAM = 8;
/** Larger datagrams are not read. */
export const MAX_DATAGRAM_BYTES = 8192;
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
/** Ignored messages logged one by one per minute at most, per kind; the rest are counted in one line (docs/kiosk.md). */
export const IGNORED_LINES_PER_MINUTE = 10;
/** Admissions learned from peers logged one by one per minute at most; the rest are counted in one line. */
export const LEARNED_LINES_PER_MINUTE = 20;
/**
 * A peer's admission or annulment must fall within the event's window: from this long before the event's date
 * (docs/kiosk.md "Kiosks on one LAN": doors may open the evening before)...
 */
export const EVENT_WINDOW_BEFORE_MS = 24 * 3600_000;
/** ...to this long after it, or the scanner key's expiry if later (a multi-day event's key lasts its days). */
export const EVENT_WINDOW_AFTER_MS = 48 * 3600_000;
/** Heard-again margin: a catch-up asks from this long before the peer was last heard. */
const CATCHUP_MARGIN_MS = 60_000;
/** One catch-up answer per asking sender per this long. */
const CATCHUP_ANSWER_INTERVAL_MS = 2_000;

export const LAN_MESSAGE_TYPES = ['hello', 'admit', 'catchup', 'catchup_reply', 'annul'] as const;
export type LanMessageType = (typeof LAN_MESSAGE_TYPES)[number];

/** One admission a kiosk tells its peers about. */
export interface LanAdmission {
  tid: string;
  admitted_at: string;
  /** The admitting kiosk's gate (gate_id), or null for a kiosk without one. */
  gate: string | null;
  /** The admitting kiosk decided without the issuer. */
  offline: boolean;
  /** `annul` only: the issuer's annulment receipt (`tann1.`), when the issuer gave one. */
  receipt?: string;
  /** A part of a party: the people it let in, when more than one (`ppl`, sync/lan-people.ts); absent: one person. */
  people?: number;
}

/** What the kiosk core consults offline: a peer's admission of the ticket, if any (the earliest known). */
export interface PeerAdmission extends LanAdmission {
  /** The admitting kiosk's scanner_id. */
  scanner_id: string;
}

/** The fields a message carries (docs/protocol.md "LAN messages between kiosks"). */
export interface LanMessage {
  type: LanMessageType;
  eid: string;
  /** The sender's scanner_id. */
  from: string;
  /** The sender's gate, or null. */
  gate: string | null;
  /** Per sender, strictly increasing (it starts from the sender's clock in microseconds, so a restart keeps it increasing). */
  seq: number;
  /** The sender's clock, Unix milliseconds. */
  ts: number;
  /** `catchup` only: the ISO time from which admissions are asked for; else null. */
  since: string | null;
  /**
   * `admit` and `catchup_reply`: the admissions. `annul`: the annulments, each as the ticket, when the
   * issuer confirmed it, the annulling kiosk's gate and `offline` false. Else empty.
   */
  adm: LanAdmission[];
}

type WireAdmission = [tid: string, admitted_at: string, gate: string | null, offline: 0 | 1];

function wireAdmissions(adm: readonly LanAdmission[]): WireAdmission[] {
  return adm.map((a) => [a.tid, a.admitted_at, a.gate, a.offline ? 1 : 0]);
}

/** The bytes the signature covers: a JSON array in a fixed order (no object keys whose order could vary). */
export function canonicalBytes(message: LanMessage): Buffer {
  const fields = [
    LAN_PROTOCOL,
    message.type,
    message.eid,
    message.from,
    message.gate,
    message.seq,
    message.ts,
    message.since,
    wireAdmissions(message.adm),
  ];
  return Buffer.from(JSON.stringify(fields), 'utf8');
}

/** How a kiosk signs its messages: its own Ed25519 key (never shared) and the issuer's certificate for it. */
export interface LanSigner {
  privateKey: KeyObject;
  /** The tkc1 code the issuer returned at enrollment (not a secret: it goes in every message). */
  certificate: string;
}

/**
 * One datagram: the message's fields, the sender's certificate and its signature (base64url); an `annul` with
 * receipts adds `rcpt`, one receipt or null per annulment. The receipts are outside the kiosk's signature: each is
 * signed by the issuer and names its event and ticket, so taking one out only leaves the sender's own word, and
 * kiosks that do not read `rcpt` still check the signature of what they read.
 */
export function encodeMessage(message: LanMessage, signer: LanSigner): Buffer {
  const receipts = message.adm.map((a) => a.receipt ?? null);
  const wire = {
    p: LAN_PROTOCOL,
    type: message.type,
    eid: message.eid,
    from: message.from,
    gate: message.gate,
    seq: message.seq,
    ts: message.ts,
    since: message.since,
    adm: wireAdmissions(message.adm),
    cert: signer.certificate,
    sig: signBytes(null, canonicalBytes(message), signer.privateKey).toString('base64url'),
    ...(receipts.some((receipt) => receipt !== null) ? { rcpt: receipts } : {}),
    // docs/protocol.md "LAN messages between kiosks (project extension)": a party's people, signed apart.
    ...(message.type === 'admit' || message.type === 'catchup_reply'
      ? peopleFields(message, canonicalBytes(message), signer.privateKey)
      : {}),
  };
  return Buffer.from(JSON.stringify(wire), 'utf8');
}

export type Decoded = { ok: true; message: LanMessage; cert: string; sig: Buffer; people?: RawPeople } | { ok: false; problem: string };

const isShortString = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;
/** A text a peer says (event, scanner, gate, ticket id): short, and by the issuer's label rules (protocol/labels.ts). */
const isLabel = (value: unknown, max: number): value is string => isShortString(value, max) && labelCharacterProblem(value) === null;
const isIsoTime = (value: unknown): value is string => isShortString(value, 40) && !Number.isNaN(Date.parse(value));

/** Parses a datagram's shape (not its signature). Anything unexpected is a problem, never an exception. */
export function decodeMessage(bytes: Uint8Array): Decoded {
  if (bytes.length > MAX_DATAGRAM_BYTES) return { ok: false, problem: `datagram of ${bytes.length} bytes is too large` };
  let wire: unknown;
  try {
    wire = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return { ok: false, problem: 'not JSON' };
  }
  if (typeof wire !== 'object' || wire === null || Array.isArray(wire)) return { ok: false, problem: 'not an object' };
  const w = wire as Record<string, unknown>;
  if (w['p'] !== LAN_PROTOCOL) return { ok: false, problem: `not a ${LAN_PROTOCOL} message` };
  if (!(LAN_MESSAGE_TYPES as readonly unknown[]).includes(w['type'])) return { ok: false, problem: 'unknown message type' };
  if (!isLabel(w['eid'], 128) || !isLabel(w['from'], 128)) return { ok: false, problem: 'bad eid or sender' };
  if (w['gate'] !== null && !isLabel(w['gate'], 64)) return { ok: false, problem: 'bad gate' };
  if (!Number.isSafeInteger(w['seq']) || (w['seq'] as number) < 0) return { ok: false, problem: 'bad sequence number' };
  if (!Number.isSafeInteger(w['ts'])) return { ok: false, problem: 'bad timestamp' };
  if (w['since'] !== null && !isIsoTime(w['since'])) return { ok: false, problem: 'bad since' };
  if (typeof w['sig'] !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(w['sig'])) return { ok: false, problem: 'bad signature field' };
  if (!isShortString(w['cert'], 2048) || !/^[A-Za-z0-9_.-]+$/.test(w['cert'])) return { ok: false, problem: 'bad certificate field' };
  const adm = w['adm'];
  if (!Array.isArray(adm) || adm.length > 64) return { ok: false, problem: 'bad admissions list' };
  const rcpt = w['rcpt'];
  if (rcpt !== undefined) {
    if (w['type'] !== 'annul' || !Array.isArray(rcpt) || rcpt.length !== adm.length || !rcpt.every((r) => r === null || isReceiptText(r)))
      return { ok: false, problem: 'bad receipts list' };
  }
  const admissions: LanAdmission[] = [];
  for (const [i, entry] of adm.entries()) {
    if (!Array.isArray(entry) || entry.length !== 4) return { ok: false, problem: 'bad admission' };
    const [tid, at, gate, offline] = entry as unknown[];
    if (!isLabel(tid, 128) || !isIsoTime(at) || (gate !== null && !isLabel(gate, 64)) || (offline !== 0 && offline !== 1)) {
      return { ok: false, problem: 'bad admission' };
    }
    const receipt = (rcpt as unknown[] | undefined)?.[i];
    admissions.push({
      tid,
      admitted_at: at,
      gate: gate as string | null,
      offline: offline === 1,
      ...(typeof receipt === 'string' ? { receipt } : {}),
    });
  }
  return {
    ok: true,
    message: {
      type: w['type'] as LanMessageType,
      eid: w['eid'] as string,
      from: w['from'] as string,
      gate: w['gate'] as string | null,
      seq: w['seq'] as number,
      ts: w['ts'] as number,
      since: w['since'] as string | null,
      adm: admissions,
    },
    cert: w['cert'],
    sig: Buffer.from(w['sig'], 'base64url'),
    ...(w['ppl'] !== undefined || w['psig'] !== undefined ? { people: { ppl: w['ppl'], psig: w['psig'] } } : {}),
  };
}

/** Where a datagram came from or goes to. */
export interface PeerAddress {
  address: string;
  port: number;
}

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

export interface LanPeerStateOptions {
  /** Peers configured by hand (tests, or a network without multicast): the same list discovery adds to. */
  peers?: readonly PeerAddress[];
  replayWindowMs?: number;
  peerTimeoutMs?: number;
  catchupHorizonMs?: number;
  /** Every ticket's admissions kept together (MAX_KNOWN_PARTS; a test sets fewer). */
  maxKnownParts?: number;
}

interface PeerEntry extends PeerAddress {
  /** Configured: never expires. Discovered: dropped after the peer timeout. */
  configured: boolean;
  scannerId: string | null;
  lastHeardMs: number | null;
}

/**
 * Which log budget an ignored message's line counts against (docs/kiosk.md "Kiosks on one LAN"): a flood of
 * forged datagrams must not use up the lines that say a real kiosk's message was replayed or out of time.
 */
export type IgnoredKind = 'forged' | 'revoked' | 'replayed' | 'malformed';

/** What to do after a datagram. `log` is one line without secrets; `send` goes out unicast. */
export interface Handling {
  log?: string;
  /** The budget `log` counts against. */
  logKind?: IgnoredKind;
  /** Admissions learned from this datagram, each to be logged (rate-limited) with the peer that told it. */
  learnedAdmissions?: PeerAdmission[];
  send: Array<{ to: PeerAddress; bytes: Buffer }>;
  /** Admissions learned from this datagram (new tickets only). */
  learned: number;
  /** Admissions forgotten because this datagram annulled them (`annul` only). */
  forgotten?: number;
  /** A catch-up request to answer: the answering needs the kiosk's own admissions (handled by answerCatchup). */
  catchupFrom?: { to: PeerAddress; since: string };
}

const peerKey = (peer: PeerAddress): string => `${peer.address}:${peer.port}`;
/** Annulments heard of, per admitting kiosk and ticket (a line feed is in neither: the label rules refuse it). */
const annulmentKey = (scannerId: string, tid: string): string => `${scannerId}\n${tid}`;

/**
 * The decisions of one kiosk on the LAN: who its peers are, what they
 * admitted, which messages to trust, and what to send. Pure: no socket, no clock.
 */
export class LanPeerState {
  private membership: LanMembership | null = null;
  private readonly peers = new Map<string, PeerEntry>();
  /** The newest message accepted per sender (scanner_id): its sequence number and a digest of its bytes. */
  private readonly lastAccepted = new Map<string, { seq: number; digest: string }>();
  /** When each sender was last heard (authenticated messages only). */
  private readonly lastHeard = new Map<string, number>();
  private readonly lastCatchupAnswer = new Map<string, number>();
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
  private seq = 0;
  private readonly replayWindowMs: number;
  private readonly peerTimeoutMs: number;
  private readonly catchupHorizonMs: number;
  private readonly maxKnownParts: number;

  constructor(options: LanPeerStateOptions = {}) {
    this.replayWindowMs = options.replayWindowMs ?? DEFAULT_REPLAY_WINDOW_MS;
    this.peerTimeoutMs = options.peerTimeoutMs ?? DEFAULT_PEER_TIMEOUT_MS;
    this.catchupHorizonMs = options.catchupHorizonMs ?? DEFAULT_CATCHUP_HORIZON_MS;
    this.maxKnownParts = options.maxKnownParts ?? MAX_KNOWN_PARTS;
    for (const peer of options.peers ?? []) this.addPeer(peer, true);
  }

  /** Joins (or, with null, leaves) the event's LAN. A change of event forgets what peers said of the old one. */
  setMembership(membership: LanMembership | null): void {
    if (this.membership?.eid !== membership?.eid) {
      this.admissions.clear();
      this.parts = 0;
      this.annulments.clear();
      this.receiptAnnulments.clear();
      this.lastAccepted.clear();
      this.lastHeard.clear();
    }
    this.membership = membership;
  }

  get joined(): boolean {
    return this.membership !== null;
  }

  /** Adds a peer; discovery calls it for each kiosk it hears, tests and configuration with `configured`. */
  addPeer(peer: PeerAddress, configured = false): void {
    const existing = this.peers.get(peerKey(peer));
    if (existing) {
      existing.configured ||= configured;
      return;
    }
    this.peers.set(peerKey(peer), { address: peer.address, port: peer.port, configured, scannerId: null, lastHeardMs: null });
  }

  /**
   * Where unicast messages go now; discovered peers silent past the timeout are dropped first, and a peer
   * whose scanner the revocation list names is sent nothing more (docs/kiosk.md "Kiosks on one LAN").
   */
  destinations(nowMs: number): PeerAddress[] {
    for (const [key, peer] of this.peers) {
      if (!peer.configured && peer.lastHeardMs !== null && nowMs - peer.lastHeardMs > this.peerTimeoutMs) this.peers.delete(key);
    }
    const revoked = this.membership?.trust.revokedScanners() ?? new Set<string>();
    return [...this.peers.values()]
      .filter((peer) => peer.scannerId === null || !revoked.has(peer.scannerId))
      .map(({ address, port }) => ({ address, port }));
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

  /** How many admissions of the ticket are kept: MAX_ADMISSIONS_PER_TICKET, or a party's size up to MAX_PARTY. */
  private keptOf(tid: string): number {
    const size = this.membership?.partySize?.(tid) ?? 1;
    return Math.max(MAX_ADMISSIONS_PER_TICKET, Math.min(MAX_PARTY, Number.isSafeInteger(size) ? size : 1));
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

  /** The next message from this kiosk, signed; null when not joined. */
  build(type: LanMessageType, nowMs: number, fields: { since?: string; adm?: LanAdmission[] } = {}): Buffer | null {
    const m = this.membership;
    if (!m) return null;
    // Microseconds of the clock, or one more than the last: increasing across restarts unless the clock goes back.
    this.seq = Math.max(this.seq + 1, nowMs * 1000);
    const message: LanMessage = {
      type,
      eid: m.eid,
      from: m.scannerId,
      gate: m.gate,
      seq: this.seq,
      ts: nowMs,
      since: fields.since ?? null,
      adm: fields.adm ?? [],
    };
    return encodeMessage(message, m.signer);
  }

  /** The catch-up request for a peer: since a minute before it was last heard, or the horizon for one never heard. */
  catchupRequest(nowMs: number, lastHeardMs: number | null = null): Buffer | null {
    const since = lastHeardMs === null ? nowMs - this.catchupHorizonMs : lastHeardMs - CATCHUP_MARGIN_MS;
    return this.build('catchup', nowMs, { since: new Date(since).toISOString() });
  }

  /**
   * The answer to a catch-up request: the newest CATCHUP_LIMIT admissions, in datagrams of
   * ADMISSIONS_PER_DATAGRAM, then the newest annulments this kiosk made in the same period (as `annul`
   * messages), so a peer that was away when they were told forgets what it may learn elsewhere.
   */
  catchupReplies(own: readonly LanAdmission[], nowMs: number, annulled: readonly LanAdmission[] = []): Buffer[] {
    const replies: Buffer[] = [];
    const inDatagrams = (type: 'catchup_reply' | 'annul', list: readonly LanAdmission[], perDatagram: number): void => {
      const newest = [...list].sort((a, b) => b.admitted_at.localeCompare(a.admitted_at)).slice(0, CATCHUP_LIMIT);
      for (let i = 0; i < newest.length; i += perDatagram) {
        const bytes = this.build(type, nowMs, { adm: newest.slice(i, i + perDatagram) });
        if (bytes) replies.push(bytes);
      }
    };
    inDatagrams('catchup_reply', own, ADMISSIONS_PER_DATAGRAM);
    inDatagrams(
      'annul',
      annulled.filter((a) => a.receipt === undefined),
      ADMISSIONS_PER_DATAGRAM,
    );
    inDatagrams(
      'annul',
      annulled.filter((a) => a.receipt !== undefined),
      RECEIPTS_PER_DATAGRAM,
    );
    return replies;
  }

  /** Decides what one datagram means. Never throws on bad input. */
  receive(bytes: Uint8Array, from: PeerAddress, nowMs: number): Handling {
    const none: Handling = { send: [], learned: 0 };
    const m = this.membership;
    if (!m) return none;
    const source = `from ${from.address}:${from.port}`;
    const ignored = (kind: IgnoredKind, line: string): Handling => ({ ...none, log: line, logKind: kind });
    const decoded = decodeMessage(bytes);
    if (!decoded.ok) return ignored('malformed', `LAN message ${source} ignored: ${decoded.problem}.`);
    const message = decoded.message;
    if (message.from === m.scannerId) return none; // our own, looped back
    const about = `${message.type} ${source} (scanner ${message.from}, seq ${message.seq})`;
    if (message.eid !== m.eid) return ignored('malformed', `LAN ${about} ignored: for another event (${message.eid}).`);
    const revoked = m.trust.revokedScanners();
    const checked = checkKioskCertificate(decoded.cert, {
      issuer: m.trust.iss,
      eid: m.eid,
      keys: m.trust.keys(),
      nowMs,
      isScannerRevoked: (scannerId) => revoked.has(scannerId),
      verify: verifyEd25519,
    });
    // A revoked kiosk left on says hello every few seconds: its lines have a budget of their own, so they
    // cannot use up the one that tells of forged datagrams.
    if (!checked.ok) return ignored(checked.check === 'revoked' ? 'revoked' : 'forged', `LAN ${about} ignored: ${checked.message}.`);
    // The certificate binds the sender's id and gate: a kiosk speaks only for itself.
    if (checked.certificate.scanner_id !== message.from || checked.certificate.gate !== message.gate) {
      return ignored(
        'forged',
        `LAN ${about} ignored: its certificate is for another scanner or gate (scanner ${checked.certificate.scanner_id}).`,
      );
    }
    if (!verifyEd25519(decoded.sig, canonicalBytes(message), checked.publicKey))
      return ignored('forged', `LAN ${about} ignored: bad signature (forged, or altered on the way).`);
    // A kiosk tells only its own admissions and annulments, each at its own gate: another gate is not its word to give.
    if (message.adm.some((admission) => admission.gate !== message.gate)) {
      return ignored('forged', `LAN ${about} ignored: it tells of an admission at another gate than its certificate's.`);
    }
    const outOfTime = this.outOfTime(message, nowMs);
    if (outOfTime !== null) return ignored('replayed', `LAN ${about} ignored: ${outOfTime}.`);
    const last = this.lastAccepted.get(message.from);
    const digest = createHash('sha256').update(bytes).digest('base64url');
    // The same datagram twice in a row (a hello goes both by multicast and by unicast): one message, said once.
    if (last !== undefined && message.seq === last.seq && digest === last.digest) return none;
    if (last !== undefined && message.seq <= last.seq) {
      return ignored('replayed', `LAN ${about} ignored: replayed (sequence not newer than ${last.seq}).`);
    }
    this.lastAccepted.set(message.from, { seq: message.seq, digest });

    // Authenticated: the sender is a peer (discovery and configuration fill the same table).
    const heardBefore = this.lastHeard.get(message.from) ?? null;
    const rejoined = heardBefore === null || nowMs - heardBefore > this.peerTimeoutMs;
    this.lastHeard.set(message.from, nowMs);
    this.addPeer(from);
    const entry = this.peers.get(peerKey(from))!;
    entry.scannerId = message.from;
    entry.lastHeardMs = nowMs;

    const handling: Handling = { send: [], learned: 0 };
    // A party's people (sync/lan-people.ts): believed only under the sender's own second signature; else one each.
    const told = message.type === 'admit' || message.type === 'catchup_reply';
    const people =
      told && decoded.people !== undefined
        ? believedPeople(message, canonicalBytes(message), decoded.people, (sig, data) => verifyEd25519(sig, data, checked.publicKey))
        : null;
    if (people !== null && !people.ok) {
      handling.log = `LAN ${about}: people counts not believed (${people.problem}); each admission counts one person.`;
      handling.logKind = 'forged';
    }
    for (const [index, admission] of message.adm.entries()) {
      if (!told) break;
      const count = people?.ok ? people.people.get(index) : undefined;
      const { people: _unsigned, ...plain } = admission;
      const peerAdmission: PeerAdmission = {
        ...plain,
        ...(count !== undefined && count > 1 ? { people: count } : {}),
        scanner_id: message.from,
      };
      if (this.learn(peerAdmission) === 0) continue;
      handling.learned += 1;
      (handling.learnedAdmissions ??= []).push(peerAdmission);
    }
    if (message.type === 'annul') {
      handling.forgotten = 0;
      for (const annulment of message.adm) {
        const byIssuer =
          annulment.receipt === undefined ? null : receiptAnnulledAt(annulment.receipt, annulment.tid, this.receiptTrust(m), nowMs);
        // docs/kiosk.md "Kiosks on one LAN": a receipt that does not hold leaves only the sender's own word.
        if (typeof byIssuer === 'string' && handling.log === undefined) {
          handling.log = `LAN ${about}: receipt for ticket ${annulment.tid} not believed: ${byIssuer}; only the sender's own admission is undone.`;
          handling.logKind = 'forged';
        }
        // The sender's word undoes its own admissions; the issuer's receipt, every kiosk's.
        const own = this.forget(annulment.tid, annulment.admitted_at, message.from);
        const all = typeof byIssuer === 'number' ? this.forgetAll(annulment.tid, byIssuer) : 0;
        handling.forgotten += Math.max(own, all);
      }
    }
    if (message.type === 'hello' && rejoined) {
      // A peer heard for the first time (or again after a silence): say hello back so it learns us at
      // once, and ask it what it admitted while we did not hear it. It asks us the same.
      const hello = this.build('hello', nowMs);
      const ask = this.catchupRequest(nowMs, heardBefore);
      if (hello) handling.send.push({ to: from, bytes: hello });
      if (ask) handling.send.push({ to: from, bytes: ask });
    }
    if (message.type === 'catchup' && message.since !== null) {
      const answered = this.lastCatchupAnswer.get(message.from);
      if (answered === undefined || nowMs - answered >= CATCHUP_ANSWER_INTERVAL_MS) {
        this.lastCatchupAnswer.set(message.from, nowMs);
        handling.catchupFrom = { to: from, since: message.since };
      }
    }
    return handling;
  }

  /**
   * Why an authentic message cannot be believed about time, or null (docs/protocol.md "LAN messages between
   * kiosks"): its `ts` is outside the replay window; its `seq` runs ahead of its own clock by more than the window
   * (else one message with a huge `seq` would silence the sender's later ones); or an admission or annulment it
   * tells is dated outside the event's window or later than now plus the replay window.
   */
  private outOfTime(message: LanMessage, nowMs: number): string | null {
    if (Math.abs(nowMs - message.ts) > this.replayWindowMs) {
      return `timestamp ${Math.round((message.ts - nowMs) / 1000)} s off (replayed, or a clock is wrong)`;
    }
    if (message.seq > (message.ts + this.replayWindowMs) * 1000) return `sequence number ${message.seq} runs ahead of its clock`;
    const window = this.membership?.eventWindow;
    for (const entry of message.adm) {
      const at = Date.parse(entry.admitted_at);
      if (at > nowMs + this.replayWindowMs) return `time ${entry.admitted_at} is in the future`;
      if (window && (at < window.fromMs || at > window.toMs)) return `time ${entry.admitted_at} is outside the event's window`;
    }
    return null;
  }

  private receiptTrust(m: LanMembership): ReceiptTrust {
    return { iss: m.trust.iss, eid: m.eid, keys: m.trust.keys(), eventWindow: m.eventWindow, futureMs: this.replayWindowMs };
  }

  /** The issuer annulled the ticket at `annulledAtMs`: every kiosk's admission of it up to then is undone. 1 when one was forgotten. */
  private forgetAll(tid: string, annulledAtMs: number): number {
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
  private learn(admission: PeerAdmission): number {
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
  private forget(tid: string, annulledAt: string, by: string): number {
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
  ): void;
  leave(): void;
  admissionOf(tid: string): PeerAdmission | undefined;
  /** The people of a party's parts admitted at peers after `after` (LanPeerState.peopleAfter); absent: none known. */
  peopleAfter?(tid: string, after: string | null): number;
  publish(admission: LanAdmission): void;
  /** Tells the peers that the issuer confirmed this kiosk's annulment of the ticket (`admitted_at`: when). */
  publishAnnulment(annulment: LanAdmission): void;
}

/**
 * The log lines of ignored messages, limited: a flood of forged or replayed datagrams (a hostile LAN, or a
 * kiosk enrolled elsewhere shouting) must not fill the disk or bury the lines that matter. The first
 * IGNORED_LINES_PER_MINUTE of each minute are written as they come; the rest are counted and said in one
 * line once the minute is over (at the next ignored message or the next `due`, whichever comes first).
 */
export class IgnoredMessageLog {
  private minuteStart = Number.NEGATIVE_INFINITY;
  private written = 0;
  private unwritten = 0;

  /** `summary`: the line for `n` lines not written one by one in a minute. */
  constructor(
    private readonly perMinute = IGNORED_LINES_PER_MINUTE,
    private readonly summary: (n: number) => string = (n) =>
      `LAN: ${n} more message(s) ignored in the last minute, not logged one by one (forged, replayed or for another event).`,
  ) {}

  /** The lines to write now for one ignored message: the last minute's count (if any), then the line itself (if allowed). */
  lines(line: string, nowMs: number): string[] {
    const out = this.due(nowMs);
    if (this.written < this.perMinute) {
      this.written++;
      out.push(line);
    } else {
      this.unwritten++;
    }
    return out;
  }

  /** The count of a minute that is over, once; called on a timer too, so a flood that stopped is still told. */
  due(nowMs: number): string[] {
    if (nowMs - this.minuteStart < 60_000) return [];
    const out = this.unwritten > 0 ? [this.summary(this.unwritten)] : [];
    this.minuteStart = nowMs;
    this.written = 0;
    this.unwritten = 0;
    return out;
  }
}

/**
 * The LAN's log budgets (docs/kiosk.md "Kiosks on one LAN"): one per kind of ignored message, so forged datagrams
 * cannot bury a replayed or out-of-time one, and one for the admissions learned from peers.
 */
export class LanLogBudgets {
  private readonly ignored: Record<IgnoredKind, IgnoredMessageLog> = {
    forged: new IgnoredMessageLog(IGNORED_LINES_PER_MINUTE, (n) => summaryOf(n, 'with a bad certificate or signature (forged)')),
    revoked: new IgnoredMessageLog(IGNORED_LINES_PER_MINUTE, (n) => summaryOf(n, 'from revoked kiosks')),
    replayed: new IgnoredMessageLog(IGNORED_LINES_PER_MINUTE, (n) => summaryOf(n, 'replayed or out of time')),
    malformed: new IgnoredMessageLog(IGNORED_LINES_PER_MINUTE, (n) => summaryOf(n, 'malformed or for another event')),
  };
  private readonly learned = new IgnoredMessageLog(
    LEARNED_LINES_PER_MINUTE,
    (n) => `LAN: ${n} more admission(s) learned from peers in the last minute, not logged one by one.`,
  );

  /** The lines to write now for one datagram's handling. */
  lines(handling: Handling, from: PeerAddress, nowMs: number): string[] {
    const out: string[] = [];
    if (handling.log !== undefined) out.push(...this.ignored[handling.logKind ?? 'malformed'].lines(handling.log, nowMs));
    for (const admission of handling.learnedAdmissions ?? []) out.push(...this.learned.lines(learnedLine(admission, from), nowMs));
    return out;
  }

  /** The counts of minutes that are over (called on a timer too). */
  due(nowMs: number): string[] {
    return [...Object.values(this.ignored).flatMap((log) => log.due(nowMs)), ...this.learned.due(nowMs)];
  }
}

function summaryOf(n: number, what: string): string {
  return `LAN: ${n} more message(s) ${what} ignored in the last minute, not logged one by one.`;
}

/** One admission learned from a peer, for the log: which ticket, when, where, and which kiosk said so. */
export function learnedLine(admission: PeerAdmission, from: PeerAddress): string {
  const gate = admission.gate === null ? 'no gate' : `gate ${admission.gate}`;
  const how = admission.offline ? 'offline' : 'online';
  return `LAN: learned admission of ticket ${admission.tid} at ${gate}, ${admission.admitted_at} (${how}), from scanner ${admission.scanner_id} (${from.address}:${from.port}).`;
}
