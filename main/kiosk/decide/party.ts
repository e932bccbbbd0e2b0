/**
 * A party ticket at this door (docs/kiosk.md "Party tickets"; docs/protocol.md "Party tickets (project extension)"),
 * pure: the counts the kiosk goes by, from the issuer's last word and what it admitted itself since, and what an
 * ADMIT decided here says after `people` came in. The rules are the issuer's own (protocol/party.ts), so the kiosk
 * offline never lets in more than the issuer would: at most the party's remaining count as last known.
 */
import type { EntryPolicy } from '../../../protocol/door.js';
import { afterEntry, judgePartyExit, partyState, type PartyCounts, type PartyState } from '../../../protocol/party.js';

/**
 * The counts as last known: the issuer's (its last answer here, or a status answer), plus this kiosk's entries it
 * has not answered yet, plus the people LAN peers told of since (each never above the size), less the people of this
 * kiosk's exits the issuer has not answered yet (docs/kiosk.md "Party tickets": exits count people too; peers do not
 * tell exits, so offline a party may look fuller inside than it is, never emptier).
 */
export function knownParty(
  size: number,
  issuer: Pick<PartyState, 'inside' | 'admitted_total'> | null,
  ownUnanswered: number,
  peers: number,
  policy: EntryPolicy,
  ownExits = 0,
): PartyState {
  const base: PartyCounts = issuer === null ? { inside: 0, admitted: 0 } : { inside: issuer.inside, admitted: issuer.admitted_total };
  const extra = ownUnanswered + peers;
  const entered = extra === 0 ? base : afterEntry(base, extra, policy);
  const capped = { inside: Math.min(size, entered.inside), admitted: Math.min(size, entered.admitted) };
  const exit = ownExits === 0 ? null : judgePartyExit(capped, ownExits);
  return partyState(size, exit?.kind === 'exit' ? exit.after : capped, policy);
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
