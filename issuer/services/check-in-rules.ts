/**
 * Setting an event's check-in rules (docs/issuer.md "Check-in rules"; the format: docs/protocol.md "Check-in
 * rules"). The rules themselves are protocol/check-in-rules.ts; the check-in applies them
 * (check-in-decision.ts, check `rules`) and the heartbeat carries them to the kiosks (door.ts).
 */
import { validateRules, type CheckInRules } from '../../protocol/check-in-rules.js';
import { AdminError } from '../error-catalogue.js';
import { clearCheckInRules, findCheckInRules, saveCheckInRules } from '../store/check-in-rules.js';
import { findEvent } from '../store/events.js';
import { namedJob } from '../store/named-jobs.js';

/** What `event rules show|set` print with --json. */
export interface EventRulesJson {
  eid: string;
  /** Null: the event has no rules (every entry the other checks allow is admitted). */
  rules: CheckInRules | null;
  updated_at: string | null;
}

/**
 * A rules file's text, parsed and validated: the rules, or RULES_INVALID naming every problem with its path
 * (`rules[2].window.from: "25:00" is not a time HH:MM`), on one line.
 */
export function parseRulesFile(text: string, source: string): CheckInRules {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AdminError('RULES_INVALID', `${source}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const result = validateRules(parsed);
  if (!result.ok) throw new AdminError('RULES_INVALID', `${source}: ${result.problems.join('; ')}`);
  return result.rules;
}

export const setCheckInRulesWrite = namedJob(
  'set-check-in-rules',
  async (db, args: { eid: string; rules: CheckInRules; now: string }): Promise<EventRulesJson> => {
    if (!(await findEvent(db, args.eid))) throw new AdminError('EVENT_NOT_FOUND', `no event ${args.eid} at this issuer`);
    await saveCheckInRules(db, args.eid, args.rules, args.now);
    return { eid: args.eid, rules: args.rules, updated_at: args.now };
  },
);

export const clearCheckInRulesWrite = namedJob('clear-check-in-rules', async (db, args: { eid: string }): Promise<boolean> => {
  if (!(await findEvent(db, args.eid))) throw new AdminError('EVENT_NOT_FOUND', `no event ${args.eid} at this issuer`);
  return clearCheckInRules(db, args.eid);
});

export const eventRulesJson = async (db: Parameters<typeof findCheckInRules>[0], eid: string): Promise<EventRulesJson> => {
  const found = await findCheckInRules(db, eid);
  return { eid, rules: found?.rules ?? null, updated_at: found?.updated_at ?? null };
};

/** One line per rule, for people. */
export function describeRules(json: EventRulesJson): string {
  if (json.rules === null) return `Event ${json.eid} has no check-in rules.`;
  const lines = [`Check-in rules of event ${json.eid} (time zone ${json.rules.time_zone}, set ${json.updated_at}):`];
  json.rules.rules.forEach((rule, index) => {
    const scope = [
      rule.gates && `gates ${rule.gates.join(', ')}`,
      rule.ticket_types && `types ${rule.ticket_types.join(', ')}`,
      rule.except_ticket_types && `all types but ${rule.except_ticket_types.join(', ')}`,
      rule.dates && `on ${rule.dates.join(', ')}`,
    ].filter(Boolean);
    const requirement =
      (rule.only_ticket_types && `only types ${rule.only_ticket_types.join(', ')} may enter`) ||
      (rule.only_gates && `enter only at gates ${rule.only_gates.join(', ')}`) ||
      (rule.window && `entry ${rule.window.from}–${rule.window.to}`) ||
      `at most ${rule.max_entries_per_day} entries per day`;
    lines.push(`  ${index}. ${rule.name}: ${requirement}${scope.length > 0 ? ` (${scope.join('; ')})` : ''}`);
  });
  if (json.rules.rules.length === 0) lines.push('  (none)');
  return lines.join('\n');
}
