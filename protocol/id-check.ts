/**
 * ID and age checks (docs/protocol.md "ID checks (project extension)"): per ticket type `id_check none|name|age:N`,
 * and per ticket an optional date of birth that stays on the issuer. A kiosk is told only what it needs: the kind
 * of check, the holder's short name and, for an age check, the age band for the type's N (`over`, `under` or
 * `unknown`), never the date. The issuer adds the extension (`id_check`) to its check-in and status answers and
 * to the synced notes list, so an offline kiosk asks the steward the same question. Pure.
 */

/** The oldest minimum age a type may ask for. */
export const MAX_MIN_AGE = 120;

export type IdCheckRule = { kind: 'none' } | { kind: 'name' } | { kind: 'age'; min_age: number };

export type AgeBand = 'over' | 'under' | 'unknown';
export const AGE_BANDS: readonly AgeBand[] = ['over', 'under', 'unknown'];

/** The answers' extension: present only when the ticket's type asks for a check. */
export interface IdCheck {
  kind: 'name' | 'age';
  /** Only for `age`. */
  min_age?: number;
  /** The holder's short name as the steward compares it with the ID ("Ada L."); empty when the ticket has no name. */
  holder: string;
  /** `age`: the holder's age on the event's date against min_age; `name`: always `unknown` (no age asked). */
  band: AgeBand;
}

/** `none`, `name` or `age:N` (N whole years, 1 to 120); null when the text is none of them. */
export function parseIdCheck(text: string): IdCheckRule | null {
  const value = text.trim().toLowerCase();
  if (value === 'none') return { kind: 'none' };
  if (value === 'name') return { kind: 'name' };
  const match = /^age:([1-9][0-9]{0,2})$/.exec(value);
  if (match === null) return null;
  const minAge = Number(match[1]);
  return minAge <= MAX_MIN_AGE ? { kind: 'age', min_age: minAge } : null;
}

/** The rule as the CLI and the synced list write it: `none`, `name`, `age:18`. */
export function formatIdCheck(rule: IdCheckRule): string {
  return rule.kind === 'age' ? `age:${rule.min_age}` : rule.kind;
}

/** A date of birth `YYYY-MM-DD` that is a real calendar day, not after `today` (YYYY-MM-DD) when given; else null. */
export function parseDob(text: string, today?: string): string | null {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text.trim());
  if (match === null) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || year < 1900) return null;
  const dob = match[0];
  if (today !== undefined && dob > today) return null;
  return dob;
}

/**
 * Whole years of age on `onDate` (both YYYY-MM-DD, or an ISO date-time whose first ten characters are the day):
 * a birthday on the day counts; someone born on 29 February has their birthday on 1 March in other years.
 */
export function ageOn(dob: string, onDate: string): number {
  const [by, bm, bd] = dob.slice(0, 10).split('-').map(Number) as [number, number, number];
  const [y, m, d] = onDate.slice(0, 10).split('-').map(Number) as [number, number, number];
  let age = y - by;
  // 29 February in a year without one: the birthday is 1 March.
  const leap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const [birthMonth, birthDay] = bm === 2 && bd === 29 && !leap(y) ? [3, 1] : [bm, bd];
  if (m < birthMonth || (m === birthMonth && d < birthDay)) age -= 1;
  return age;
}

/** The band for an age check of `minAge` on the event's date: unknown without a date of birth. */
export function ageBand(dob: string | null | undefined, eventDate: string, minAge: number): AgeBand {
  if (dob === null || dob === undefined) return 'unknown';
  return ageOn(dob, eventDate) >= minAge ? 'over' : 'under';
}

/** "Ada Lovelace" → "Ada L.", "Ada" → "Ada", "" → "": the first word and the last word's initial. */
export function shortHolder(name: string | null | undefined): string {
  const words = (name ?? '')
    .trim()
    .split(/\s+/u)
    .filter((word) => word !== '');
  if (words.length === 0) return '';
  if (words.length === 1) return words[0]!;
  const initial = Array.from(words[words.length - 1]!)[0]!;
  return `${words[0]} ${initial}.`;
}

/** What a ticket's answers carry, or null when its type asks for no check. */
export function idCheckOf(
  rule: IdCheckRule | null | undefined,
  ticket: { holder_name: string | null; dob: string | null | undefined },
  eventDate: string,
): IdCheck | null {
  if (rule === null || rule === undefined || rule.kind === 'none') return null;
  const holder = shortHolder(ticket.holder_name);
  if (rule.kind === 'name') return { kind: 'name', holder, band: 'unknown' };
  return { kind: 'age', min_age: rule.min_age, holder, band: ageBand(ticket.dob, eventDate, rule.min_age) };
}

/** The same extension built from the synced list's parts (a kiosk offline): the type's rule, the ticket's band. */
export function idCheckFromList(rule: IdCheckRule | null, holderName: string | null | undefined, band: AgeBand | null): IdCheck | null {
  if (rule === null || rule.kind === 'none') return null;
  const holder = shortHolder(holderName);
  if (rule.kind === 'name') return { kind: 'name', holder, band: 'unknown' };
  return { kind: 'age', min_age: rule.min_age, holder, band: band ?? 'unknown' };
}

/** The short line of the prompt: "name Ada L., 18+" (the screen translates the words around it). */
export function idCheckLine(check: IdCheck): string {
  const name = check.holder === '' ? 'name' : `name ${check.holder}`;
  return check.kind === 'age' ? `${name}, ${check.min_age}+` : name;
}

export const idCheckSchema = {
  type: 'object',
  required: ['kind', 'holder', 'band'],
  properties: {
    kind: { type: 'string', enum: ['name', 'age'] },
    min_age: { type: 'integer', minimum: 1, maximum: MAX_MIN_AGE },
    holder: { type: 'string' },
    band: { type: 'string', enum: AGE_BANDS },
  },
} as const;

/** The `id_check` of a check-in or status answer, checked field by field, or null when absent or malformed. */
export function idCheckFromAnswer(body: unknown): IdCheck | null {
  if (typeof body !== 'object' || body === null) return null;
  const value = (body as { id_check?: unknown }).id_check;
  if (typeof value !== 'object' || value === null) return null;
  const { kind, min_age: minAge, holder, band } = value as Partial<IdCheck>;
  if (kind !== 'name' && kind !== 'age') return null;
  if (typeof holder !== 'string' || holder.length > 100) return null;
  if (typeof band !== 'string' || !AGE_BANDS.includes(band)) return null;
  if (kind === 'name') return { kind, holder, band: 'unknown' };
  if (typeof minAge !== 'number' || !Number.isInteger(minAge) || minAge < 1 || minAge > MAX_MIN_AGE) return null;
  return { kind, min_age: minAge, holder, band };
}

/** A type's rule of the synced list (`{ticket_type, id_check: 'age:18'}`), or null when malformed. */
export function isIdCheckTypeRow(row: unknown): row is { ticket_type: string; id_check: string } {
  return (
    typeof row === 'object' &&
    row !== null &&
    typeof (row as { ticket_type?: unknown }).ticket_type === 'string' &&
    typeof (row as { id_check?: unknown }).id_check === 'string' &&
    parseIdCheck((row as { id_check: string }).id_check) !== null
  );
}

/** A band row of the synced list: [tid, band]. */
export function isBandRow(row: unknown): row is [string, AgeBand] {
  return (
    Array.isArray(row) &&
    row.length === 2 &&
    typeof row[0] === 'string' &&
    row[0].length > 0 &&
    row[0].length <= 200 &&
    AGE_BANDS.includes(row[1] as AgeBand)
  );
}
