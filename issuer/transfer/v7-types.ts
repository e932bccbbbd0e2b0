/**
 * The value types format version 7 added to the export file (docs/issuer.md "Moving an issuer to the venue and
 * back"): party sizes and people counts (docs/protocol.md "Party tickets (project extension)"), handout lists and
 * handouts (docs/protocol.md "Handouts (project extension)"), a handout station's mark. Each is checked by the rules
 * the CLI and the API apply when the value is first made, so an import refuses what `ticket issue --party`,
 * `--handout`, `--note` (docs/protocol.md "Attention notes (project extension)") or POST /api/v1/tickets/handouts would have refused, naming the row and the field (file.ts checkRow).
 */
import {
  handoutItemProblem,
  handoutListProblem,
  MAX_HANDOUT_COUNT,
  MAX_HANDOUT_ITEM_LENGTH,
  MAX_HANDOUT_ITEMS,
} from '../../protocol/handouts.js';
import { MAX_NOTE_LENGTH, noteProblem } from '../../protocol/attention.js';
import { MAX_PARTY } from '../../protocol/party.js';
import { MAX_SCANNER_TEXT_LENGTH } from '../../protocol/schemas.js';
import type { TransferType } from '../store/columns.js';

const isWhole = (v: unknown, min: number, max: number): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;

/**
 * A stored list of items: JSON text of a non-empty array of {"item", "count"} in that order, as the issuer writes it
 * (issuer/store/handouts.ts), whose items pass the rules of `--handout` (protocol/handouts.ts handoutListProblem).
 */
function isItemsJson(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  let items: unknown;
  try {
    items = JSON.parse(v);
  } catch {
    return false;
  }
  if (!Array.isArray(items) || items.length === 0) return false;
  const shaped = items.every(
    (entry: unknown) =>
      typeof entry === 'object' &&
      entry !== null &&
      Object.keys(entry).join() === 'item,count' &&
      typeof (entry as { item: unknown }).item === 'string' &&
      typeof (entry as { count: unknown }).count === 'number',
  );
  return shaped && handoutListProblem(items as Array<{ item: string; count: number }>) === null && JSON.stringify(items) === v;
}

export const V7_TYPE_CHECKS = {
  // NULL is one person (tickets issued without --party); the column allows 1 too.
  'party?': (v) => v === null || isWhole(v, 1, MAX_PARTY),
  'people?': (v) => v === null || isWhole(v, 1, MAX_PARTY),
  'people_count?': (v) => v === null || isWhole(v, 0, MAX_PARTY),
  'station?': (v) => v === null || v === 'handout',
  handout_items: isItemsJson,
  'handout_items?': (v) => v === null || isItemsJson(v),
  handout_item: (v) => typeof v === 'string' && handoutItemProblem(v) === null,
  handout_status: (v) => v === 'given' || v === 'refused',
  'handout_reason?': (v) => v === null || v === 'not_listed' || v === 'already_given',
  scanner_text: (v) => typeof v === 'string' && v.length <= MAX_SCANNER_TEXT_LENGTH,
  // docs/protocol.md "Attention notes (project extension)": as `--note` stores it (issuer/admin/validators.ts parseNote).
  'note?': (v) => v === null || (typeof v === 'string' && v === v.trim() && noteProblem(v) === null),
} satisfies Partial<Record<TransferType, (value: unknown) => boolean>>;

const ITEMS = `a JSON list of 1 to ${MAX_HANDOUT_ITEMS} {"item", "count"} (names of 1-${MAX_HANDOUT_ITEM_LENGTH} printable characters, each once; counts 0 to ${MAX_HANDOUT_COUNT}), as --handout accepts`;

export const V7_TYPE_NAMES: Record<keyof typeof V7_TYPE_CHECKS, string> = {
  'party?': `null or a whole number from 1 to ${MAX_PARTY}, as ticket issue --party accepts`,
  'people?': `null or a whole number from 1 to ${MAX_PARTY}`,
  'people_count?': `null or a whole number from 0 to ${MAX_PARTY}`,
  'station?': 'null or "handout"',
  handout_items: ITEMS,
  'handout_items?': `null or ${ITEMS}`,
  handout_item: `an item name of 1-${MAX_HANDOUT_ITEM_LENGTH} printable characters (no control, line or direction characters, no space at either end)`,
  handout_status: '"given" or "refused"',
  'handout_reason?': '"not_listed", "already_given" or null',
  scanner_text: `a string of at most ${MAX_SCANNER_TEXT_LENGTH} characters, as enrollment accepts`,
  'note?': `null or a note of 1-${MAX_NOTE_LENGTH} printable characters (no control, line or direction characters, no space at either end), as --note accepts`,
};
