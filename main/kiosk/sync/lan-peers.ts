/**
 * Kiosks on one LAN warn each other (docs/kiosk.md "Kiosks on one LAN",
 * docs/protocol.md "LAN messages between kiosks"): the decisions. The signatures, the replay window, the peer table
 * and what to do with each datagram. No socket, no clock, no timer: the caller passes the bytes, where they came
 * from and "now"; the socket side is lan-transport.ts, the message format lan-wire.ts, what was learned
 * lan-learned.ts and the log budgets lan-log.ts.
 *
 * Each kiosk signs its own messages with its own Ed25519 key (made at enrollment, never shared) and
 * carries the certificate the issuer gave it for that key (`cert`,
 * protocol/kiosk-certificate.ts; docs/protocol.md "Kiosk certificate"): scanner id, event, gate and public key, signed by the
 * issuer's signing key, which every kiosk of the event already holds. A message is ignored, with one log line
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
import { createHash } from 'node:crypto';
import type { GivenRow } from '../../../protocol/handouts.js';
import { checkKioskCertificate } from '../../../protocol/kiosk-certificate.js';
import { verifyEd25519 } from './lan-certificate.js';
import { LearnedAdmissions, MAX_KNOWN_PARTS } from './lan-learned.js';
import { LearnedMoves } from './lan-learned-moves.js';
import type { LanMembership } from './lan-membership.js';
import { MOVES_PER_DATAGRAM, type LanExit, type LanHandout, type PeerExit, type PeerHandout, type PeerMove } from './lan-moves.js';
import type { IgnoredKind } from './lan-log.js';
import { believedPeople } from './lan-people.js';
import { receiptAnnulledAt, RECEIPTS_PER_DATAGRAM, type ReceiptTrust } from './lan-receipts.js';
import {
  ADMISSIONS_PER_DATAGRAM,
  canonicalBytes,
  decodeMessage,
  encodeMessage,
  type LanAdmission,
  type LanMessage,
  type LanMessageType,
  type PeerAddress,
  type PeerAdmission,
} from './lan-wire.js';

// The modules this one was split into, for the callers and tests that import them from here.
export * from './lan-wire.js';
export * from './lan-learned.js';
export * from './lan-learned-moves.js';
export * from './lan-moves.js';
export * from './lan-log.js';
export * from './lan-membership.js';

/** A message's `ts` may differ this much from the receiver's clock. */
export const DEFAULT_REPLAY_WINDOW_MS = 60_000;
export const DEFAULT_HELLO_INTERVAL_MS = 5_000;
/** A discovered peer not heard from for this long is dropped; any peer silent this long has "rejoined" when heard again. */
export const DEFAULT_PEER_TIMEOUT_MS = 20_000;
/** A kiosk that never heard of a peer asks for what it admitted in the last this-long. */
export const DEFAULT_CATCHUP_HORIZON_MS = 24 * 3600_000;
/** A catch-up answer holds at most this many admissions (the newest), */
export const CATCHUP_LIMIT = 2000;
/** Heard-again margin: a catch-up asks from this long before the peer was last heard. */
const CATCHUP_MARGIN_MS = 60_000;
/** One catch-up answer per asking sender per this long. */
const CATCHUP_ANSWER_INTERVAL_MS = 2_000;

export interface LanPeerStateOptions {
  /** Peers configured by hand (tests, or a network without multicast): the same list discovery adds to. */
  peers?: readonly PeerAddress[];
  replayWindowMs?: number;
  peerTimeoutMs?: number;
  catchupHorizonMs?: number;
  /** Every ticket's admissions kept together (MAX_KNOWN_PARTS; a test sets fewer). */
  maxKnownParts?: number;
  /** Every ticket's exits kept together (MAX_KNOWN_EXITS; a test sets fewer). */
  maxKnownExits?: number;
  /** Every ticket's handouts kept together (MAX_KNOWN_HANDOUTS; a test sets fewer). */
  maxKnownHandouts?: number;
}

interface PeerEntry extends PeerAddress {
  /** Configured: never expires. Discovered: dropped after the peer timeout. */
  configured: boolean;
  scannerId: string | null;
  lastHeardMs: number | null;
}

/** What to do after a datagram. `log` is one line without secrets; `send` goes out unicast. */
export interface Handling {
  log?: string;
  /** The budget `log` counts against. */
  logKind?: IgnoredKind;
  /** Admissions learned from this datagram, each to be logged (rate-limited) with the peer that told it. */
  learnedAdmissions?: PeerAdmission[];
  /** Exits and handouts learned from this datagram, logged like the admissions. */
  learnedExits?: PeerExit[];
  learnedHandouts?: PeerHandout[];
  send: Array<{ to: PeerAddress; bytes: Buffer }>;
  /** Admissions learned from this datagram (new tickets only). */
  learned: number;
  /** Admissions forgotten because this datagram annulled them (`annul` only). */
  forgotten?: number;
  /** A catch-up request to answer: the answering needs the kiosk's own admissions (handled by answerCatchup). */
  catchupFrom?: { to: PeerAddress; since: string };
}

const peerKey = (peer: PeerAddress): string => `${peer.address}:${peer.port}`;

/** Every admission, annulment, exit and handout a message tells, with its gate and time: each is checked alike. */
function toldEntries(message: LanMessage): Array<{ gate: string | null; at: string }> {
  return [
    ...message.adm.map((a) => ({ gate: a.gate, at: a.admitted_at })),
    ...(message.exits ?? []).map((e) => ({ gate: e.gate, at: e.exited_at })),
    ...(message.handouts ?? []).map((h) => ({ gate: h.gate, at: h.given_at })),
  ];
}

/**
 * The decisions of one kiosk on the LAN: who its peers are, which messages to trust, and what to send; what they
 * said is kept in lan-learned.ts. Pure: no socket, no clock.
 */
export class LanPeerState {
  private membership: LanMembership | null = null;
  private readonly peers = new Map<string, PeerEntry>();
  /** The newest message accepted per sender (scanner_id): its sequence number and a digest of its bytes. */
  private readonly lastAccepted = new Map<string, { seq: number; digest: string }>();
  /** When each sender was last heard (authenticated messages only). */
  private readonly lastHeard = new Map<string, number>();
  private readonly lastCatchupAnswer = new Map<string, number>();
  /** What the peers said and this kiosk still believes (lan-learned.ts). */
  private readonly learned: LearnedAdmissions;
  /** The exits and handouts peers told of (lan-learned-moves.ts). */
  private readonly moves: LearnedMoves;
  private seq = 0;
  private readonly replayWindowMs: number;
  private readonly peerTimeoutMs: number;
  private readonly catchupHorizonMs: number;

  constructor(options: LanPeerStateOptions = {}) {
    this.replayWindowMs = options.replayWindowMs ?? DEFAULT_REPLAY_WINDOW_MS;
    this.peerTimeoutMs = options.peerTimeoutMs ?? DEFAULT_PEER_TIMEOUT_MS;
    this.catchupHorizonMs = options.catchupHorizonMs ?? DEFAULT_CATCHUP_HORIZON_MS;
    this.learned = new LearnedAdmissions(options.maxKnownParts ?? MAX_KNOWN_PARTS, () => this.membership?.partySize);
    this.moves = new LearnedMoves(
      {
        ...(options.maxKnownExits === undefined ? {} : { exits: options.maxKnownExits }),
        ...(options.maxKnownHandouts === undefined ? {} : { handouts: options.maxKnownHandouts }),
      },
      () => this.membership?.partySize,
    );
    for (const peer of options.peers ?? []) this.addPeer(peer, true);
  }

  /** Joins (or, with null, leaves) the event's LAN. A change of event forgets what peers said of the old one. */
  setMembership(membership: LanMembership | null): void {
    if (this.membership?.eid !== membership?.eid) {
      this.learned.clear();
      this.moves.clear();
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
    return this.learned.admissionOf(tid);
  }

  /** Every admission of the ticket this kiosk heard of and still believes, earliest first. */
  admissionsOf(tid: string): readonly PeerAdmission[] {
    return this.learned.admissionsOf(tid);
  }

  /** The people of the ticket's parts at peers after `after` (lan-learned.ts peopleAfter). */
  peopleAfter(tid: string, after: string | null): number {
    return this.learned.peopleAfter(tid, after);
  }

  get knownAdmissions(): number {
    return this.learned.knownAdmissions;
  }

  /** Every ticket's admissions kept, together (at most MAX_KNOWN_PARTS, or the option's bound). */
  get knownParts(): number {
    return this.learned.knownParts;
  }

  /**
   * A party's entries and exits at peers that the issuer's last answer here (`after`, ISO; null: none) may not count
   * yet, in time order (docs/kiosk.md "Party tickets"): those decided offline always, those decided online only when
   * made after that answer. decide/party.ts knownParty merges them with this kiosk's own.
   */
  partyMovesAfter(tid: string, after: string | null): PeerMove[] {
    const afterMs = after === null ? Number.NEGATIVE_INFINITY : Date.parse(after);
    const counts = (offline: boolean, at: string): boolean => offline || Date.parse(at) > afterMs;
    const entries = this.learned
      .admissionsOf(tid)
      .filter((a) => counts(a.offline, a.admitted_at))
      .map((a): PeerMove => ({ action: 'entry', people: a.people ?? 1, at: a.admitted_at }));
    const exits = this.moves
      .exitsOf(tid)
      .filter((e) => counts(e.offline, e.exited_at))
      .map((e): PeerMove => ({ action: 'exit', people: e.people, at: e.exited_at }));
    return [...entries, ...exits].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  }

  /** The exits of the ticket peers told of and this kiosk still believes, earliest first. */
  exitsOf(tid: string): readonly PeerExit[] {
    return this.moves.exitsOf(tid);
  }

  /** The handouts of the ticket peers told of (lan-learned-moves.ts handoutsOf). */
  handoutsOf(tid: string): GivenRow[] {
    return this.moves.handoutsOf(tid);
  }

  /** Every ticket's exits kept, together. */
  get knownExits(): number {
    return this.moves.knownExits;
  }

  /** Every ticket's handouts kept, together. */
  get knownHandouts(): number {
    return this.moves.knownHandouts;
  }

  /** The next message from this kiosk, signed; null when not joined. */
  build(
    type: LanMessageType,
    nowMs: number,
    fields: { since?: string; adm?: LanAdmission[]; exits?: LanExit[]; handouts?: LanHandout[] } = {},
  ): Buffer | null {
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
      ...(type === 'exit' ? { exits: fields.exits ?? [] } : {}),
      ...(type === 'handout' ? { handouts: fields.handouts ?? [] } : {}),
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
   * messages), so a peer that was away when they were told forgets what it may learn elsewhere; then its newest exits
   * and handouts in the same period (as `exit` and `handout` messages of MOVES_PER_DATAGRAM).
   */
  catchupReplies(
    own: readonly LanAdmission[],
    nowMs: number,
    annulled: readonly LanAdmission[] = [],
    moves: { exits: readonly LanExit[]; handouts: readonly LanHandout[] } = { exits: [], handouts: [] },
  ): Buffer[] {
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
    const newestExits = [...moves.exits].sort((a, b) => b.exited_at.localeCompare(a.exited_at)).slice(0, CATCHUP_LIMIT);
    for (let i = 0; i < newestExits.length; i += MOVES_PER_DATAGRAM) {
      const bytes = this.build('exit', nowMs, { exits: newestExits.slice(i, i + MOVES_PER_DATAGRAM) });
      if (bytes) replies.push(bytes);
    }
    const newestHandouts = [...moves.handouts].sort((a, b) => b.given_at.localeCompare(a.given_at)).slice(0, CATCHUP_LIMIT);
    for (let i = 0; i < newestHandouts.length; i += MOVES_PER_DATAGRAM) {
      const bytes = this.build('handout', nowMs, { handouts: newestHandouts.slice(i, i + MOVES_PER_DATAGRAM) });
      if (bytes) replies.push(bytes);
    }
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
    // A kiosk tells only its own admissions, annulments, exits and handouts, each at its own gate: another gate is
    // not its word to give.
    if (toldEntries(message).some((told) => told.gate !== message.gate)) {
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
      if (this.learned.learn(peerAdmission) === 0) continue;
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
        const own = this.learned.forget(annulment.tid, annulment.admitted_at, message.from);
        const all = typeof byIssuer === 'number' ? this.learned.forgetAll(annulment.tid, byIssuer) : 0;
        handling.forgotten += Math.max(own, all);
        // The exits of the admissions undone go with them (docs/kiosk.md "Kiosks on one LAN").
        this.moves.forgetExits(
          annulment.tid,
          (exit) =>
            (exit.scanner_id === message.from && exit.exited_at <= annulment.admitted_at) ||
            (typeof byIssuer === 'number' && Date.parse(exit.exited_at) <= byIssuer),
        );
      }
    }
    for (const exit of message.exits ?? []) {
      const peerExit: PeerExit = { ...exit, scanner_id: message.from };
      if (this.moves.learnExit(peerExit)) (handling.learnedExits ??= []).push(peerExit);
    }
    for (const handout of message.handouts ?? []) {
      const peerHandout: PeerHandout = { ...handout, scanner_id: message.from };
      if (this.moves.learnHandout(peerHandout)) (handling.learnedHandouts ??= []).push(peerHandout);
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
    for (const entry of toldEntries(message)) {
      const at = Date.parse(entry.at);
      if (at > nowMs + this.replayWindowMs) return `time ${entry.at} is in the future`;
      if (window && (at < window.fromMs || at > window.toMs)) return `time ${entry.at} is outside the event's window`;
    }
    return null;
  }

  private receiptTrust(m: LanMembership): ReceiptTrust {
    return { iss: m.trust.iss, eid: m.eid, keys: m.trust.keys(), eventWindow: m.eventWindow, futureMs: this.replayWindowMs };
  }
}
