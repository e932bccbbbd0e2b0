/**
 * Validation of the values an operator gives (command-line flags, the on-site
 * issuer's form): pure functions that either return the parsed value or throw
 * an AdminError whose message names the flag (or field) and shows an accepted
 * example.
 */
import { handoutListProblem, parseHandout, type HandoutItem } from '../../protocol/handouts.js';
import { noteProblem } from '../../protocol/attention.js';
import { labelCharacterProblem } from '../labels.js';
import { baseUrlProblem, type BaseUrlProblem } from '../../protocol/base-url.js';
import { AdminError } from '../error-catalogue.js';

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * An ISO 8601 date-time with a time zone (docs/protocol.md "Times").
 * Stricter than Date.parse, which turns 2026-02-30 into 2 March.
 */
export function parseDateTime(value: string, flag: string): Date {
  const match = ISO_DATE_TIME.exec(value.trim());
  const bad = (): AdminError =>
    new AdminError('INVALID_DATE', `${flag} "${value}" is not an ISO 8601 date-time with a time zone (for example 2026-05-01T19:30:00Z)`);
  if (!match) throw bad();
  const [year, month, day, hour, minute, second, , offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) =>
    Number(match[i] ?? 0),
  ) as number[];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth || hour! > 23 || minute! > 59 || second! > 59) throw bad();
  if (offsetHours! > 23 || offsetMinutes! > 59) throw bad();
  return new Date(Date.parse(value.trim()));
}

export function parseInteger(value: string, flag: string, min: number, max: number): number {
  const trimmed = value.trim();
  const number = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new AdminError('INVALID_ARGUMENT', `${flag} must be a whole number from ${min} to ${max}, not "${value}"`);
  }
  return number;
}

const BASE_URL_ADVICE: Record<BaseUrlProblem, string> = {
  not_a_url: 'is not a URL (for example https://tickets.example.com)',
  not_https: 'must use https:// (http:// is allowed only for 127.0.0.1, [::1] and localhost)',
  trailing_slash: 'must not end with a slash',
  has_query_or_fragment: 'must not have a query (?) or fragment (#)',
  has_credentials: 'must not contain a user name or password',
};

/** docs/protocol.md "Base URL": HTTPS, no trailing slash; http:// only on loopback. */
export function parseBaseUrl(value: string): string {
  const problem = baseUrlProblem(value);
  if (problem !== null) throw new AdminError('INVALID_BASE_URL', `--base-url "${value}" ${BASE_URL_ADVICE[problem]}`);
  return value;
}

/** Names and labels end up in QR codes that must stay small enough to scan quickly (docs/protocol.md "Ticket payload"). */
export const MAX_LABEL_LENGTH = 80;
/** The largest capacity an event may have (`event create|set --capacity`, the dashboard, an import). */
export const MAX_EVENT_CAPACITY = 10_000_000;

export function parseLabel(value: string, flag: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new AdminError('INVALID_ARGUMENT', `${flag} must not be empty`);
  if (trimmed.length > MAX_LABEL_LENGTH) {
    throw new AdminError('INVALID_ARGUMENT', `${flag} is ${trimmed.length} characters long; keep it to ${MAX_LABEL_LENGTH}`);
  }
  const problem = labelCharacterProblem(trimmed);
  if (problem !== null)
    throw new AdminError(
      'INVALID_ARGUMENT',
      `${flag} ${problem}: labels are shown at the door and exported, so only printable text is accepted`,
    );
  return trimmed;
}

/** A check-in note (docs/protocol.md "Attention notes (project extension)"): the label rules, up to MAX_NOTE_LENGTH. */
export function parseNote(value: string, flag: string): string {
  const trimmed = value.trim();
  const problem = noteProblem(trimmed);
  if (problem !== null)
    throw new AdminError('INVALID_ARGUMENT', `${flag} ${problem}: a note is shown at the door, so only printable text is accepted`);
  return trimmed;
}

/**
 * `--handout "2 drink voucher"`, repeatable: the items in the order given (docs/protocol.md "Handouts (project
 * extension)"). `minCount` 0 lets a ticket take a type's item away (`--handout "0 wristband"`).
 */
export function parseHandoutOptions(values: readonly string[], flag: string, minCount: 0 | 1): HandoutItem[] {
  const items: HandoutItem[] = [];
  for (const value of values) {
    const parsed = parseHandout(value);
    if ('problem' in parsed)
      throw new AdminError(
        'INVALID_ARGUMENT',
        `${flag} ${parsed.problem}: an item is shown at the door, so only printable text is accepted`,
      );
    if (parsed.count < minCount) throw new AdminError('INVALID_ARGUMENT', `${flag} "${parsed.item}" needs a count of 1 or more`);
    items.push(parsed);
  }
  const problem = handoutListProblem(items);
  if (problem !== null) throw new AdminError('INVALID_ARGUMENT', `${flag}: the list ${problem}`);
  return items;
}
