/**
 * A party ticket at this door (docs/kiosk.md "Party tickets"; docs/protocol.md "Party tickets (project extension)"),
 * pure: the counts the kiosk goes by, from the issuer's last word and what it admitted itself since, and what an
 * ADMIT decided here says after `people` came in. The rules are the issuer's own (protocol/party.ts), so the kiosk
 * offline never lets in more than the issuer would: at most the party's remaining count as last known.
 */
import type { EntryPolicy } from '../../../protocol/door.js';
import { afterEntry, judgePartyExit, partyState, type PartyCounts, type PartyState } from '../../../protocol/party.js';

/** An entry or exit of a party the issuer has not answered yet (this kiosk's or a LAN peer's), with its people and time. */
export interface PartyMove {
  action: 'entry' | 'exit';
  people: number;
  /** When it was made (ISO): this kiosk's and its peers' moves count in the order they were made. */
  at: string;
}

/**
 * The counts as last known: the issuer's (its last answer here, or a status answer), then this kiosk's entries and
 * exits the issuer has not answered yet and those LAN peers told of since, all in the order they were made
 * (docs/kiosk.md "Party tickets": exits count people too). Never above the size; an exit never takes out more than
 * are inside as known. A door off the LAN's entries are not known, so offline a party may look emptier inside than
 * it is only by exits the issuer would refuse too.
 */
export function knownParty(
  size: number,
  issuer: Pick<PartyState, 'inside' | 'admitted_total'> | null,
  own: readonly PartyMove[],
  peers: readonly PartyMove[],
  policy: EntryPolicy,
): PartyState {
  const capped = (counts: PartyCounts): PartyCounts => ({
    inside: Math.min(size, counts.inside),
    admitted: Math.min(size, counts.admitted),
  });
  let counts: PartyCounts = issuer === null ? { inside: 0, admitted: 0 } : { inside: issuer.inside, admitted: issuer.admitted_total };
  for (const move of inTimeOrder(own, peers)) {
    if (move.action === 'entry') counts = capped(afterEntry(counts, move.people, policy));
    else {
      const exit = judgePartyExit(counts, move.people);
      if (exit.kind === 'exit') counts = exit.after;
    }
  }
  return partyState(size, capped(counts), policy);
}

/** This kiosk's moves and its peers' merged by time; at the same time, this kiosk's first (a stable sort). */
function inTimeOrder(own: readonly PartyMove[], peers: readonly PartyMove[]): PartyMove[] {
  return [...own, ...peers].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
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
