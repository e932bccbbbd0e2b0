/**
 * A party ticket at this door (docs/kiosk.md "Party tickets"; docs/protocol.md "Party tickets (project extension)"),
 * pure: the counts the kiosk goes by, from the issuer's last word and what it admitted itself since, and what an
 * ADMIT decided here says after `people` came in. The rules are the issuer's own (protocol/party.ts), so the kiosk
 * offline never lets in more than the issuer would: at most the party's remaining count as last known.
 */
import type { EntryPolicy } from '../../../protocol/door.js';
import { afterEntry, judgePartyExit, partyState, type PartyCounts, type PartyState } from '../../../protocol/party.js';

/** One of this kiosk's entries or exits of a party the issuer has not answered yet, with its people. */
export interface PartyMove {
  action: 'entry' | 'exit';
  people: number;
}

/**
 * The counts as last known: the issuer's (its last answer here, or a status answer), plus the people LAN peers told
 * of since, then this kiosk's entries and exits the issuer has not answered yet, in their order (docs/kiosk.md
 * "Party tickets": exits count people too). Never above the size. Peers do not tell exits, so offline a party may
 * look fuller inside than it is, never emptier.
 */
export function knownParty(
  size: number,
  issuer: Pick<PartyState, 'inside' | 'admitted_total'> | null,
  own: readonly PartyMove[],
  peers: number,
  policy: EntryPolicy,
): PartyState {
  const capped = (counts: PartyCounts): PartyCounts => ({
    inside: Math.min(size, counts.inside),
    admitted: Math.min(size, counts.admitted),
  });
  let counts: PartyCounts = issuer === null ? { inside: 0, admitted: 0 } : { inside: issuer.inside, admitted: issuer.admitted_total };
  if (peers > 0) counts = capped(afterEntry(counts, peers, policy));
  for (const move of own) {
    if (move.action === 'entry') counts = capped(afterEntry(counts, move.people, policy));
    else {
      const exit = judgePartyExit(counts, move.people);
      if (exit.kind === 'exit') counts = exit.after;
    }
  }
  return partyState(size, capped(counts), policy);
}

/** What an exit decided here (offline) says: the known counts after `people` went out (never more than were inside). */
export function partyAfterExit(known: PartyState, people: number, policy: EntryPolicy): PartyState & { people: number } {
  const exit = judgePartyExit({ inside: known.inside, admitted: known.admitted_total }, people);
  const after = exit.kind === 'exit' ? exit.after : { inside: 0, admitted: known.admitted_total };
  return { ...partyState(known.size, after, policy), people: exit.kind === 'exit' ? exit.people : 0 };
}

/** The buttons the steward picks from: 1 to what remains. */
export function peopleChoices(remaining: number): number[] {
  return Array.from({ length: Math.max(0, remaining) }, (_, i) => i + 1);
}

/** What an ADMIT decided here (offline) says: the known counts after `people` came in. */
export function partyAfterAdmit(known: PartyState, people: number, policy: EntryPolicy): PartyState & { people: number } {
  const after = afterEntry({ inside: known.inside, admitted: known.admitted_total }, people, policy);
  return { ...partyState(known.size, after, policy), people };
}
