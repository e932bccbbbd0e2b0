/**
 * Exits and handouts on the LAN (docs/protocol.md "LAN messages between kiosks (project extension)", types `exit`
 * and `handout`; docs/kiosk.md "Kiosks on one LAN"): what a kiosk tells its peers of the people who went out at its
 * gate and of the items it handed over, as wire tuples inside the signed array, and the shape checks a receiver
 * makes of them. Pure. lan-wire.ts puts them in the datagram; lan-peers.ts decides whether they are believed.
 *
 * Both go in message types of their own, so a kiosk of an earlier version drops them as an unknown type (one log
 * line, against its "malformed" budget) before it reads a field or moves its replay window: it keeps working and
 * knows no more than before.
 */
import { handoutItemProblem } from '../../../protocol/handouts.js';
import { MAX_PARTY } from '../../../protocol/party.js';
import { isGate, isIsoTime, isLabel } from './lan-fields.js';

/** Exits or handouts in one datagram (with the certificate, well under 1.5 KB: no IP fragmentation on Ethernet). */
export const MOVES_PER_DATAGRAM = 8;
/** More entries than this in one datagram: malformed (a sender never sends more than MOVES_PER_DATAGRAM). */
const MAX_MOVES_READ = 64;

/** People who went out at the sender's gate: one scan at its exit. */
export interface LanExit {
  tid: string;
  exited_at: string;
  /** The exit kiosk's gate, or null. */
  gate: string | null;
  /** The exit kiosk decided without the issuer. */
  offline: boolean;
  /** How many of a party went out (1 for a ticket of one person), 1..MAX_PARTY. */
  people: number;
}

/** One item handed over at the sender (docs/kiosk.md "Handouts"): as the issuer's answers carry a handout given. */
export interface LanHandout {
  /** The handout's id (the issuer's idempotency key): the same handout told twice, or later by the issuer, is one. */
  hid: string;
  tid: string;
  item: string;
  given_at: string;
  gate: string | null;
  /** The giving kiosk's name, for "given 20:01 at Door 1 (North)". */
  scanner: string;
}

/** A peer's exit or handout as kept: with the scanner_id its certificate names. */
export type PeerExit = LanExit & { scanner_id: string };
export type PeerHandout = LanHandout & { scanner_id: string };

/** One entry or exit of a party at a peer, as decide/party.ts knownParty merges it with this kiosk's own. */
export interface PeerMove {
  action: 'entry' | 'exit';
  people: number;
  at: string;
}

type WireExit = [tid: string, exited_at: string, gate: string | null, offline: 0 | 1, people: number];
type WireHandout = [hid: string, tid: string, item: string, given_at: string, gate: string | null, scanner: string];

export function wireExits(exits: readonly LanExit[]): WireExit[] {
  return exits.map((e) => [e.tid, e.exited_at, e.gate, e.offline ? 1 : 0, e.people]);
}

export function wireHandouts(handouts: readonly LanHandout[]): WireHandout[] {
  return handouts.map((h) => [h.hid, h.tid, h.item, h.given_at, h.gate, h.scanner]);
}

const isPeople = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_PARTY;

/** The wire `ext` of an `exit` message, checked; a problem in words when any entry is not as documented. */
export function decodeExits(value: unknown): LanExit[] | { problem: string } {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_MOVES_READ) return { problem: 'bad exits list' };
  const exits: LanExit[] = [];
  for (const entry of value) {
    if (!Array.isArray(entry) || entry.length !== 5) return { problem: 'bad exit' };
    const [tid, at, gate, offline, people] = entry as unknown[];
    if (!isLabel(tid, 128) || !isIsoTime(at) || !isGate(gate) || (offline !== 0 && offline !== 1)) return { problem: 'bad exit' };
    if (!isPeople(people)) return { problem: `exit people ${JSON.stringify(people)} is not a whole number from 1 to ${MAX_PARTY}` };
    exits.push({ tid, exited_at: at, gate, offline: offline === 1, people });
  }
  return exits;
}

/** The wire `hnd` of a `handout` message, checked; a problem in words when any entry is not as documented. */
export function decodeHandouts(value: unknown): LanHandout[] | { problem: string } {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_MOVES_READ) return { problem: 'bad handouts list' };
  const handouts: LanHandout[] = [];
  for (const entry of value) {
    if (!Array.isArray(entry) || entry.length !== 6) return { problem: 'bad handout' };
    const [hid, tid, item, at, gate, scanner] = entry as unknown[];
    if (typeof hid !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(hid)) return { problem: 'bad handout id' };
    if (typeof item !== 'string' || handoutItemProblem(item) !== null) return { problem: 'bad handout item' };
    if (!isLabel(tid, 128) || !isIsoTime(at) || !isGate(gate) || !isLabel(scanner, 100)) return { problem: 'bad handout' };
    handouts.push({ hid, tid, item, given_at: at, gate, scanner });
  }
  return handouts;
}
