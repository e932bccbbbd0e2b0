/**
 * A party ticket at this door (docs/kiosk.md "Party tickets"; docs/protocol.md "Party tickets (project extension)"),
 * pure: the counts the kiosk goes by, from the issuer's last word and what it admitted itself since, and what an
 * ADMIT decided here says after `people` came in. The rules are the issuer's own (protocol/party.ts), so the kiosk
 * offline never lets in more than the issuer would: at most the party's remaining count as last known.
 */
import type { EntryPolicy } from '../../../protocol/door.js';
import { afterEntry, partyState, type PartyCounts, type PartyState } from '../../../protocol/party.js';

/**
 * The counts as last known: the issuer's (its last answer here, or a status answer), plus this kiosk's entries it
 * has not answered yet, plus the people LAN peers told of since (each never above the size).
 */
export function knownParty(
  size: number,
  issuer: Pick<PartyState, 'inside' | 'admitted_total'> | null,
  ownUnanswered: number,
  peers: number,
  policy: EntryPolicy,
): PartyState {
  const base: PartyCounts = issuer === null ? { inside: 0, admitted: 0 } : { inside: issuer.inside, admitted: issuer.admitted_total };
  const extra = ownUnanswered + peers;
  const counts = extra === 0 ? base : afterEntry(base, extra, policy);
  return partyState(size, { inside: Math.min(size, counts.inside), admitted: Math.min(size, counts.admitted) }, policy);
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
