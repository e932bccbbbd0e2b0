/**
 * Attention notes at the door (docs/kiosk.md "Attention notes"): whether an ADMIT must be looked at first,
 * and what its notes say. Online the issuer's check-in answer carries `attention`; offline the kiosk's
 * synced list (a ticket's row and its type's rule) gives the same thing, by the same rule: required when
 * the ticket or its type is flagged, the type's note first, then the ticket's.
 *
 * Pure, in decide/: no store, no network, no clock of its own.
 */
import { attentionOf } from '../../../protocol/attention.js';
import type { Verdict, VerdictAttention } from '../../../protocol/index.js';

/** How long an attention verdict holds the door when nobody taps Done (kiosk-config `attention_hold_seconds`). */
export const DEFAULT_ATTENTION_HOLD_SECONDS = 30;
/** Longest hold the configuration may ask for: ten minutes. */
export const MAX_ATTENTION_HOLD_SECONDS = 600;
/** A note longer than this is cut on screen (the issuer's own limit is shorter); more notes than this are dropped. */
export const MAX_NOTE_LENGTH = 500;
const MAX_NOTES = 4;

/** One ticket's row of the synced list: its flag and its note. */
export interface TicketNote {
  attention: boolean;
  note: string | null;
}

/** One ticket type's rule of the synced list. */
export interface TypeNote {
  attention: boolean;
  note: string | null;
}

/**
 * Ticket flag OR type flag; the type's note, then the ticket's; null when nothing applies. The issuer's own rule
 * (protocol/attention.ts attentionOf), on the notes as the screen shows them.
 */
export function combineAttention(type: TypeNote | null, ticket: TicketNote | null): VerdictAttention | null {
  const shown = (rule: TypeNote | TicketNote | null) => rule && { attention: rule.attention, note: cleanNote(rule.note) };
  return attentionOf(shown(type), shown(ticket));
}

/**
 * The issuer's `attention` extension of a check-in answer (docs/protocol.md "Attention notes (project extension)"),
 * or null when it is absent or not of the agreed shape. An answer without it has nothing to look at: the door
 * never falls back to its own list when the issuer answered (the issuer knows the newest notes).
 */
export function attentionFromAnswer(response: unknown): VerdictAttention | null {
  if (typeof response !== 'object' || response === null) return null;
  const value = (response as { attention?: unknown }).attention;
  if (typeof value !== 'object' || value === null) return null;
  const { required, notes } = value as { required?: unknown; notes?: unknown };
  if (typeof required !== 'boolean' || !Array.isArray(notes)) return null;
  const cleaned = notes.map((note) => (typeof note === 'string' ? cleanNote(note) : null)).filter((note): note is string => note !== null);
  if (!required && cleaned.length === 0) return null;
  return { required, notes: cleaned.slice(0, MAX_NOTES) };
}

/** An ADMIT with what applies attached; any other verdict, or nothing to attach, is returned as it was. */
export function withAttention(verdict: Verdict, attention: VerdictAttention | null): Verdict {
  if (verdict.kind !== 'admit' || attention === null) return verdict;
  return { ...verdict, attention };
}

/** Whether a verdict is the ATTENTION screen state: an ADMIT with a flag or a note. */
export function needsAttention(verdict: Verdict): boolean {
  return verdict.kind === 'admit' && verdict.attention !== undefined && (verdict.attention.required || verdict.attention.notes.length > 0);
}

/** A held door: the attention verdict on screen, until Done or `until` (kiosk clock, ms). */
export interface AttentionHold {
  decidedAt: string;
  tid: string | null;
  until: number;
  /** Ticket scans refused while held ("finish the note first"). */
  refused: number;
}

/** The hold an attention verdict starts, or null for a verdict that does not hold the door. */
export function holdFor(verdict: Verdict, nowMs: number, holdSeconds: number): AttentionHold | null {
  if (!needsAttention(verdict) || holdSeconds <= 0) return null;
  return { decidedAt: verdict.decided_at, tid: verdict.ticket?.tid ?? null, until: nowMs + holdSeconds * 1000, refused: 0 };
}

/** The hold still in force at `nowMs`, or null once its time has passed. */
export function activeHold(hold: AttentionHold | null, nowMs: number): AttentionHold | null {
  return hold !== null && nowMs < hold.until ? hold : null;
}

/**
 * A supervisor's override of the prompt (docs/kiosk.md "Attention notes"): the hold in force at `nowMs` ends as
 * with Done, and this is what the audit log records of it (the caller adds who). Null when nothing holds the
 * door: there is nothing to override, and nothing is recorded as one.
 */
export function overrideOf(
  hold: AttentionHold | null,
  nowMs: number,
): { event: 'attention_override'; tid: string | null; decided_at: string; refused_scans: number } | null {
  const active = activeHold(hold, nowMs);
  if (active === null) return null;
  return { event: 'attention_override', tid: active.tid, decided_at: active.decidedAt, refused_scans: active.refused };
}

/** kiosk-config `attention_hold_seconds`: whole seconds 0 (no hold) to 600; absent: 30. Throws naming the file otherwise. */
export function parseAttentionHold(config: unknown, file: string): number {
  if (typeof config !== 'object' || config === null) return DEFAULT_ATTENTION_HOLD_SECONDS;
  const value = (config as { attention_hold_seconds?: unknown }).attention_hold_seconds;
  if (value === undefined) return DEFAULT_ATTENTION_HOLD_SECONDS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_ATTENTION_HOLD_SECONDS) {
    throw new Error(`${file}: attention_hold_seconds must be whole seconds from 0 to ${MAX_ATTENTION_HOLD_SECONDS} (default 30)`);
  }
  return value;
}

function cleanNote(note: string | null | undefined): string | null {
  const text = note?.trim() ?? '';
  if (text === '') return null;
  return text.length > MAX_NOTE_LENGTH ? `${text.slice(0, MAX_NOTE_LENGTH - 1)}…` : text;
}
