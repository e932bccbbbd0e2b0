/**
 * What the Verdict screen shows for one verdict. Pure: verdict in, words and
 * hooks out. The word and the icon say ADMIT/REFUSE without colour, the
 * colour only repeats it.
 */
import type { HandoutGiven, RefusalReason, Verdict } from '../kiosk-bridge-types.js';
import { inLanguage, language, t, tn, type Language } from '../messages/format.js';
import { formatClockTime, type TimeOptions } from './dates.js';
import type { DetailLine } from './verdict-details-view.js';

/** Refusals the renderer reaches itself, before or instead of a verdict from the kiosk. */
export const LOCAL_REFUSALS = ['layout_mismatch', 'scanner_unauthorized', 'scan_failed', 'storage_fault'] as const;
export type LocalRefusalReason = (typeof LOCAL_REFUSALS)[number];

export interface LocalRefusal {
  kind: 'refuse';
  reason: LocalRefusalReason;
}

export type DoorVerdict = Verdict | LocalRefusal;

/** `data-reason`: `valid` for an admit, else the refusal reason. A stable hook for end-to-end tests. */
export type VerdictReasonCode = 'valid' | 'exited' | RefusalReason | LocalRefusalReason;

export interface VerdictView {
  word: string;
  icon: '✓' | '✗' | '→' | '!' | '+';
  reasonText: string;
  cssClass: 'verdict--admit' | 'verdict--attention' | 'verdict--exit' | 'verdict--refuse' | 'verdict--handout';
  dataVerdict: 'admit' | 'exit' | 'refuse' | 'handout';
  dataReason: VerdictReasonCode;
  holderName: string | null;
  ticketType: string | null;
  /** Set when the kiosk decided without the issuer. */
  offlineNote: string | null;
  /** The scanner read the same code again (a double read): a discreet mark, the verdict stands. */
  readAgainNote?: string | null;
  /** The word and reason again in the door's second language, as a smaller line (docs/kiosk.md "Languages"). */
  secondLanguage?: SecondLanguageLine | null;
  /**
   * ADMIT — ATTENTION (docs/kiosk.md "Attention notes"): the notes shown large, and whether a flag asks for a look.
   * Its own word, icon and colour; `dataVerdict` stays `admit` (the person is admitted).
   */
  attention?: { required: boolean; notes: string[] } | null;
  /** A ticket scan was refused while this attention verdict held the door ("finish the note first"). */
  heldNote?: string | null;
  /** docs/kiosk.md "Handouts": the items with one button each, what is left, and the last tap's note. */
  handouts?: HandoutsView | null;
  /** Its details, once a steward or above opened them (docs/kiosk.md "Verdict details"; verdict-details-view.ts). */
  details?: DetailLine[] | null;
  /** Why the details could not be shown (gone, or the call failed). */
  detailsProblem?: string | null;
}

export interface HandoutsView {
  /** The verdict the taps name (giveHandout's first argument). */
  decidedAt: string;
  items: Array<{ item: string; count: number; left: number; label: string; leftText: string; lastGiven: string | null }>;
  /** The last tap's refusal or offline note, in words; null when none. */
  note: { kind: 'refused_given' | 'refused_not_listed' | 'offline'; text: string } | null;
}

export interface SecondLanguageLine {
  /** BCP 47 language of the line, for its `lang` attribute. */
  lang: Language;
  word: string;
  reasonText: string;
}

/** verdictView in the current language, with the second language's word and reason when the door has one. */
export function verdictViewIn(verdict: DoorVerdict, secondary: Language | null, time: TimeOptions = {}): VerdictView {
  const view = verdictView(verdict, time);
  if (secondary === null) return view;
  const second = inLanguage(secondary, () => verdictView(verdict, time));
  return { ...view, secondLanguage: { lang: secondary, word: second.word, reasonText: second.reasonText } };
}

export function verdictView(verdict: DoorVerdict, time: TimeOptions = {}): VerdictView {
  const ticket = 'ticket' in verdict ? verdict.ticket : undefined;
  const common = {
    holderName: ticket?.holder_name ?? null,
    ticketType: ticket?.ticket_type ?? null,
    // Only an admit by the offline policy waits to sync. A refusal the kiosk decided
    // itself (signature, event, expiry, seen here) is final and needs no note.
    offlineNote:
      verdict.kind !== 'refuse' && verdict.decided_by === 'offline_policy'
        ? t(verdict.kind === 'exit' ? 'verdict.exit_offline_note' : 'verdict.offline_note')
        : null,
  };
  if (verdict.kind === 'exit') {
    // docs/kiosk-screens.md "Screens and test hooks", the EXIT screen: neither green nor red; its own colour, word and icon.
    return {
      ...common,
      word: t('verdict.exit'),
      icon: '→',
      // docs/kiosk.md "Party tickets": "2 of 5 still inside" after a party's people left.
      reasonText: verdict.party === undefined ? t('reason.exited') : partyInsideText(verdict.party),
      cssClass: 'verdict--exit',
      dataVerdict: 'exit',
      dataReason: 'exited',
    };
  }
  if (verdict.kind === 'admit' && verdict.station === 'handout') {
    // docs/kiosk.md "Handouts": a handout station's scan admits no one: its own word, icon and colour.
    return {
      ...common,
      offlineNote: null,
      word: t('verdict.handout'),
      icon: '+',
      reasonText: t('reason.handout'),
      cssClass: 'verdict--handout',
      dataVerdict: 'handout',
      dataReason: 'valid',
      ...handoutsField(verdict, time),
    };
  }
  if (verdict.kind === 'admit' && verdict.attention && (verdict.attention.required || verdict.attention.notes.length > 0)) {
    // Word, icon and colour all differ from a plain ADMIT: never colour alone.
    return {
      ...common,
      word: t('verdict.admit_attention'),
      icon: '!',
      reasonText: t(verdict.attention.required ? 'reason.attention_required' : 'reason.attention_notes'),
      cssClass: 'verdict--attention',
      dataVerdict: 'admit',
      dataReason: 'valid',
      attention: { required: verdict.attention.required, notes: [...verdict.attention.notes] },
      ...handoutsField(verdict, time),
    };
  }
  if (verdict.kind === 'admit') {
    return {
      ...common,
      word: t('verdict.admit'),
      icon: '✓',
      // docs/kiosk.md "Party tickets": "3 of 5 in, 2 to come".
      reasonText: verdict.party === undefined ? t('reason.valid') : partyProgressText(verdict.party),
      cssClass: 'verdict--admit',
      dataVerdict: 'admit',
      dataReason: 'valid',
      ...handoutsField(verdict, time),
    };
  }
  return {
    ...common,
    word: t('verdict.refuse'),
    icon: '✗',
    reasonText: refusalText(verdict, time),
    cssClass: 'verdict--refuse',
    dataVerdict: 'refuse',
    dataReason: verdict.reason,
  };
}

type Refusal = Extract<DoorVerdict, { kind: 'refuse' }>;

/** After an exit of a party's people (docs/kiosk.md "Party tickets"): "2 of 5 still inside", or nobody inside. */
export function partyInsideText(party: { size: number; inside: number }): string {
  return party.inside === 0 ? t('party.all_out') : tn('party.still_inside', party.inside, { size: party.size });
}

/** A party's counts in words (docs/kiosk.md "Party tickets"): "3 of 5 in, 2 to come", or "All 5 in". */
export function partyProgressText(party: { size: number; admitted_total: number; remaining: number; inside: number }): string {
  if (party.remaining === 0) return tn('party.all_in', party.size);
  return tn('party.progress', party.remaining, { admitted: party.admitted_total, size: party.size });
}

/** One sentence for each refusal; exhaustive, so a new reason in the protocol fails to compile here. */
export function refusalText(verdict: Refusal, time: TimeOptions = {}): string {
  switch (verdict.reason) {
    case 'already_used': {
      const at = 'first_used_at' in verdict ? verdict.first_used_at : undefined;
      return at ? t('reason.already_used_at', { time: formatClockTime(at, time) }) : t('reason.already_used');
    }
    case 'wrong_event': {
      const event = 'ticket' in verdict ? verdict.ticket?.event_name : undefined;
      return event ? t('reason.wrong_event_named', { event }) : t('reason.wrong_event');
    }
    case 'not_a_ticket':
      return t('reason.not_a_ticket');
    case 'unsupported_version':
      return t('reason.unsupported_version');
    case 'wrong_issuer':
      return t('reason.wrong_issuer');
    case 'unknown_key':
      return t('reason.unknown_key');
    case 'invalid_signature':
      return t('reason.invalid_signature');
    case 'expired':
      return t('reason.expired');
    case 'revoked': {
      // Refused offline from the revocation list (docs/kiosk.md "Revocation list"): says how current it is.
      const synced = 'revocations_synced_at' in verdict ? verdict.revocations_synced_at : undefined;
      return synced ? t('reason.revoked_as_of', { time: formatClockTime(synced, time) }) : t('reason.revoked');
    }
    case 'unknown_ticket':
      return t('reason.unknown_ticket');
    case 'offline':
      return t('reason.offline');
    case 'layout_mismatch':
      return t('reason.layout_mismatch');
    case 'scanner_unauthorized':
      return t('reason.scanner_unauthorized');
    case 'scan_failed':
      return t('reason.scan_failed');
    case 'storage_fault':
      return t('reason.storage_fault');
    case 'not_inside':
      return t('reason.not_inside');
    case 'venue_full':
      return t('reason.venue_full');
    case 'needs_connection':
      return t('reason.needs_connection');
    case 'offline_cap_reached': {
      const count = 'offline_count' in verdict ? verdict.offline_count : undefined;
      const cap = 'offline_cap' in verdict ? verdict.offline_cap : undefined;
      // An unknown count reads "?" in the plural form (NaN is "other" in every language).
      return tn('reason.offline_cap_reached', count ?? Number.NaN, { count: count ?? '?', cap: cap ?? '?' });
    }
    case 'not_checked_in':
      return t('reason.not_checked_in');
    case 'rule_refused': {
      const rule = 'rule' in verdict ? verdict.rule : undefined;
      return rule ? t('reason.rule', { message: ruleWords(rule), rule: rule.name }) : t('reason.rule_refused');
    }
    case 'id_check_failed':
      return t('reason.id_check_failed');
    case 'party_exceeded': {
      // docs/kiosk.md "Party tickets": the issuer says fewer may still come in than were picked.
      const remaining = 'party' in verdict ? verdict.party?.remaining : undefined;
      return remaining === undefined ? t('reason.party_exceeded') : tn('reason.party_exceeded_left', remaining);
    }
    case 'admitted_at_other_gate': {
      // docs/kiosk.md "Kiosks on one LAN": "Already admitted at Gate A, 21:03 (offline)".
      const at = 'first_used_at' in verdict ? verdict.first_used_at : undefined;
      if (!at) return t('reason.admitted_at_other_gate');
      const gate = 'first_used_gate' in verdict ? verdict.first_used_gate : null;
      const offline = 'first_used_offline' in verdict && verdict.first_used_offline === true;
      const clock = formatClockTime(at, time);
      if (gate) return t(offline ? 'reason.admitted_at_gate_offline' : 'reason.admitted_at_gate', { gate, time: clock });
      return t(offline ? 'reason.admitted_at_other_gate_time_offline' : 'reason.admitted_at_other_gate_time', { time: clock });
    }
  }
}

type RuleRefusal = NonNullable<Extract<Verdict, { kind: 'refuse' }>['rule']>;

/**
 * A check-in rule's refusal in the current language (docs/kiosk.md "Check-in rules offline"): the rules
 * file's own words for it when it has them, else the catalogue's sentence for the rule's code.
 */
export function ruleWords(rule: RuleRefusal): string {
  const own = rule.messages?.[language()];
  if (own) return own;
  const names = (values: readonly string[] | undefined): string => (values ?? []).map((value) => (value === '' ? '–' : value)).join(', ');
  switch (rule.code) {
    case 'ticket_type_not_allowed':
      return t('rule.ticket_type_not_allowed', { types: names(rule.ticket_types) });
    case 'wrong_gate':
      return t('rule.wrong_gate', { gates: names(rule.gates) });
    case 'not_open_yet':
      return t('rule.not_open_yet', { time: rule.time ?? '?' });
    case 'closed':
      return t('rule.closed', { time: rule.time ?? '?' });
    case 'daily_limit':
      return t('rule.daily_limit', { limit: rule.limit ?? '?' });
  }
}

/** Identifies a verdict across the scan() answer and the state's last_verdicts, so it is shown (and beeps) once. */
export function verdictIdentity(verdict: Verdict): string {
  const reason = verdict.kind === 'refuse' ? verdict.reason : verdict.kind === 'exit' ? 'exited' : 'valid';
  return `${verdict.decided_at}|${verdict.ticket?.tid ?? ''}|${reason}`;
}

/** `handouts` only for an ADMIT that has items (a plain ADMIT's view stays as it was). */
function handoutsField(verdict: Verdict, time: TimeOptions): { handouts?: HandoutsView } {
  const view = handoutsView(verdict, time);
  return view === null ? {} : { handouts: view };
}

/** Where a handout was given, in words: the scanner's name and its gate. */
export function whereOf(given: HandoutGiven): string {
  return given.gate === null ? given.scanner : `${given.scanner} (${given.gate})`;
}

/** docs/kiosk.md "Handouts": an ADMIT's or a HANDOUT's items, each with its button, what is left and the last handout. */
export function handoutsView(verdict: Verdict, time: TimeOptions = {}): HandoutsView | null {
  if (verdict.kind !== 'admit' || verdict.handouts === undefined) return null;
  const items = verdict.handouts.map((handout) => {
    const left = Math.max(0, handout.count - handout.given.length);
    const last = handout.given[handout.given.length - 1];
    return {
      item: handout.item,
      count: handout.count,
      left,
      label: t('handout.give', { item: handout.count > 1 ? `${handout.item} ×${handout.count}` : handout.item }),
      leftText: left === 0 ? t('handout.all_given') : tn('handout.left', left),
      lastGiven: last === undefined ? null : t('handout.given_at', { time: formatClockTime(last.at, time), where: whereOf(last) }),
    };
  });
  const note = verdict.handout_note;
  return {
    decidedAt: verdict.decided_at,
    items,
    note:
      note === undefined
        ? null
        : note.kind === 'refused_given'
          ? {
              kind: note.kind,
              text: t('handout.refused_given', {
                item: note.item,
                time: note.given === undefined ? '' : formatClockTime(note.given.at, time),
                where: note.given === undefined ? '' : whereOf(note.given),
              }),
            }
          : note.kind === 'refused_not_listed'
            ? { kind: note.kind, text: t('handout.refused_not_listed', { item: note.item }) }
            : { kind: note.kind, text: t('handout.offline') },
  };
}
