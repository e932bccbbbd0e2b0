/**
 * Each event's check-in rules (docs/protocol.md "Check-in rules"): one validated rules file per event, in
 * `check_in_rules` (migration 7), and the facts the rules need about one ticket (its entries).
 */
import { NO_RULES, parseRules, type CheckInRules } from '../../protocol/check-in-rules.js';
import type { Sql } from './sql.js';

export interface CheckInRulesRow {
  eid: string;
  /** JSON, as validateRules returned it. */
  rules: string;
  updated_at: string;
}

/** The event's rules, or null when none are set. Stored rules were validated; they are validated again on the way out. */
export async function findCheckInRules(db: Sql, eid: string): Promise<{ rules: CheckInRules; updated_at: string } | null> {
  const row = await db.get<CheckInRulesRow>('SELECT eid, rules, updated_at FROM check_in_rules WHERE eid = ?', [eid]);
  return row ? { rules: storedRules(row.rules), updated_at: row.updated_at } : null;
}

/**
 * Rules as stored (JSON): they were validated when saved, and are validated again on the way out, once per
 * stored text: every explicit entry and every heartbeat reads them, and evaluating rules never changes them.
 */
export function storedRules(json: string): CheckInRules {
  let rules = parsedRules.get(json);
  if (rules === undefined) {
    if (parsedRules.size >= PARSED_RULES_KEPT) parsedRules.clear();
    rules = parseRules(JSON.parse(json));
    parsedRules.set(json, rules);
  }
  return rules;
}

/** Rules texts kept parsed: one per event with rules is plenty; more only after many changes. */
const PARSED_RULES_KEPT = 64;
const parsedRules = new Map<string, CheckInRules>();

/** The rules to judge by: the event's, or none. */
export async function rulesOf(db: Sql, eid: string): Promise<CheckInRules> {
  return (await findCheckInRules(db, eid))?.rules ?? NO_RULES;
}

/** Sets (replaces) the event's rules; they must have been validated (parseRules). */
export async function saveCheckInRules(db: Sql, eid: string, rules: CheckInRules, now: string): Promise<void> {
  await db.run(
    `INSERT INTO check_in_rules (eid, rules, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (eid) DO UPDATE SET rules = excluded.rules, updated_at = excluded.updated_at`,
    [eid, JSON.stringify(rules), now],
  );
}

/** Removes the event's rules; true when there were some. */
export async function clearCheckInRules(db: Sql, eid: string): Promise<boolean> {
  return (await db.run('DELETE FROM check_in_rules WHERE eid = ?', [eid])).changes > 0;
}

/**
 * The ticket's entries that count for "entries per day" (docs/protocol.md "Check-in rules"): every entry
 * recorded (first entries, re-entries, late ones: they happened) since its last annulment, which resets the
 * count, as the kiosk counts its own (LocalStore.admissionTimes).
 */
export async function countedEntryTimes(db: Sql, tid: string): Promise<string[]> {
  const rows = await db.all<{ at: string }>(
    `SELECT at FROM admission_events WHERE tid = ? AND action = 'entry'
       AND id > COALESCE((SELECT MAX(id) FROM admission_events WHERE tid = ? AND action = 'annul'), 0)
     ORDER BY id`,
    [tid, tid],
  );
  return rows.map((row) => row.at);
}
