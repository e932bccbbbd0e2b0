/**
 * The lookup card's lines for a ticket's handout items and its party (docs/issuer.md "Admin dashboard", "Handouts"),
 * as its status answer carries them: each item given of due with the last handout's time and place, and a party's
 * size, people inside, admitted and still to come. Apart from dashboard/handouts.ts, which needs the actions' context.
 */
import type { TicketView } from '../issuer/dashboard-api.js';
import { formatClock, formatCount } from './format.js';
import { t, tn } from './messages/format.js';

/** The lookup card's facts for a ticket's party and items (docs/issuer.md "Admin dashboard"). */
export function handoutAndPartyFacts(ticket: TicketView): [string, string][] {
  const facts: [string, string][] = [];
  if (ticket.party !== null)
    facts.push([
      t('ticket.fact.party'),
      tn('ticket.party', ticket.party.size, {
        inside: formatCount(ticket.party.inside),
        admitted: formatCount(ticket.party.admitted_total),
        remaining: formatCount(ticket.party.remaining),
      }),
    ]);
  for (const handout of ticket.handouts ?? []) {
    const last = handout.given[handout.given.length - 1];
    const given = tn('ticket.handout', handout.count, { item: handout.item, given: formatCount(handout.given.length) });
    const where = last === undefined ? null : last.gate === null ? last.scanner : `${last.scanner} (${last.gate})`;
    facts.push([
      t('ticket.fact.handout'),
      last === undefined ? given : `${given} · ${t('ticket.handout_last', { time: formatClock(last.at), where: where! })}`,
    ]);
  }
  return facts;
}
