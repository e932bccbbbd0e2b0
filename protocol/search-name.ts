/**
 * Ticket search by holder name, short id or ticket id (docs/protocol.md "Ticket search"). Pure: the issuer
 * stores each ticket's name in the searchable form (`searchName`) and matches a query's words against it, so a
 * search is accent- and case-insensitive and partial: "zoe ang" finds "Zoë Ångström".
 */
import type { Attention } from './attention.js';
import type { Handout } from './handouts.js';
import type { PartyState } from './party.js';

/** Letters that NFKD does not split into a base letter and a mark, folded by hand. */
const FOLDS: Readonly<Record<string, string>> = {
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ß: 'ss',
  ħ: 'h',
};

/**
 * The searchable form of a text: compatibility-decomposed (NFKD), marks removed, case-folded, every run of
 * characters that are neither letters nor digits made one space. "Zoë  Ångström-Lévy" → "zoe angstrom levy".
 */
export function searchName(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toUpperCase()
    .toLowerCase()
    .replace(/[øæœłđðþıßħ]/g, (letter) => FOLDS[letter] ?? letter)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** A query's words in the searchable form, without repeats; none for a query of spaces and punctuation. */
export function searchTokens(query: string): string[] {
  return [
    ...new Set(
      searchName(query)
        .split(' ')
        .filter((word) => word !== ''),
    ),
  ];
}

/** Whether every word of the query is part of the name (anywhere in it: "ang" and "strom" both find "Ångström"). */
export function nameMatches(tokens: readonly string[], name: string | null): boolean {
  if (name === null || tokens.length === 0) return false;
  const searchable = searchName(name);
  return tokens.every((token) => searchable.includes(token));
}

/** The short id printed on a ticket (issuer/admin/ticket-pdf.ts): its last 8 characters as "XXXX-XXXX". */
export const shortIdOf = (tid: string): string => `${tid.slice(-8, -4)}-${tid.slice(-4)}`;

/**
 * The ticket id a query names as a whole: a full tid, or a short id with or without its hyphen, upper-cased
 * (tids are upper-case). Null when the query cannot be one (spaces inside, or too short for a short id).
 */
export function idQuery(query: string): { tid: string } | { shortId: string } | null {
  const compact = query.trim().toUpperCase();
  if (compact === '' || /\s/.test(compact)) return null;
  const unhyphenated = compact.replace(/-/g, '');
  if (/^[0-9A-Z]{8}$/.test(unhyphenated)) return { shortId: unhyphenated };
  if (/^[0-9A-Za-z_-]{9,200}$/.test(compact)) return { tid: query.trim() };
  return null;
}

/** The most results one search returns; the answer says when there were more (`more`). */
export const MAX_SEARCH_RESULTS = 50;
/** The longest query accepted. */
export const MAX_SEARCH_QUERY_LENGTH = 200;

/**
 * One ticket found (GET /api/v1/tickets/search, docs/protocol.md "Ticket search"). Later fields are added here
 * as optional members; readers ignore what they do not know.
 */
export interface TicketSearchResult {
  tid: string;
  short_id: string;
  holder_name: string | null;
  ticket_type: string | null;
  /** As the status endpoint says it: revoked → checked_in → expired → valid. */
  status: 'valid' | 'checked_in' | 'revoked' | 'expired';
  /** The door extension's state: inside, outside, annulled, or null (never admitted). */
  presence: 'inside' | 'outside' | 'annulled' | null;
  checked_in_at: string | null;
  /** The check-in answer's `attention` (docs/protocol.md "Attention notes (project extension)"); absent: nothing. */
  attention?: Attention;
  /** The status answer's `handouts` (docs/protocol.md "Handouts (project extension)"); absent: no items. */
  handouts?: Handout[];
  /** The status answer's `party` (docs/protocol.md "Party tickets (project extension)"); absent: one person. */
  party?: PartyState;
}

export interface TicketSearchAnswer {
  results: TicketSearchResult[];
  /** More tickets match than the MAX_SEARCH_RESULTS returned: the query should be longer. */
  more: boolean;
}
