/**
 * What this kiosk knows of a party ticket's people (docs/kiosk.md "Party tickets"): the issuer's last answer about it
 * (a check-in answer carries `party`), and this kiosk's own admissions the issuer has not answered yet, with the
 * people each counted. decide/party.ts adds them up.
 */
import { partyStateFrom, type PartyState } from '../../../protocol/party.js';
import type { PartyMove } from '../decide/party.js';
import type { Statements } from './database.js';

export interface PartyFacts {
  /** The issuer's counts in its newest answer about the ticket here, or null (none since the last annulment). */
  lastAnswer: PartyState | null;
  /** When this kiosk got that answer (ISO), or null. */
  lastAnsweredAt: string | null;
  /**
   * This kiosk's entries and exits of the ticket not yet answered by the issuer (queued, in flight or held), in the
   * order they were made, with their people (docs/kiosk.md "Party tickets": exits count people too).
   */
  own: PartyMove[];
}

/** A ticket's scans after this kiosk's last confirmed annulment of it (as scans.ts counts admissions). */
const SINCE_ANNULMENT = `seq > COALESCE((SELECT MAX(seq) FROM scans WHERE tid = ? AND action = 'annul' AND result_status = 'annulled'), 0)`;

export function partyFacts(sql: Statements, tid: string): PartyFacts {
  const answer = sql
    .statement(
      `SELECT result, answered_at FROM scans WHERE tid = ? AND result IS NOT NULL AND json_extract(result, '$.party') IS NOT NULL
         AND ${SINCE_ANNULMENT} ORDER BY answered_at DESC, seq DESC LIMIT 1`,
    )
    .get(tid, tid) as { result: string; answered_at: string | null } | undefined;
  // An entry counts once admitted here; an exit once it let people out here (an exit's verdict is `exit`).
  const own = sql
    .statement(
      `SELECT CASE WHEN action = 'exit' THEN 'exit' ELSE 'entry' END AS action, COALESCE(people, 1) AS people, scanned_at AS at FROM scans
         WHERE tid = ? AND queue_state IN ('sending', 'pending', 'held') AND ${SINCE_ANNULMENT}
           AND ((admitted_at IS NOT NULL AND (action IS NULL OR action = 'entry'))
             OR (action = 'exit' AND json_extract(verdict, '$.kind') = 'exit'))
         ORDER BY seq`,
    )
    .all(tid, tid) as PartyMove[];
  const parsed = answer === undefined ? null : partyStateFrom((JSON.parse(answer.result) as { party?: unknown }).party);
  return {
    lastAnswer: parsed,
    lastAnsweredAt: answer?.answered_at ?? null,
    own: own.map((move) => ({ action: move.action, people: Number(move.people), at: move.at })),
  };
}
