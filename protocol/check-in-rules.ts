/**
 * Check-in rules (docs/protocol.md "Check-in rules"): per event, which ticket types may enter at which
 * gate, when, and how often a day. ONE pure function, evaluateRules, that the issuer runs online
 * (issuer/services/check-in-decision.ts, check `rules`) and the kiosk offline (protocol/verdict.ts, check
 * `rules`), so the two never disagree; and the rules file's validator, validateRules.
 *
 * Pure: no clock, no storage. Local times come from Intl (the IANA time zone database of the runtime).
 */
import type { EntryPolicy, GateDirection } from './admission-modes.js';

export const RULES_FORMAT_VERSION = 1;

/** The languages a rule's own message may be written in (the kiosk's languages, docs/kiosk.md "Languages"). */
export const RULE_MESSAGE_LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type RuleMessageLanguage = (typeof RULE_MESSAGE_LANGUAGES)[number];
export type RuleMessages = Partial<Record<RuleMessageLanguage, string>>;

/** Local wall-clock times in the rules' time zone, `HH:MM`. `to` before `from`: the window crosses midnight. */
export interface RuleWindow {
  from: string;
  to: string;
}

/**
 * One rule: a scope (which entries it applies to; every field absent means all) and exactly one
 * requirement (`only_ticket_types`, `only_gates`, `window` or `max_entries_per_day`).
 */
export interface CheckInRule {
  /** What the rule is called: shown to staff and named in the refusal. */
  name: string;
  /** Scope: scans at these gates (`""`: a scanner without a gate). */
  gates?: string[];
  /** Scope: tickets of these types (`""`: a ticket without a type). */
  ticket_types?: string[];
  /** Scope: tickets of every type but these. */
  except_ticket_types?: string[];
  /** Scope: scans on these local calendar dates (`YYYY-MM-DD` in the rules' time zone). */
  dates?: string[];
  /** Requirement: only these ticket types may enter (e.g. at the VIP gate). */
  only_ticket_types?: string[];
  /** Requirement: these tickets may enter only at these gates. */
  only_gates?: string[];
  /** Requirement: entry only inside this local time window. */
  window?: RuleWindow;
  /** Requirement: at most N entries per local calendar day (re-entry events; re-entries count). */
  max_entries_per_day?: number;
  /** The words shown on a refusal, per language; a language without them gets the generated text. */
  message?: RuleMessages;
}

export interface CheckInRules {
  version: typeof RULES_FORMAT_VERSION;
  /** IANA time zone of the event, for windows, dates and days. Default `UTC`. */
  time_zone: string;
  rules: CheckInRule[];
}

/** The stable codes of a refusal by a rule, one per requirement (two for a window). */
export const RULE_REFUSAL_CODES = ['ticket_type_not_allowed', 'wrong_gate', 'not_open_yet', 'closed', 'daily_limit'] as const;
export type RuleRefusalCode = (typeof RULE_REFUSAL_CODES)[number];

/** What a refusal by a rule says: in the issuer's `rule_refused` answer and in the kiosk's verdict. */
export interface RuleRefusal {
  code: RuleRefusalCode;
  /** The rule's position in `rules` (0-based). */
  rule: number;
  /** The rule's name. */
  name: string;
  /** The words to show, in English: the rule's own `message.en`, else generated (ruleMessageEn). */
  message: string;
  /** The rule's own words in other languages, when the rules file gives them. */
  messages?: RuleMessages;
  /** `not_open_yet`: when it opens; `closed`: when it closed (`HH:MM`, local). */
  time?: string;
  /** `daily_limit`: the limit. */
  limit?: number;
  /** `wrong_gate`: the gates to use. */
  gates?: string[];
  /** `ticket_type_not_allowed`: the types that may enter. */
  ticket_types?: string[];
}

/** One entry to judge. */
export interface RuleFacts {
  /** The ticket's type (null or undefined: none, matched as `""`). */
  ticketType: string | null | undefined;
  /** The gate scanned at (null: a scanner without a gate, matched as `""`). */
  gateId: string | null | undefined;
  direction: GateDirection;
  /** When the scan happened (ms since the epoch): the issuer judges at scanned_at, the kiosk at its now. */
  at: number;
  /** Entries of this ticket already made on the scan's local day (entriesOnLocalDay). */
  entriesToday: number;
  /** The event's entry policy: on a `single` event a ticket enters once anyway, so no daily limit applies. */
  entryPolicy: EntryPolicy;
}

export type RulesOutcome = { pass: true } | { pass: false; refusal: RuleRefusal };

const PASS: RulesOutcome = { pass: true };

/** The rules every event has until some are set: none, UTC. */
export const NO_RULES: CheckInRules = { version: RULES_FORMAT_VERSION, time_zone: 'UTC', rules: [] };

/**
 * Judges one scan: rules in file order, every rule whose scope matches must pass; the first that does not
 * refuses. Exits are never refused by a rule (the person is leaving).
 */
export function evaluateRules(rules: CheckInRules, facts: RuleFacts): RulesOutcome {
  if (facts.direction !== 'entry' || rules.rules.length === 0) return PASS;
  const type = facts.ticketType ?? '';
  const gate = facts.gateId ?? '';
  const local = localParts(facts.at, rules.time_zone);
  for (const [index, rule] of rules.rules.entries()) {
    if (rule.gates && !rule.gates.includes(gate)) continue;
    if (rule.ticket_types && !rule.ticket_types.includes(type)) continue;
    if (rule.except_ticket_types && rule.except_ticket_types.includes(type)) continue;
    if (rule.dates && !rule.dates.includes(local.date)) continue;
    const refusal = requirementRefusal(rule, { type, gate, minutes: local.minutes, facts });
    if (refusal) return { pass: false, refusal: withWords(refusal, index, rule) };
  }
  return PASS;
}

type Unworded = Omit<RuleRefusal, 'rule' | 'name' | 'message' | 'messages'>;

function requirementRefusal(rule: CheckInRule, scan: { type: string; gate: string; minutes: number; facts: RuleFacts }): Unworded | null {
  if (rule.only_ticket_types && !rule.only_ticket_types.includes(scan.type)) {
    return { code: 'ticket_type_not_allowed', ticket_types: rule.only_ticket_types };
  }
  if (rule.only_gates && !rule.only_gates.includes(scan.gate)) return { code: 'wrong_gate', gates: rule.only_gates };
  if (rule.window) {
    const from = minutesOf(rule.window.from);
    const to = minutesOf(rule.window.to);
    const t = scan.minutes;
    if (from < to) {
      if (t < from) return { code: 'not_open_yet', time: rule.window.from };
      if (t >= to) return { code: 'closed', time: rule.window.to };
    } else if (t >= to && t < from) {
      // Across midnight (e.g. 22:00-04:00): between its end and its start the window opens next at `from`.
      return { code: 'not_open_yet', time: rule.window.from };
    }
  }
  if (
    rule.max_entries_per_day !== undefined &&
    scan.facts.entryPolicy === 'reentry' &&
    scan.facts.entriesToday >= rule.max_entries_per_day
  ) {
    return { code: 'daily_limit', limit: rule.max_entries_per_day };
  }
  return null;
}

function withWords(refusal: Unworded, index: number, rule: CheckInRule): RuleRefusal {
  const full: RuleRefusal = { ...refusal, rule: index, name: rule.name, message: rule.message?.en ?? ruleMessageEn(refusal) };
  if (rule.message && Object.keys(rule.message).length > 0) full.messages = { ...rule.message };
  return full;
}

const list = (values: readonly string[] | undefined): string => (values ?? []).map((value) => (value === '' ? '(none)' : value)).join(', ');

/**
 * The generated English words for a refusal without its own (the kiosk's catalogues, renderer/messages, say
 * the same in each language under `rule.<code>`).
 */
export function ruleMessageEn(refusal: Pick<RuleRefusal, 'code' | 'time' | 'limit' | 'gates' | 'ticket_types'>): string {
  switch (refusal.code) {
    case 'ticket_type_not_allowed':
      return `${list(refusal.ticket_types)} tickets only`;
    case 'wrong_gate':
      return `Use gate ${list(refusal.gates)}`;
    case 'not_open_yet':
      return `Opens at ${refusal.time ?? '?'}`;
    case 'closed':
      return `Closed since ${refusal.time ?? '?'}`;
    case 'daily_limit':
      return `Entry limit reached: ${refusal.limit ?? '?'} per day`;
  }
}

// --- local time -------------------------------------------------------------

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The local calendar date (`YYYY-MM-DD`) and minutes since local midnight of an instant in a time zone. */
export function localParts(atMs: number, timeZone: string): { date: string; minutes: number } {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(atMs))) parts[part.type] = part.value;
  const hour = Number(parts['hour']) % 24;
  return { date: `${parts['year']}-${parts['month']}-${parts['day']}`, minutes: hour * 60 + Number(parts['minute']) };
}

/** How many of these instants fall on the same local calendar day as `atMs`: entries counted per day. */
export function entriesOnLocalDay(entries: readonly string[], atMs: number, timeZone: string): number {
  const day = localParts(atMs, timeZone).date;
  return entries.filter((at) => {
    const ms = Date.parse(at);
    return !Number.isNaN(ms) && localParts(ms, timeZone).date === day;
  }).length;
}

/** Whether a time zone name is one the runtime knows (IANA, e.g. `Europe/Berlin`, or `UTC`). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function minutesOf(time: string): number {
  const match = TIME.exec(time)!;
  return Number(match[1]) * 60 + Number(match[2]);
}

// --- validation -------------------------------------------------------------

/** A rules file that does not validate: every problem, each naming its path (`rules[2].window.from`). */
export class RulesValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'RulesValidationError';
  }
}

export type RulesValidation = { ok: true; rules: CheckInRules } | { ok: false; problems: string[] };

/** Limits that keep a rules file small enough for every heartbeat. */
export const MAX_RULES = 100;
export const MAX_LIST = 100;
export const MAX_TEXT = 200;

const TOP_FIELDS = ['version', 'time_zone', 'rules'];
const SCOPE_FIELDS = ['gates', 'ticket_types', 'except_ticket_types', 'dates'] as const;
const REQUIREMENTS = ['only_ticket_types', 'only_gates', 'window', 'max_entries_per_day'] as const;
const RULE_FIELDS = ['name', 'message', ...SCOPE_FIELDS, ...REQUIREMENTS];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value)));

/**
 * Validates a parsed rules file (docs/protocol.md "Check-in rules": the format). Returns the rules with the
 * defaults filled in (`time_zone` UTC), or every problem found, each naming its path.
 */
export function validateRules(input: unknown): RulesValidation {
  const problems: string[] = [];
  if (!isObject(input)) return { ok: false, problems: ['(top): must be an object {"version": 1, "time_zone", "rules": [...]}'] };
  for (const key of Object.keys(input)) if (!TOP_FIELDS.includes(key)) problems.push(`${key}: unknown field`);
  if (input['version'] !== undefined && input['version'] !== RULES_FORMAT_VERSION) {
    problems.push(`version: ${show(input['version'])} is not a supported version (1)`);
  }
  const timeZone = input['time_zone'] ?? 'UTC';
  if (typeof timeZone !== 'string' || !isTimeZone(timeZone)) problems.push(`time_zone: ${show(timeZone)} is not an IANA time zone`);
  const rawRules = input['rules'];
  const rules: CheckInRule[] = [];
  if (!Array.isArray(rawRules)) {
    problems.push('rules: must be a list of rules');
  } else {
    if (rawRules.length > MAX_RULES) problems.push(`rules: ${rawRules.length} rules, at most ${MAX_RULES}`);
    rawRules.forEach((raw, index) => {
      const rule = validateRule(raw, `rules[${index}]`, problems);
      if (rule) rules.push(rule);
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, rules: { version: RULES_FORMAT_VERSION, time_zone: timeZone as string, rules } };
}

/** validateRules, throwing RulesValidationError. */
export function parseRules(input: unknown): CheckInRules {
  const result = validateRules(input);
  if (!result.ok) throw new RulesValidationError(result.problems);
  return result.rules;
}

function validateRule(raw: unknown, path: string, problems: string[]): CheckInRule | null {
  if (!isObject(raw)) {
    problems.push(`${path}: must be an object`);
    return null;
  }
  const before = problems.length;
  for (const key of Object.keys(raw)) if (!RULE_FIELDS.includes(key)) problems.push(`${path}.${key}: unknown field`);
  const name = raw['name'];
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_TEXT) {
    problems.push(`${path}.name: ${show(name)} must be a text of 1-${MAX_TEXT} characters`);
  }
  for (const field of ['gates', 'ticket_types', 'except_ticket_types', 'only_ticket_types', 'only_gates'] as const) {
    if (raw[field] !== undefined) stringList(raw[field], `${path}.${field}`, problems, false);
  }
  if (raw['dates'] !== undefined) stringList(raw['dates'], `${path}.dates`, problems, true);
  if (raw['ticket_types'] !== undefined && raw['except_ticket_types'] !== undefined) {
    problems.push(`${path}: give ticket_types or except_ticket_types, not both`);
  }
  const requirements = REQUIREMENTS.filter((field) => raw[field] !== undefined);
  if (requirements.length !== 1) {
    problems.push(
      `${path}: needs exactly one of ${REQUIREMENTS.join(', ')}` + (requirements.length > 1 ? ` (has ${requirements.join(', ')})` : ''),
    );
  }
  const window = raw['window'];
  if (window !== undefined) {
    if (!isObject(window)) {
      problems.push(`${path}.window: must be an object {"from": "HH:MM", "to": "HH:MM"}`);
    } else {
      for (const key of Object.keys(window)) if (key !== 'from' && key !== 'to') problems.push(`${path}.window.${key}: unknown field`);
      for (const end of ['from', 'to'] as const) {
        const value = window[end];
        if (typeof value !== 'string' || !TIME.test(value)) problems.push(`${path}.window.${end}: ${show(value)} is not a time HH:MM`);
      }
      if (typeof window['from'] === 'string' && window['from'] === window['to']) {
        problems.push(`${path}.window: from and to are both ${window['from']}: an empty window (leave the rule out to allow all day)`);
      }
    }
  }
  const limit = raw['max_entries_per_day'];
  if (limit !== undefined && (!Number.isSafeInteger(limit) || (limit as number) < 1)) {
    problems.push(`${path}.max_entries_per_day: ${show(limit)} is not a whole number of at least 1`);
  }
  const message = raw['message'];
  if (message !== undefined) {
    if (!isObject(message)) {
      problems.push(`${path}.message: must be an object of texts by language (${RULE_MESSAGE_LANGUAGES.join(', ')})`);
    } else {
      for (const [language, text] of Object.entries(message)) {
        if (!(RULE_MESSAGE_LANGUAGES as readonly string[]).includes(language)) {
          problems.push(`${path}.message.${language}: not a language of the kiosk (${RULE_MESSAGE_LANGUAGES.join(', ')})`);
        } else if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_TEXT) {
          problems.push(`${path}.message.${language}: ${show(text)} must be a text of 1-${MAX_TEXT} characters`);
        }
      }
    }
  }
  if (problems.length > before) return null;
  // Only the known fields, in a fixed order: what is stored and sent is exactly what was validated.
  const rule: CheckInRule = { name: name as string };
  for (const field of [...SCOPE_FIELDS, 'only_ticket_types', 'only_gates'] as const) {
    if (raw[field] !== undefined) rule[field] = [...(raw[field] as string[])];
  }
  if (isObject(window)) rule.window = { from: window['from'] as string, to: window['to'] as string };
  if (limit !== undefined) rule.max_entries_per_day = limit as number;
  if (isObject(message)) rule.message = { ...(message as RuleMessages) };
  return rule;
}

function stringList(value: unknown, path: string, problems: string[], dates: boolean): void {
  if (!Array.isArray(value) || value.length === 0) {
    problems.push(`${path}: must be a non-empty list of ${dates ? 'dates YYYY-MM-DD' : 'texts'}`);
    return;
  }
  if (value.length > MAX_LIST) problems.push(`${path}: ${value.length} entries, at most ${MAX_LIST}`);
  value.forEach((item, index) => {
    if (typeof item !== 'string' || item.length > MAX_TEXT) {
      problems.push(`${path}[${index}]: ${show(item)} must be a text of at most ${MAX_TEXT} characters`);
    } else if (dates && !isDate(item)) {
      problems.push(`${path}[${index}]: ${show(item)} is not a date YYYY-MM-DD`);
    }
  });
}

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

// --- schemas (what the issuer serialises: Fastify sends only declared fields) -----------------------------

const textList = { type: 'array', items: { type: 'string' } } as const;
const messagesSchema = {
  type: 'object',
  properties: { en: { type: 'string' }, de: { type: 'string' }, fr: { type: 'string' }, es: { type: 'string' } },
} as const;

/** RuleRefusal: `rule` in a `rule_refused` answer. */
export const ruleRefusalSchema = {
  type: 'object',
  required: ['code', 'rule', 'name', 'message'],
  properties: {
    code: { type: 'string', enum: [...RULE_REFUSAL_CODES] },
    rule: { type: 'integer' },
    name: { type: 'string' },
    message: { type: 'string' },
    messages: messagesSchema,
    time: { type: 'string' },
    limit: { type: 'integer' },
    gates: textList,
    ticket_types: textList,
  },
} as const;

/** CheckInRules as the heartbeat answer carries them (validated before they were stored). */
export const checkInRulesSchema = {
  type: 'object',
  required: ['version', 'time_zone', 'rules'],
  properties: {
    version: { type: 'integer', const: RULES_FORMAT_VERSION },
    time_zone: { type: 'string' },
    rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          gates: textList,
          ticket_types: textList,
          except_ticket_types: textList,
          dates: textList,
          only_ticket_types: textList,
          only_gates: textList,
          window: { type: 'object', required: ['from', 'to'], properties: { from: { type: 'string' }, to: { type: 'string' } } },
          max_entries_per_day: { type: 'integer' },
          message: messagesSchema,
        },
      },
    },
  },
} as const;
