/**
 * Handouts (docs/protocol.md "Handouts (project extension)"): per ticket type and per ticket, a short list of items
 * the door hands over (a wristband, a T-shirt M, 2 drink vouchers), each given at most its count. A handout is
 * recorded apart from the admission, with an id the kiosk makes (idempotent as a check-in), at
 * `POST /api/v1/tickets/handouts`. The check-in and status answers, and the synced notes list, carry the ticket's
 * items with what was already given, when and where, so an offline kiosk refuses a second handout as the issuer
 * does. Pure.
 */
import { labelCharacterProblem } from './labels.js';
import type { IsoDateTime } from './types.js';

/** Longest item name: a word or two on the steward's button, not a sentence. */
export const MAX_HANDOUT_ITEM_LENGTH = 40;
/** Most items in one list (a type's, a ticket's, or both merged). */
export const MAX_HANDOUT_ITEMS = 10;
/** Most of one item for one ticket. */
export const MAX_HANDOUT_COUNT = 20;

/** One item of a list: its name and how many of it a ticket gets. Count 0 in a ticket's list takes a type's item away. */
export interface HandoutItem {
  item: string;
  count: number;
}

/** One handout given: the kiosk's id for it, when, at which gate and by which scanner (its name). */
export interface HandoutGiven {
  hid: string;
  at: IsoDateTime;
  gate: string | null;
  scanner: string;
}

/** An item as the answers carry it: the count, and each of its handouts given so far (oldest first). */
export interface Handout extends HandoutItem {
  given: HandoutGiven[];
}

/** Why a handout is refused, in the order checked (docs/protocol.md "Handouts (project extension)"). */
export type HandoutRefusal = 'not_listed' | 'already_given';

export type HandoutDecision =
  | { ok: true; handout: Handout }
  | { ok: false; reason: 'not_listed' }
  /** Every handout of the item already given: the last one says when and where. */
  | { ok: false; reason: 'already_given'; given: HandoutGiven[] };

/** Why `item` cannot be an item name (the label rules of protocol/labels.ts and a length), or null. */
export function handoutItemProblem(item: string): string | null {
  if (item.trim() === '') return 'is empty';
  if (item !== item.trim()) return 'starts or ends with a space';
  if (item.length > MAX_HANDOUT_ITEM_LENGTH) return `is ${item.length} characters long; keep it to ${MAX_HANDOUT_ITEM_LENGTH}`;
  return labelCharacterProblem(item);
}

/**
 * `2 drink voucher` → {item: 'drink voucher', count: 2}; `wristband` → count 1; `0 wristband` → count 0 (a ticket's
 * way to take a type's item away). Spaces inside the name are kept as one. A problem in words when it is none.
 */
export function parseHandout(text: string): HandoutItem | { problem: string } {
  const words = text.trim().split(/\s+/u);
  let count = 1;
  if (words.length > 1 && /^[0-9]{1,3}$/.test(words[0]!)) count = Number(words.shift());
  if (count > MAX_HANDOUT_COUNT) return { problem: `asks for ${count}; at most ${MAX_HANDOUT_COUNT} of one item` };
  const item = words.join(' ');
  const problem = handoutItemProblem(item);
  return problem === null ? { item, count } : { problem: `item name ${problem}` };
}

/** The list as the CLI writes it back: `2 drink voucher, wristband`. */
export function formatHandouts(items: readonly HandoutItem[]): string {
  return items.map((entry) => (entry.count === 1 ? entry.item : `${entry.count} ${entry.item}`)).join(', ');
}

/** Why `items` cannot be a stored list (each item's problem, a name twice, too many), or null. */
export function handoutListProblem(items: readonly HandoutItem[]): string | null {
  if (items.length > MAX_HANDOUT_ITEMS) return `has ${items.length} items; at most ${MAX_HANDOUT_ITEMS}`;
  const seen = new Set<string>();
  for (const [index, entry] of items.entries()) {
    const problem = handoutItemProblem(entry.item);
    if (problem !== null) return `item ${index + 1} ${problem}`;
    if (!Number.isInteger(entry.count) || entry.count < 0 || entry.count > MAX_HANDOUT_COUNT)
      return `item ${index + 1} has count ${entry.count}; a whole number from 0 to ${MAX_HANDOUT_COUNT}`;
    if (seen.has(entry.item)) return `names "${entry.item}" twice`;
    seen.add(entry.item);
  }
  return null;
}

/**
 * What a ticket gets: its type's items, then its own. An item in both takes the ticket's count (0 removes it);
 * items with count 0 are left out. At most MAX_HANDOUT_ITEMS.
 */
export function mergeHandouts(
  typeItems: readonly HandoutItem[] | null | undefined,
  ticketItems: readonly HandoutItem[] | null | undefined,
): HandoutItem[] {
  const counts = new Map<string, number>();
  for (const entry of typeItems ?? []) counts.set(entry.item, entry.count);
  for (const entry of ticketItems ?? []) counts.set(entry.item, entry.count);
  return [...counts]
    .filter(([, count]) => count > 0)
    .slice(0, MAX_HANDOUT_ITEMS)
    .map(([item, count]) => ({ item, count }));
}

/** The items with their handouts given (by item, oldest first); a handout of an item no longer listed is left out. */
export function handoutsOf(items: readonly HandoutItem[], given: ReadonlyArray<HandoutGiven & { item: string }>): Handout[] {
  return items.map((entry) => ({
    item: entry.item,
    count: entry.count,
    given: given
      .filter((record) => record.item === entry.item)
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
      .map(({ hid, at, gate, scanner }) => ({ hid, at, gate, scanner })),
  }));
}

/** How many of the item are still to give (never below 0). */
export function remainingOf(handout: Handout): number {
  return Math.max(0, handout.count - handout.given.length);
}

/**
 * The one rule, issuer and kiosk alike: an item the ticket does not list is refused `not_listed`; an item all of
 * whose count is given is refused `already_given` with when and where; otherwise it may be given. A handout whose
 * id is among those given is the same handout again, not a second one (idempotent).
 */
export function decideHandout(handouts: readonly Handout[], item: string, hid?: string): HandoutDecision {
  const handout = handouts.find((entry) => entry.item === item);
  if (handout === undefined) return { ok: false, reason: 'not_listed' };
  if (hid !== undefined && handout.given.some((record) => record.hid === hid)) return { ok: true, handout };
  if (remainingOf(handout) === 0) return { ok: false, reason: 'already_given', given: handout.given };
  return { ok: true, handout };
}

const givenSchema = {
  type: 'object',
  required: ['hid', 'at', 'gate', 'scanner'],
  properties: {
    hid: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
    gate: { type: ['string', 'null'] },
    scanner: { type: 'string' },
  },
} as const;

/** The answers' extension `handouts`: present only when the ticket has items. */
export const handoutsSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['item', 'count', 'given'],
    properties: { item: { type: 'string' }, count: { type: 'integer' }, given: { type: 'array', items: givenSchema } },
  },
} as const;

/** POST /api/v1/tickets/handouts: the kiosk's record of one handout. */
export interface HandoutRequest {
  /** The kiosk's id for this handout (UUID v4): sent again, it is the same handout. */
  handout_id: string;
  tid: string;
  eid: string;
  item: string;
  /** When the steward tapped (the kiosk's clock). */
  given_at: IsoDateTime;
  gate_id?: string;
  staff_id?: string;
}

export const handoutRequestSchema = {
  type: 'object',
  required: ['handout_id', 'tid', 'eid', 'item', 'given_at'],
  properties: {
    handout_id: { type: 'string', format: 'uuid' },
    tid: { type: 'string', minLength: 1, maxLength: 200 },
    eid: { type: 'string', minLength: 1, maxLength: 200 },
    item: { type: 'string', minLength: 1, maxLength: MAX_HANDOUT_ITEM_LENGTH },
    given_at: { type: 'string', format: 'date-time' },
    gate_id: { type: 'string', minLength: 1, maxLength: 200 },
    staff_id: { type: 'string', minLength: 1, maxLength: 100 },
  },
} as const;

/**
 * The 200 answer: `given` (recorded now, or the same handout sent again), or `refused` with the reason and, for
 * `already_given`, the handouts that used the count up. A refusal is an answer, not an error, as a check-in's
 * `already_used` is: the spec's catalogue has one 409, for a reused idempotency key.
 */
export interface HandoutAnswer {
  handout_id: string;
  tid: string;
  item: string;
  status: 'given' | 'refused';
  reason?: HandoutRefusal;
  /** For `already_given`: the handouts that used the count up (the last says when and where). */
  given?: HandoutGiven[];
  /** The ticket's items now. */
  handouts: Handout[];
}

export const handoutAnswerSchema = {
  type: 'object',
  required: ['handout_id', 'tid', 'item', 'status', 'handouts'],
  properties: {
    handout_id: { type: 'string' },
    tid: { type: 'string' },
    item: { type: 'string' },
    status: { type: 'string', enum: ['given', 'refused'] },
    reason: { type: 'string', enum: ['not_listed', 'already_given'] },
    given: { type: 'array', items: givenSchema },
    handouts: handoutsSchema,
  },
} as const;

const isGiven = (value: unknown): value is HandoutGiven => {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record['hid'] === 'string' &&
    record['hid'].length <= 100 &&
    typeof record['at'] === 'string' &&
    record['at'].length <= 40 &&
    (record['gate'] === null || (typeof record['gate'] === 'string' && labelCharacterProblem(record['gate']) === null)) &&
    typeof record['scanner'] === 'string' &&
    record['scanner'].length <= 200 &&
    labelCharacterProblem(record['scanner']) === null
  );
};

/** A list of handouts as an answer or the synced list carries it, checked field by field (the kiosk trusts nothing unchecked). */
export function isHandoutList(value: unknown): value is Handout[] {
  return (
    Array.isArray(value) &&
    value.length <= MAX_HANDOUT_ITEMS &&
    value.every((entry) => {
      if (typeof entry !== 'object' || entry === null) return false;
      const handout = entry as Record<string, unknown>;
      return (
        typeof handout['item'] === 'string' &&
        handoutItemProblem(handout['item']) === null &&
        typeof handout['count'] === 'number' &&
        Number.isInteger(handout['count']) &&
        handout['count'] >= 1 &&
        handout['count'] <= MAX_HANDOUT_COUNT &&
        Array.isArray(handout['given']) &&
        handout['given'].length <= MAX_HANDOUT_COUNT &&
        handout['given'].every(isGiven)
      );
    })
  );
}

/** The `handouts` of a check-in or status answer, checked, or null when absent or malformed. */
export function handoutsFromAnswer(body: unknown): Handout[] | null {
  if (typeof body !== 'object' || body === null) return null;
  const value = (body as { handouts?: unknown }).handouts;
  return isHandoutList(value) ? value : null;
}

/** A type's items on every page of the synced notes list (docs/protocol.md "Handouts (project extension)"). */
export interface TypeHandoutRow {
  ticket_type: string;
  items: HandoutItem[];
}

/** A handout given, as the synced list carries it: with its item. */
export type GivenRow = HandoutGiven & { item: string };

/**
 * A listed ticket's handouts on a page of the synced list: [tid, its own items, the handouts given to it]. A listed
 * ticket without a row has neither (a kiosk then forgets what it had for it).
 */
export type TicketHandoutRow = [string, HandoutItem[], GivenRow[]];

const isItem = (value: unknown, minCount: number): value is HandoutItem => {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry['item'] === 'string' &&
    handoutItemProblem(entry['item']) === null &&
    typeof entry['count'] === 'number' &&
    Number.isInteger(entry['count']) &&
    entry['count'] >= minCount &&
    entry['count'] <= MAX_HANDOUT_COUNT
  );
};

export function isTypeHandoutRow(value: unknown): value is TypeHandoutRow {
  if (typeof value !== 'object' || value === null) return false;
  const row = value as Record<string, unknown>;
  return (
    typeof row['ticket_type'] === 'string' &&
    Array.isArray(row['items']) &&
    row['items'].length <= MAX_HANDOUT_ITEMS &&
    row['items'].every((item) => isItem(item, 1))
  );
}

export function isTicketHandoutRow(value: unknown): value is TicketHandoutRow {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    typeof value[0] === 'string' &&
    value[0].length > 0 &&
    value[0].length <= 200 &&
    Array.isArray(value[1]) &&
    value[1].length <= MAX_HANDOUT_ITEMS &&
    value[1].every((item) => isItem(item, 0)) &&
    Array.isArray(value[2]) &&
    value[2].length <= MAX_HANDOUT_ITEMS * MAX_HANDOUT_COUNT &&
    value[2].every((given) => isGiven(given) && typeof (given as GivenRow).item === 'string')
  );
}

export const notesPageHandoutFields = {
  handout_types: {
    type: 'array',
    items: {
      type: 'object',
      required: ['ticket_type', 'items'],
      properties: { ticket_type: { type: 'string' }, items: { type: 'array' } },
    },
  },
  // [tid, [{item, count}], [{hid, item, at, gate, scanner}]]
  handouts: { type: 'array', items: { type: 'array' } },
} as const;

/** The discovery document's extra field naming the endpoint; absent at an issuer without handouts. */
export function handoutsUrlOf(document: { endpoints: object }): string | null {
  const url = (document.endpoints as { ticket_handouts?: unknown }).ticket_handouts;
  return typeof url === 'string' ? url : null;
}
