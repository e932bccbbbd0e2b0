/**
 * Attention flags and check-in notes (docs/protocol.md "Attention notes (project extension)"): per ticket type
 * and per ticket, an optional flag ("look at this person") and a short note for the door. The issuer adds what
 * applies to its check-in and status answers (`attention`), and lists every change for kiosks,
 * `GET /api/v1/scanners/notes?since=CURSOR`, so an offline kiosk gives the same answer. Pure.
 */
import { isBandRow, isIdCheckTypeRow, type AgeBand } from './id-check.js';
import { isTicketHandoutRow, isTypeHandoutRow, notesPageHandoutFields, type TicketHandoutRow, type TypeHandoutRow } from './handouts.js';
import { labelCharacterProblem } from './labels.js';
import { isPartyRow } from './party.js';
import type { DiscoveryDocument, IsoDateTime } from './types.js';

/** Longest note: a short line for the door, not a file. */
export const MAX_NOTE_LENGTH = 200;

/** Opaque to scanners: `<copy id>.<number>` of the issuer's note change sequence, as the revocation cursor. */
export const NOTES_CURSOR_PATTERN = '^[0-9a-f]{16}\\.[0-9]{1,15}$';

/** Ticket rows per page: the default, and the most a scanner may ask for (`limit`). */
export const NOTES_PAGE_DEFAULT = 10_000;
export const NOTES_PAGE_MAX = 50_000;

/** The answers' extension: present only when a flag or a note applies. The type's note comes first. */
export interface Attention {
  required: boolean;
  notes: string[];
}

/** One rule: a ticket type's, or a ticket's own. A note is null when there is none. */
export interface AttentionRule {
  attention: boolean;
  note: string | null;
}

/** A ticket row of the synced list: [tid, 1 or 0, note or null]; [tid, 0, null] means "nothing any more". */
export type NoteRow = [string, 0 | 1, string | null];

export interface TypeRule extends AttentionRule {
  ticket_type: string;
}

export interface NotesPage {
  eid: string;
  /** Tickets changed after the cursor, in change order, each with its state now. */
  tickets: NoteRow[];
  /** Every type rule of the event, whole, on every page (a kiosk replaces its copy). */
  types: TypeRule[];
  /**
   * docs/protocol.md "ID checks (project extension)": every type's check of the event, whole, on every page
   * (`age:18`, `name`), and the age band of each listed ticket that has one ([tid, band]; a listed ticket without
   * a row: `unknown`). Absent at an issuer without ID checks.
   */
  id_checks?: Array<{ ticket_type: string; id_check: string }>;
  id_bands?: Array<[string, AgeBand]>;
  /**
   * docs/protocol.md "Party tickets (project extension)": the size of each listed ticket that admits more than one
   * person ([tid, size]; a listed ticket without a row admits one). Absent at an issuer without party tickets.
   */
  parties?: Array<[string, number]>;
  /**
   * docs/protocol.md "Handouts (project extension)": every type's items, whole, on every page, and each listed
   * ticket's own items and handouts given. Absent at an issuer without handouts.
   */
  handout_types?: TypeHandoutRow[];
  handouts?: TicketHandoutRow[];
  next: string;
  complete: boolean;
  /** The answer starts from the beginning although a cursor was sent (another copy, or a cursor ahead): replace. */
  reset: boolean;
  server_time: IsoDateTime;
}

/**
 * What a ticket's answer says: the type rule's note, then the ticket's; required when either flag is set.
 * Null when neither has a flag nor a note (the field is then absent).
 */
export function attentionOf(typeRule: AttentionRule | null | undefined, ticketRule: AttentionRule | null | undefined): Attention | null {
  const rules = [typeRule, ticketRule].filter((rule): rule is AttentionRule => rule !== null && rule !== undefined);
  const required = rules.some((rule) => rule.attention);
  const notes = rules.flatMap((rule) => (rule.note === null || rule.note === '' ? [] : [rule.note]));
  return required || notes.length > 0 ? { required, notes } : null;
}

/** Why `note` cannot be a note (the label rules of protocol/labels.ts, and a length), or null. */
export function noteProblem(note: string): string | null {
  if (note.trim() === '') return 'is empty (to remove a note, clear it)';
  if (note.length > MAX_NOTE_LENGTH) return `is ${note.length} characters long; keep it to ${MAX_NOTE_LENGTH}`;
  return labelCharacterProblem(note);
}

export const attentionSchema = {
  type: 'object',
  required: ['required', 'notes'],
  properties: { required: { type: 'boolean' }, notes: { type: 'array', items: { type: 'string' } } },
} as const;

export const notesPageSchema = {
  $id: 'NotesPage',
  type: 'object',
  required: ['eid', 'tickets', 'types', 'next', 'complete', 'reset', 'server_time'],
  properties: {
    eid: { type: 'string' },
    // [tid, 0|1, note|null]: arrays, so 100,000 rows stay small (docs/protocol.md "Attention notes").
    tickets: { type: 'array', items: { type: 'array' } },
    types: {
      type: 'array',
      items: {
        type: 'object',
        required: ['ticket_type', 'attention', 'note'],
        properties: { ticket_type: { type: 'string' }, attention: { type: 'boolean' }, note: { type: ['string', 'null'] } },
      },
    },
    id_checks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['ticket_type', 'id_check'],
        properties: { ticket_type: { type: 'string' }, id_check: { type: 'string' } },
      },
    },
    // [tid, 'over'|'under'|'unknown']
    id_bands: { type: 'array', items: { type: 'array' } },
    // [tid, size]
    parties: { type: 'array', items: { type: 'array' } },
    ...notesPageHandoutFields,
    next: { type: 'string' },
    complete: { type: 'boolean' },
    reset: { type: 'boolean' },
    server_time: { type: 'string', format: 'date-time' },
  },
} as const;

export const notesQuerySchema = {
  type: 'object',
  properties: {
    since: { type: 'string', pattern: NOTES_CURSOR_PATTERN },
    // A whole number from 1, at most NOTES_PAGE_MAX (checked by the route).
    limit: { type: 'string', pattern: '^[1-9][0-9]{0,4}$' },
  },
} as const;

/** The discovery document's extra field naming the endpoint; absent at an issuer without it. */
export function notesUrlOf(document: DiscoveryDocument): string | null {
  const url = (document.endpoints as { scanner_notes?: unknown }).scanner_notes;
  return typeof url === 'string' ? url : null;
}

const isNote = (value: unknown): value is string | null =>
  value === null || (typeof value === 'string' && value.length <= MAX_NOTE_LENGTH && labelCharacterProblem(value) === null);

/** A 200 answer of the notes endpoint, checked field by field (the kiosk trusts nothing it did not check). */
export function isNotesPage(body: unknown): body is NotesPage {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const page = body as Record<string, unknown>;
  return (
    typeof page['eid'] === 'string' &&
    Array.isArray(page['tickets']) &&
    page['tickets'].every(
      (row) =>
        Array.isArray(row) &&
        row.length === 3 &&
        typeof row[0] === 'string' &&
        row[0].length > 0 &&
        row[0].length <= 200 &&
        (row[1] === 0 || row[1] === 1) &&
        isNote(row[2]),
    ) &&
    Array.isArray(page['types']) &&
    page['types'].every(
      (rule) =>
        typeof rule === 'object' &&
        rule !== null &&
        typeof (rule as TypeRule).ticket_type === 'string' &&
        typeof (rule as TypeRule).attention === 'boolean' &&
        isNote((rule as TypeRule).note),
    ) &&
    (page['id_checks'] === undefined || (Array.isArray(page['id_checks']) && page['id_checks'].every(isIdCheckTypeRow))) &&
    (page['id_bands'] === undefined || (Array.isArray(page['id_bands']) && page['id_bands'].every(isBandRow))) &&
    (page['parties'] === undefined || (Array.isArray(page['parties']) && page['parties'].every(isPartyRow))) &&
    (page['handout_types'] === undefined || (Array.isArray(page['handout_types']) && page['handout_types'].every(isTypeHandoutRow))) &&
    (page['handouts'] === undefined || (Array.isArray(page['handouts']) && page['handouts'].every(isTicketHandoutRow))) &&
    typeof page['next'] === 'string' &&
    page['next'].length <= 100 &&
    typeof page['complete'] === 'boolean' &&
    typeof page['reset'] === 'boolean'
  );
}

/** The `attention` of a check-in or status answer, checked, or null when absent or malformed. */
export function attentionFromAnswer(body: unknown): Attention | null {
  if (typeof body !== 'object' || body === null) return null;
  const value = (body as { attention?: unknown }).attention;
  if (typeof value !== 'object' || value === null) return null;
  const { required, notes } = value as Partial<Attention>;
  if (typeof required !== 'boolean' || !Array.isArray(notes) || !notes.every((note) => typeof note === 'string' && isNote(note)))
    return null;
  return { required, notes };
}
