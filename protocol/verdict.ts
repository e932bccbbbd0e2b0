/**
 * The door's answer to one scanned ticket, and the offline rules that reach it.
 *
 * Pure: no clock, no storage, no network. The caller passes "now", the issuer's
 * keys (from the cached discovery document) and what this kiosk has already
 * admitted. The rules are ONE ordered list of named checks with stable codes
 * (pretix-style precedence): the first check that fails decides the refusal.
 */
import type { Handout, HandoutGiven } from './handouts.js';
import { decodeBase64Url } from './base64url.js';
import { verifyEd25519 } from './ed25519.js';
import { QrCodeError } from './qr-code-error.js';
import { decodeTicketCode, TICKET_PREFIX, type DecodedTicket } from './ticket-code.js';
import { entriesOnLocalDay, evaluateRules, type CheckInRules, type RuleRefusal } from './check-in-rules.js';
import type { DoorCheckInResponse, EntryPolicy, GateDirection } from './door.js';
import { partyStateFrom, type PartyState } from './party.js';
import { SUPPORTED_VERSIONS, type IsoDateTime, type PublicKey, type TicketPayload } from './types.js';

export const REFUSAL_REASONS = [
  'not_a_ticket',
  'unsupported_version',
  'wrong_issuer',
  'unknown_key',
  'invalid_signature',
  'wrong_event',
  'expired',
  'revoked',
  'already_used',
  /** The issuer does not know the ticket (404 NOT_FOUND), though its signature verified. */
  'unknown_ticket',
  /** The issuer was unreachable and the kiosk runs the `strict` offline policy. */
  'offline',
  /** Door operations (docs/protocol.md "Door operations"): an exit of a ticket that is not checked in, or already out. */
  'not_inside',
  /** The event is at capacity: wait until someone leaves. */
  'venue_full',
  /** The issuer was unreachable and the ticket's type is `online-only`: send the holder to the box office. */
  'needs_connection',
  /** The issuer was unreachable and this kiosk has admitted the ticket type's hourly cap offline. */
  'offline_cap_reached',
  /** An annulment of a ticket that is not checked in: nothing to undo. */
  'not_checked_in',
  /** A check-in rule of the event refused the entry (docs/protocol.md "Check-in rules"); the verdict's `rule` says which. */
  'rule_refused',
  /** Offline: another kiosk of the event on this LAN said it admitted the ticket (docs/kiosk.md "Kiosks on one LAN"). */
  'admitted_at_other_gate',
  /** docs/kiosk.md "ID checks": the steward denied the holder's ID (name or age); nothing was checked in. */
  'id_check_failed',
  /** docs/protocol.md "Party tickets (project extension)": more people than the party has left; nothing was checked in. */
  'party_exceeded',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/**
 * The offline checks, in precedence order. Codes are stable (they are stored
 * with scans and shown to operators); several codes may share one reason.
 */
export const OFFLINE_CHECKS = [
  'prefix', // looks like `tkt<N>.`
  'prefix_version', // N is a version we speak (docs/protocol.md "Versioning")
  'decode', // base64url, JSON, required fields, 64-byte signature
  'payload_version', // payload `v` supported
  'issuer', // payload `iss` is the issuer this kiosk is enrolled with
  'key_known', // `kid` is in the discovery document
  'key_window', // the key was valid when the ticket was issued, and is valid now
  'signature', // Ed25519 over the payload segment (docs/protocol.md "Codes people scan")
  'event', // payload `eid` is the enrolled event
  'expiry', // `exp` has not passed
  'revoked_list', // not in the revocation list of the last sync (offline only: docs/kiosk.md "Revocation list")
  'rules', // the event's check-in rules let this ticket in at this gate, now (protocol/check-in-rules.ts)
  'seen_here', // this kiosk has not admitted the ticket already
  'seen_by_peer', // no kiosk of the event on this LAN said it admitted the ticket (offline only: docs/kiosk.md "Kiosks on one LAN")
] as const;
export type OfflineCheckCode = (typeof OFFLINE_CHECKS)[number];

/**
 * Which gate directions each check applies to. An exit lets a person out: the
 * ticket must be genuine and for this event, but an expired ticket may leave,
 * and an exit of a ticket this kiosk never admitted is allowed (it may have
 * entered at another gate). Revocation is the issuer's to know, never checked offline.
 */
export const CHECK_DIRECTIONS: Readonly<Record<OfflineCheckCode, readonly GateDirection[]>> = {
  prefix: ['entry', 'exit'],
  prefix_version: ['entry', 'exit'],
  decode: ['entry', 'exit'],
  payload_version: ['entry', 'exit'],
  issuer: ['entry', 'exit'],
  key_known: ['entry', 'exit'],
  key_window: ['entry', 'exit'],
  signature: ['entry', 'exit'],
  event: ['entry', 'exit'],
  expiry: ['entry'],
  revoked_list: ['entry'],
  rules: ['entry'],
  seen_here: ['entry'],
  seen_by_peer: ['entry'],
};

export const CHECK_REASON: Readonly<Record<OfflineCheckCode, RefusalReason>> = {
  prefix: 'not_a_ticket',
  prefix_version: 'unsupported_version',
  decode: 'not_a_ticket',
  payload_version: 'unsupported_version',
  issuer: 'wrong_issuer',
  key_known: 'unknown_key',
  key_window: 'unknown_key',
  signature: 'invalid_signature',
  event: 'wrong_event',
  expiry: 'expired',
  revoked_list: 'revoked',
  rules: 'rule_refused',
  seen_here: 'already_used',
  seen_by_peer: 'admitted_at_other_gate',
};

/**
 * Which rule decided: an offline check, the issuer's answer, the offline
 * policy, or the ticket type's offline exposure policy (protocol/offline-exposure.ts).
 */
export type DecidedBy = OfflineCheckCode | 'issuer' | 'offline_policy' | 'exposure_policy' | 'id_check';

/** What the door shows about the ticket. Only filled from a payload whose signature verified, or from the issuer. */
export interface VerdictTicket {
  tid: string;
  /** The ticket's own event (for `wrong_event`, the other event). */
  eid: string;
  holder_name?: string;
  ticket_type?: string;
  /** Display name of the ticket's event, when known. */
  event_name?: string;
}

interface VerdictBase {
  decided_at: IsoDateTime;
  /** True when the issuer was not consulted (or not reachable) for this verdict. */
  offline: boolean;
  decided_by: DecidedBy;
  ticket?: VerdictTicket;
  /** The kiosk lane whose scanner read it (`lane-1`, …), on a kiosk with several scanners (docs/kiosk.md "Several scanners"). */
  lane?: string;
  /**
   * A party ticket (docs/kiosk.md "Party tickets"): its counts after this scan, as the issuer answered or, offline, as
   * this kiosk knows them; `people`: how many this scan let in (or out). Absent for a ticket of one person.
   */
  party?: PartyState & { people?: number };
}

export interface AdmitVerdict extends VerdictBase {
  kind: 'admit';
  /**
   * The door must look at this person first (docs/kiosk.md "Attention notes"): the issuer's `attention` answer
   * online, the kiosk's synced notes offline. Absent when neither a flag nor a note applies.
   */
  attention?: VerdictAttention;
  /**
   * docs/kiosk.md "Handouts": what the person gets, with what was given, when and where: the issuer's `handouts`
   * answer online (with this kiosk's handouts not yet in it), the synced list and this kiosk's handouts offline.
   */
  handouts?: Handout[];
  /**
   * docs/kiosk.md "Handouts": a handout station's scan (never an admission, nothing checked in): the screen says
   * HANDOUT and shows the items.
   */
  station?: 'handout';
  /** docs/kiosk.md "Handouts": what the last tap on an item came to, when it was not simply given online. */
  handout_note?: { kind: 'refused_given' | 'refused_not_listed' | 'offline'; item: string; given?: HandoutGiven };
}

/** An attention flag and the check-in notes of a ticket and its type (type's note first). */
export interface VerdictAttention {
  required: boolean;
  notes: string[];
}

/** An exit gate lets the person out (docs/protocol.md "Door operations"): neither an admission nor a refusal. */
export interface ExitVerdict extends VerdictBase {
  kind: 'exit';
}

export interface RefuseVerdict extends VerdictBase {
  kind: 'refuse';
  reason: RefusalReason;
  /** For `already_used`: the time of the first use (the issuer's, or this kiosk's when offline). */
  first_used_at?: IsoDateTime;
  /** For `admitted_at_other_gate`: the gate of the kiosk that admitted the ticket (null: it has none), and whether it admitted it offline. */
  first_used_gate?: string | null;
  first_used_offline?: boolean;
  /** For `admitted_at_other_gate`: the scanner_id of the kiosk that admitted the ticket, as it told this kiosk on the LAN. */
  first_used_scanner?: string;
  /** For `offline_cap_reached`: this kiosk's offline admissions of the type in the last hour, and the cap. */
  offline_count?: number;
  offline_cap?: number;
  /** A short technical detail for the operator (never a secret). */
  detail?: string;
  /** For `rule_refused`: the check-in rule that refused, in words (protocol/check-in-rules.ts). */
  rule?: RuleRefusal;
  /** For `revoked` decided offline from the revocation list: when that list was last synced (null: never fully). */
  revocations_synced_at?: IsoDateTime | null;
}

export type Verdict = AdmitVerdict | ExitVerdict | RefuseVerdict;

/**
 * What the checks of a verified payload need to know (checkVerifiedTicketOffline): the checks after the
 * signature in OFFLINE_CHECKS. All of it is data, supplied by the caller.
 */
export interface VerifiedTicketContext {
  /** The event this kiosk's key is scoped to. */
  eid: string;
  nowMs: number;
  /** When this kiosk first admitted the ticket, or undefined. */
  admittedHereAt(tid: string): IsoDateTime | undefined;
  /**
   * When another kiosk of the event on the LAN admitted the ticket, as it told this one (docs/kiosk.md
   * "Kiosks on one LAN"), or undefined. The kiosk answers only while offline: online, the issuer decides.
   */
  admittedByPeerAt?(tid: string): PeerAdmissionFact | undefined;
  /**
   * The revocation list of the last sync with the issuer (docs/kiosk.md "Revocation list"), or absent. The kiosk
   * passes it while offline only: online, the issuer decides.
   */
  revocations?: { isRevoked(tid: string): boolean; syncedAt: IsoDateTime | null };
  /**
   * The event's check-in rules as the last heartbeat gave them (docs/kiosk.md "Check-in rules offline"), this
   * kiosk's gate, the event's entry policy, and this kiosk's own admissions of a ticket (its entries per day
   * are counted from them). Absent: no rules.
   */
  checkInRules?: {
    rules: CheckInRules;
    gateId: string | null;
    entryPolicy: EntryPolicy;
    admissionsHere(tid: string): readonly IsoDateTime[];
  };
  /** Which way this kiosk scans; default entry. Checks not in CHECK_DIRECTIONS for it are skipped. */
  direction?: GateDirection;
  /**
   * The event's entry policy, when the kiosk knows it (docs/protocol.md "Per event: entry policy and capacity"). On a re-entry
   * event this kiosk does not know of exits at other gates, and a `seen_here` refusal says so.
   */
  entryPolicy?: EntryPolicy;
}

/** What the offline rules need to know; all of it is data, supplied by the caller. */
export interface OfflineContext extends VerifiedTicketContext {
  /** The issuer base URL this kiosk is enrolled with. */
  issuer: string;
  /** Public keys of the last good discovery document. */
  keys: readonly PublicKey[];
  /** Tolerated clock difference between issuer and kiosk for key windows. Default 5 minutes. */
  clockSkewMs?: number;
  /**
   * Ed25519 verifier. Default: the portable pure-JS one (protocol/ed25519.ts).
   * The kiosk's Node process passes a node:crypto verifier, about ten times
   * faster; both are tested against the RFC 8032 vectors.
   */
  verify?: (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;
}

export type OfflineEvaluation =
  | { pass: true; ticket: DecodedTicket; key: PublicKey }
  | {
      pass: false;
      check: OfflineCheckCode;
      verdict: RefuseVerdict;
      /** The decoded payload when decoding got that far. Unauthenticated unless `signatureVerified`. */
      claimed?: TicketPayload;
      signatureVerified: boolean;
    };

const DEFAULT_SKEW_MS = 5 * 60_000;
const PREFIX = /^tkt(\d+)\./;

/** Mutable working facts threaded through the checks; each check may add one. */
interface Work {
  text: string;
  ctx: OfflineContext;
  ticket?: DecodedTicket;
  key?: PublicKey;
  signatureVerified: boolean;
}

/** A peer kiosk's admission of a ticket, as the offline check `seen_by_peer` uses it. */
export interface PeerAdmissionFact {
  admitted_at: IsoDateTime;
  gate: string | null;
  offline: boolean;
  /** The admitting kiosk's scanner_id, named in the refusal (docs/kiosk.md "Kiosks on one LAN"). */
  scanner_id?: string;
}

type Failure = {
  detail?: string;
  firstUsedAt?: string;
  peer?: PeerAdmissionFact;
  rule?: RuleRefusal;
  revocationsSyncedAt?: IsoDateTime | null;
} | null;
const pass: Failure = null;

/** The checks that read the code and prove it genuine: OFFLINE_CHECKS up to and including the signature. */
type CodeCheckCode = 'prefix' | 'prefix_version' | 'decode' | 'payload_version' | 'issuer' | 'key_known' | 'key_window' | 'signature';
/** The checks of a verified payload: OFFLINE_CHECKS after the signature (checkVerifiedTicketOffline). */
export type TicketCheckCode = Exclude<OfflineCheckCode, CodeCheckCode>;

const CODE_RULES: Readonly<Record<CodeCheckCode, (w: Work) => Failure>> = {
  prefix: (w) => (PREFIX.test(w.text) ? pass : { detail: 'not a tkt code' }),
  prefix_version: (w) => {
    const version = PREFIX.exec(w.text)?.[1];
    return w.text.startsWith(TICKET_PREFIX) ? pass : { detail: `code version ${version}` };
  },
  decode: (w) => {
    try {
      w.ticket = decodeTicketCode(w.text);
      return pass;
    } catch (error) {
      if (error instanceof QrCodeError) return { detail: error.code + (error.field ? `:${error.field}` : '') };
      throw error;
    }
  },
  payload_version: (w) => (SUPPORTED_VERSIONS.includes(payloadOf(w).v) ? pass : { detail: `payload version ${payloadOf(w).v}` }),
  issuer: (w) => (payloadOf(w).iss === w.ctx.issuer ? pass : { detail: 'ticket from another issuer' }),
  key_known: (w) => {
    w.key = w.ctx.keys.find((k) => k.kid === payloadOf(w).kid);
    return w.key ? pass : { detail: `kid ${payloadOf(w).kid} not published` };
  },
  key_window: (w) => {
    // docs/protocol.md "Keys": a retired key keeps `valid_until` and still
    // verifies tickets issued before it; a ticket issued outside the window is forged or misdated.
    const key = w.key!;
    const skew = w.ctx.clockSkewMs ?? DEFAULT_SKEW_MS;
    const from = Date.parse(key.valid_from);
    const until = key.valid_until ? Date.parse(key.valid_until) : Number.POSITIVE_INFINITY;
    const iatMs = payloadOf(w).iat * 1000;
    if (Number.isNaN(from) || Number.isNaN(until)) return { detail: 'key has an unreadable validity window' };
    if (w.ctx.nowMs + skew < from) return { detail: 'key not valid yet' };
    if (iatMs + skew < from || iatMs - skew > until) return { detail: 'ticket issued outside the key validity window' };
    return pass;
  },
  signature: (w) => {
    const ticket = w.ticket!;
    let publicKey: Uint8Array;
    try {
      publicKey = decodeBase64Url(w.key!.public_key);
    } catch {
      return { detail: 'published key is not base64url' };
    }
    w.signatureVerified = (w.ctx.verify ?? verifyEd25519)(ticket.signature, ticket.signedBytes, publicKey);
    return w.signatureVerified ? pass : { detail: 'signature does not verify' };
  },
};

const TICKET_RULES: Readonly<Record<TicketCheckCode, (payload: TicketPayload, ctx: VerifiedTicketContext) => Failure>> = {
  event: (payload, ctx) => (payload.eid === ctx.eid ? pass : { detail: `ticket is for event ${payload.eid}` }),
  // Spec "Ticket QR payload": exp is Unix seconds; the issuer calls a ticket expired when exp is before the scan.
  expiry: (payload, ctx) => (payload.exp * 1000 >= ctx.nowMs ? pass : { detail: 'ticket expiry has passed' }),
  revoked_list: (payload, ctx) => {
    const list = ctx.revocations;
    if (!list?.isRevoked(payload.tid)) return pass;
    return { revocationsSyncedAt: list.syncedAt, detail: 'in the revocation list of the last sync' };
  },
  rules: (payload, ctx) => {
    const given = ctx.checkInRules;
    if (!given) return pass;
    const outcome = evaluateRules(given.rules, {
      ticketType: payload.tt,
      gateId: given.gateId,
      direction: ctx.direction ?? 'entry',
      at: ctx.nowMs,
      entriesToday: entriesOnLocalDay(given.admissionsHere(payload.tid), ctx.nowMs, given.rules.time_zone),
      entryPolicy: given.entryPolicy,
    });
    return outcome.pass ? pass : { rule: outcome.refusal, detail: `check-in rule ${outcome.refusal.rule} (${outcome.refusal.name})` };
  },
  seen_here: (payload, ctx) => {
    const at = ctx.admittedHereAt(payload.tid);
    if (at === undefined) return pass;
    // A re-entry event: the person may have left by another gate since, which this kiosk cannot know offline.
    const exits = ctx.entryPolicy === 'reentry' ? '; exits at other gates are not known offline' : '';
    return { firstUsedAt: at, detail: `already admitted by this kiosk${exits}` };
  },
  seen_by_peer: (payload, ctx) => {
    const peer = ctx.admittedByPeerAt?.(payload.tid);
    if (peer === undefined) return pass;
    const who = `${peer.scanner_id === undefined ? 'another kiosk' : `scanner ${peer.scanner_id}`} at ${peer.gate === null ? 'no gate' : `gate ${peer.gate}`}`;
    return { firstUsedAt: peer.admitted_at, peer, detail: `admitted by ${who} on this LAN` };
  },
};

function payloadOf(w: Work): TicketPayload {
  if (!w.ticket) throw new Error('check ran before decode'); // a bug in OFFLINE_CHECKS order, not bad input
  return w.ticket.payload;
}

function isTicketCheck(check: OfflineCheckCode): check is TicketCheckCode {
  return check in TICKET_RULES;
}

/** The refusal of the first failed check (the one builder of an offline refusal). */
function refusal(check: OfflineCheckCode, failure: NonNullable<Failure>, nowMs: number, verified?: TicketPayload): RefuseVerdict {
  const verdict: RefuseVerdict = {
    kind: 'refuse',
    reason: CHECK_REASON[check],
    decided_at: new Date(nowMs).toISOString(),
    offline: true,
    decided_by: check,
  };
  // Only a verified payload is shown: an unauthenticated holder name would let anyone print "VIP".
  if (verified) verdict.ticket = ticketFromPayload(verified);
  if (failure.firstUsedAt !== undefined) verdict.first_used_at = failure.firstUsedAt;
  if (failure.peer !== undefined) {
    verdict.first_used_gate = failure.peer.gate;
    verdict.first_used_offline = failure.peer.offline;
    if (failure.peer.scanner_id !== undefined) verdict.first_used_scanner = failure.peer.scanner_id;
  }
  if (failure.detail !== undefined) verdict.detail = failure.detail;
  if (failure.rule !== undefined) verdict.rule = failure.rule;
  if (failure.revocationsSyncedAt !== undefined) verdict.revocations_synced_at = failure.revocationsSyncedAt;
  return verdict;
}

/** Runs OFFLINE_CHECKS in order; the first failure decides. The checks after the signature are checkVerifiedTicketOffline's. */
export function evaluateTicketOffline(text: string, ctx: OfflineContext): OfflineEvaluation {
  const w: Work = { text, ctx, signatureVerified: false };
  const direction = ctx.direction ?? 'entry';
  for (const check of OFFLINE_CHECKS) {
    if (isTicketCheck(check)) break; // the signature verified: the rest judge the payload
    if (!CHECK_DIRECTIONS[check].includes(direction)) continue;
    const failure = CODE_RULES[check](w);
    if (failure === null) continue;
    const claimed = w.ticket?.payload;
    const verdict = refusal(check, failure, ctx.nowMs, claimed && w.signatureVerified ? claimed : undefined);
    const result: OfflineEvaluation = { pass: false, check, verdict, signatureVerified: w.signatureVerified };
    if (claimed) result.claimed = claimed;
    return result;
  }
  const ticket = w.ticket!;
  const checked = checkVerifiedTicketOffline(ticket.payload, ctx);
  if (!checked.pass) return { ...checked, signatureVerified: true, claimed: ticket.payload };
  return { pass: true, ticket, key: w.key! };
}

/** The outcome of the checks of a verified payload: the first failed check and its refusal, or a pass. */
export type VerifiedTicketEvaluation = { pass: true } | { pass: false; check: TicketCheckCode; verdict: RefuseVerdict };

/**
 * Runs the checks of OFFLINE_CHECKS that come after the signature, in the same order, on a payload whose
 * signature verified: from `from` on (default: all of them). The kiosk runs them again, from the checks
 * the issuer would have judged, when the issuer does not answer (main/kiosk/decide/scan-decision.ts).
 */
export function checkVerifiedTicketOffline(
  payload: TicketPayload,
  ctx: VerifiedTicketContext,
  from: TicketCheckCode = 'event',
): VerifiedTicketEvaluation {
  const direction = ctx.direction ?? 'entry';
  for (const check of OFFLINE_CHECKS.slice(OFFLINE_CHECKS.indexOf(from))) {
    if (!isTicketCheck(check)) throw new Error('a code check after the signature'); // a bug in OFFLINE_CHECKS order
    if (!CHECK_DIRECTIONS[check].includes(direction)) continue;
    const failure = TICKET_RULES[check](payload, ctx);
    if (failure === null) continue;
    return { pass: false, check, verdict: refusal(check, failure, ctx.nowMs, payload) };
  }
  return { pass: true };
}

export function ticketFromPayload(payload: TicketPayload): VerdictTicket {
  const ticket: VerdictTicket = { tid: payload.tid, eid: payload.eid, event_name: payload.ev.name };
  if (payload.hn !== undefined) ticket.holder_name = payload.hn;
  if (payload.tt !== undefined) ticket.ticket_type = payload.tt;
  return ticket;
}

export function admitVerdict(payload: TicketPayload, offline: boolean, decidedAt: IsoDateTime): AdmitVerdict {
  return {
    kind: 'admit',
    decided_at: decidedAt,
    offline,
    decided_by: offline ? 'offline_policy' : 'issuer',
    ticket: ticketFromPayload(payload),
  };
}

/** An exit decided without the issuer (offline) or recorded by it. */
export function exitVerdict(payload: TicketPayload, offline: boolean, decidedAt: IsoDateTime): ExitVerdict {
  return {
    kind: 'exit',
    decided_at: decidedAt,
    offline,
    decided_by: offline ? 'offline_policy' : 'issuer',
    ticket: ticketFromPayload(payload),
  };
}

/** Offline behaviour (docs/protocol.md "Idempotency and offline scans"): optimistic admits; `strict` refuses. */
export type OfflinePolicy = 'optimistic' | 'strict';

export function offlineVerdict(payload: TicketPayload, policy: OfflinePolicy, decidedAt: IsoDateTime): Verdict {
  if (policy === 'optimistic') return admitVerdict(payload, true, decidedAt);
  return {
    kind: 'refuse',
    reason: 'offline',
    decided_at: decidedAt,
    offline: true,
    decided_by: 'offline_policy',
    ticket: ticketFromPayload(payload),
    detail: 'issuer unreachable; strict offline policy',
  };
}

/**
 * The statuses the issuer may answer to each action (docs/protocol.md "Door
 * operations", Answers); any other is not a protocol answer. `invalid_signature`
 * stays for an entry as the spec lists it.
 */
export const ANSWERS_BY_ACTION = {
  entry: [
    'valid',
    'already_used',
    'revoked',
    'wrong_event',
    'expired',
    'invalid_signature',
    'venue_full',
    'rule_refused',
    'party_exceeded',
  ],
  exit: ['exited', 'not_inside', 'wrong_event'],
  annul: ['annulled', 'not_checked_in', 'wrong_event'],
} as const;
export type AnswerFor<A extends keyof typeof ANSWERS_BY_ACTION> = (typeof ANSWERS_BY_ACTION)[A][number];

/** An answer to an entry or an exit: what the door shows. */
export type DoorScanResponse = Omit<DoorCheckInResponse, 'status'> & { status: AnswerFor<'entry'> | AnswerFor<'exit'> };

/**
 * Maps the issuer's CheckInResponse to the door's verdict. `payload` is the
 * verified ticket that was sent; the issuer's ticket fields win where given.
 * `exited` is the EXIT screen; `valid` the ADMIT one; every other status a refusal.
 */
export function verdictFromCheckIn(response: DoorScanResponse, payload: TicketPayload, decidedAt: IsoDateTime): Verdict {
  const ticket = ticketFromPayload(payload);
  ticket.eid = response.ticket.eid;
  if (response.ticket.holder_name !== undefined) ticket.holder_name = response.ticket.holder_name;
  if (response.ticket.ticket_type !== undefined) ticket.ticket_type = response.ticket.ticket_type;
  // The payload's event name describes the payload's eid only; for wrong_event the issuer may name another.
  if (response.ticket.eid !== payload.eid) delete ticket.event_name;
  // docs/protocol.md "Party tickets (project extension)": the party's counts after the scan, when the issuer sent them.
  const party = partyStateFrom(response.party);
  const withParty = <V extends Verdict>(verdict: V): V => (party === null ? verdict : { ...verdict, party });
  if (response.status === 'valid') return withParty({ kind: 'admit', decided_at: decidedAt, offline: false, decided_by: 'issuer', ticket });
  if (response.status === 'exited') return withParty({ kind: 'exit', decided_at: decidedAt, offline: false, decided_by: 'issuer', ticket });
  const verdict: RefuseVerdict = {
    kind: 'refuse',
    reason: response.status,
    decided_at: decidedAt,
    offline: false,
    decided_by: 'issuer',
    ticket,
  };
  if (response.status === 'already_used' && response.ticket.checked_in_at) verdict.first_used_at = response.ticket.checked_in_at;
  if (response.status === 'rule_refused' && response.rule) verdict.rule = response.rule;
  return withParty(verdict);
}

/** A refusal decided by the issuer without a CheckInResponse (404 NOT_FOUND). */
export function unknownTicketVerdict(payload: TicketPayload, decidedAt: IsoDateTime): RefuseVerdict {
  return {
    kind: 'refuse',
    reason: 'unknown_ticket',
    decided_at: decidedAt,
    offline: false,
    decided_by: 'issuer',
    ticket: ticketFromPayload(payload),
    detail: 'the issuer does not know this ticket',
  };
}
