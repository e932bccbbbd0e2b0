/**
 * The counts a party ticket goes by at the door (docs/kiosk.md "Party tickets"): online the issuer's status answer
 * within the online budget, else the synced list's size with the issuer's last answer here, this kiosk's own entries
 * since and the parts and exits LAN peers told of (decide/party.ts knownParty); and what a verdict decided here says of them.
 * door-scan.ts asks before a check-in; the party screen (party-door.ts) offers what these counts leave.
 */
import type { DiscoveryDocument, TicketPayload, Verdict } from '../../protocol/index.js';
import type { EntryPolicy } from '../../protocol/door.js';
import { partySizeOf, partyStateFrom, type PartyState } from '../../protocol/party.js';
import { knownParty, partyAfterAdmit, partyAfterExit } from './decide/party.js';
import type { Enrollment } from './store/local-store.js';
import type { PartyFacts } from './store/party.js';
import type { Heartbeat } from './sync/heartbeat.js';
import type { IssuerClient } from './sync/issuer-client.js';
import type { IssuerLink } from './sync/issuer-link.js';
import type { LanDoor } from './sync/lan-door.js';

/** What the party counts read: the issuer (status within the budget), the heartbeat's entry policy, the list, LAN peers. */
export interface PartyCountsDeps {
  client: IssuerClient;
  link: IssuerLink;
  heartbeat: Heartbeat;
  lan: LanDoor;
  /** Time the door waits for the issuer before taking the offline path. */
  budgetMs: number;
  /** A ticket's party size by the synced list (1: one person); `unsynced`: no list yet. */
  partySize: (tid: string) => number | 'unsynced';
  /** The issuer's last answer about the ticket's party here and this kiosk's own unanswered entries of it. */
  partyFacts: (tid: string) => PartyFacts;
}

/** A party's counts as this kiosk knows them, with the entry policy they were counted by. */
export interface KnownParty {
  state: PartyState;
  policy: EntryPolicy;
}

export class PartyCounts {
  constructor(private readonly deps: PartyCountsDeps) {}

  /** A ticket of several people by the synced list, or (no list yet) by the issuer's last answer about it here. */
  isParty(tid: string): boolean {
    const listed = this.deps.partySize(tid);
    return listed === 'unsynced' ? (this.deps.partyFacts(tid).lastAnswer?.size ?? 1) > 1 : listed > 1;
  }

  /**
   * The party a ticket has, with the counts the door goes by: online the issuer's status answer (within the budget),
   * else the synced list's size with the issuer's last answer here and this kiosk's own entries since
   * (decide/party.ts knownParty). Null: a ticket of one person (or none known).
   */
  async forScan(
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

  /** The party's counts as this kiosk knows them now (no request): the list's size, the last answer, its own entries. */
  knownNow(payload: TicketPayload, enrollment: Enrollment): KnownParty | null {
    const listed = this.deps.partySize(payload.tid);
    const facts = this.deps.partyFacts(payload.tid);
    const size = listed === 'unsynced' ? (facts.lastAnswer?.size ?? 1) : listed;
    if (size === 1) return null;
    const policy = this.deps.heartbeat.last(enrollment)?.response.entry_policy ?? 'single';
    const peers = this.deps.lan.peerMoves(payload.tid, facts.lastAnsweredAt);
    return { state: knownParty(size, facts.lastAnswer, facts.own, peers, policy), policy };
  }
}

/**
 * An ADMIT of a party's part decided here says how many are in now, as the kiosk knows it (decide/party.ts); an
 * EXIT, how many are still inside.
 */
export function withLocalParty(verdict: Verdict, known: KnownParty | null, people: number | undefined): Verdict {
  if (known === null || people === undefined) return verdict;
  // `known` was read before this scan was stored: its people come on top (or go out).
  if (verdict.kind === 'admit') return { ...verdict, party: partyAfterAdmit(known.state, people, known.policy) };
  if (verdict.kind === 'exit') return { ...verdict, party: partyAfterExit(known.state, people, known.policy) };
  return verdict;
}

/** Offline, a party this kiosk knows to be used up: refused here as `already_used`, nothing queued. */
export function partyUsedUpVerdict(payload: TicketPayload, party: PartyState, decidedAt: string): Verdict {
  return {
    kind: 'refuse',
    reason: 'already_used',
    decided_at: decidedAt,
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
}
