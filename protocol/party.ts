/**
 * Party tickets (docs/protocol.md "Party tickets (project extension)"): one ticket that admits N people. The issuer
 * keeps N (never in the QR code) and the ticket's counts: people inside now and people admitted since the last
 * annulment. A check-in may say how many come in (or go out) now (`people`); a scanner that does not say counts one
 * person per scan. The same pure rules judge a part on the issuer and, offline, on a kiosk from the counts it last
 * knew, so both give the same answer. Pure.
 */
import type { EntryPolicy } from './admission-modes.js';

/** The largest party a ticket may admit (`ticket issue --party`), and the most people one check-in may count. */
export const MAX_PARTY = 1000;

/** A size as `ticket issue --party` and the import take it: a whole number 1 to MAX_PARTY; null otherwise. */
export function parsePartySize(text: string): number | null {
  const value = text.trim();
  if (!/^[1-9][0-9]{0,3}$/.test(value)) return null;
  const size = Number(value);
  return size <= MAX_PARTY ? size : null;
}

/** A stored size (NULL for tickets from before parties, or issued without one): 1. */
export const partySizeOf = (stored: number | null | undefined): number => (stored == null || stored < 1 ? 1 : Number(stored));

/** What the issuer knows of a party ticket's people. */
export interface PartyCounts {
  /** People inside now. */
  inside: number;
  /** People admitted since the last annulment (each person once, re-entries aside). */
  admitted: number;
}

export const NO_PEOPLE: PartyCounts = { inside: 0, admitted: 0 };

/**
 * The counts of a stored admission. A row written before parties (or while the ticket was of one person) has none:
 * it stands for one person, inside or not.
 */
export function countsOf(
  row: { state: 'inside' | 'outside' | 'annulled'; party_inside?: number | null; party_admitted?: number | null } | undefined,
): PartyCounts {
  if (row === undefined || row.state === 'annulled') return NO_PEOPLE;
  if (row.party_inside == null || row.party_admitted == null) return { inside: row.state === 'inside' ? 1 : 0, admitted: 1 };
  return { inside: Number(row.party_inside), admitted: Number(row.party_admitted) };
}

/**
 * Who may still come in now: under `single` each person enters once (N minus those admitted); under `reentry`
 * anyone of the party not inside (N minus those inside).
 */
export function remainingOf(size: number, counts: PartyCounts, policy: EntryPolicy): number {
  return Math.max(0, size - (policy === 'reentry' ? counts.inside : counts.admitted));
}

/** The answers' extension (check-in, status, kiosk verdict): present only for a ticket of more than one person. */
export interface PartyState {
  size: number;
  inside: number;
  admitted_total: number;
  remaining: number;
  /** An entry admitted offline that no longer fitted: how many of its people the issuer did not count. */
  refused?: number;
}

export function partyState(size: number, counts: PartyCounts, policy: EntryPolicy, refused = 0): PartyState {
  const state: PartyState = { size, inside: counts.inside, admitted_total: counts.admitted, remaining: remainingOf(size, counts, policy) };
  if (refused > 0) state.refused = refused;
  return state;
}

/**
 * An entry of `people` (absent: one, a scanner that does not ask) judged against the counts:
 * - `full`: nobody may come in (the spec's already_used: all N are in, or under re-entry all N are inside);
 * - `too_many`: more than remaining asked live (status `party_exceeded`; nothing is checked in, the steward picks again);
 * - `admit`: `people` come in. An entry admitted offline has happened: what fits is counted, the rest `refused`
 *   (the kiosk's conflict report shows it, docs/kiosk.md "Double admissions").
 */
export type PartyEntry =
  { kind: 'full' } | { kind: 'too_many'; remaining: number } | { kind: 'admit'; people: number; refused: number; after: PartyCounts };

export function judgePartyEntry(
  size: number,
  counts: PartyCounts,
  policy: EntryPolicy,
  people: number,
  admittedOffline: boolean,
): PartyEntry {
  const remaining = remainingOf(size, counts, policy);
  if (remaining === 0) return { kind: 'full' };
  if (people > remaining && !admittedOffline) return { kind: 'too_many', remaining };
  const admitted = Math.min(people, remaining);
  return { kind: 'admit', people: admitted, refused: people - admitted, after: afterEntry(counts, admitted, policy) };
}

/**
 * After `people` came in. Under re-entry, people outside who were in before come back first, so only the rest are
 * admitted for the first time (admitted never exceeds N).
 */
export function afterEntry(counts: PartyCounts, people: number, policy: EntryPolicy): PartyCounts {
  const inside = counts.inside + people;
  return { inside, admitted: policy === 'reentry' ? Math.max(counts.admitted, inside) : counts.admitted + people };
}

/** An exit of `people`: none inside is `not_inside`; otherwise up to those inside go out. */
export type PartyExit = { kind: 'not_inside' } | { kind: 'exit'; people: number; after: PartyCounts };

export function judgePartyExit(counts: PartyCounts, people: number): PartyExit {
  if (counts.inside === 0) return { kind: 'not_inside' };
  const out = Math.min(people, counts.inside);
  return { kind: 'exit', people: out, after: { inside: counts.inside - out, admitted: counts.admitted } };
}

/** The `party` of an answer, checked, or null when absent or malformed (a kiosk reads it from the issuer). */
export function partyStateFrom(value: unknown): PartyState | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const whole = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (!whole(v['size']) || !whole(v['inside']) || !whole(v['admitted_total']) || !whole(v['remaining'])) return null;
  if (v['size'] < 1 || v['size'] > MAX_PARTY) return null;
  const state: PartyState = { size: v['size'], inside: v['inside'], admitted_total: v['admitted_total'], remaining: v['remaining'] };
  if (whole(v['refused']) && v['refused'] > 0) state.refused = v['refused'];
  return state;
}

/** A row of the synced notes list's `parties`: [tid, size], size 2 to MAX_PARTY. */
export function isPartyRow(row: unknown): row is [string, number] {
  return (
    Array.isArray(row) &&
    row.length === 2 &&
    typeof row[0] === 'string' &&
    typeof row[1] === 'number' &&
    Number.isSafeInteger(row[1]) &&
    row[1] >= 2 &&
    row[1] <= MAX_PARTY
  );
}

/** The JSON schema of `party` in answers. */
export const partyStateSchema = {
  type: 'object',
  required: ['size', 'inside', 'admitted_total', 'remaining'],
  properties: {
    size: { type: 'integer', minimum: 1 },
    inside: { type: 'integer', minimum: 0 },
    admitted_total: { type: 'integer', minimum: 0 },
    remaining: { type: 'integer', minimum: 0 },
    refused: { type: 'integer', minimum: 1 },
  },
} as const;
