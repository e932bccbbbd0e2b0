/**
 * A verdict's details as the verdict screen lists them (docs/kiosk.md "Verdict details"): one labelled line per
 * fact the core gave, in the kiosk's language. Pure: details in, lines out; a fact the verdict lacks has no line.
 */
import type { VerdictDetails } from '../kiosk-bridge-types.js';
import { t } from '../messages/format.js';
import { formatClockTime, formatEventDate, type TimeOptions } from './dates.js';

export interface DetailLine {
  /** A stable hook (`data-detail`) for tests. */
  key: string;
  label: string;
  value: string;
}

export function verdictDetailLines(details: VerdictDetails, time: TimeOptions = {}): DetailLine[] {
  const clock = (iso: string): string => formatClockTime(iso, time);
  const lines: Array<DetailLine | null> = [
    details.tid === null ? null : { key: 'ticket', label: t('details.ticket'), value: details.tid },
    details.ticket_type === null ? null : { key: 'ticket_type', label: t('details.ticket_type'), value: details.ticket_type },
    {
      key: 'decided',
      label: t('details.decided'),
      value: t(details.offline ? 'details.decided_offline' : 'details.decided_online', { time: clock(details.decided_at) }),
    },
    { key: 'check', label: t('details.check'), value: details.decided_by },
    details.reason === null ? null : { key: 'reason', label: t('details.reason'), value: details.reason },
    details.first_used === null
      ? null
      : {
          key: 'first_used',
          label: t('details.first_used'),
          value:
            details.first_used.gate === null
              ? clock(details.first_used.at)
              : t('details.first_used_at_gate', { time: clock(details.first_used.at), gate: details.first_used.gate }),
        },
    details.first_used?.scanner_id ? { key: 'peer', label: t('details.peer'), value: details.first_used.scanner_id } : null,
    details.rule === null ? null : { key: 'rule', label: t('details.rule'), value: details.rule },
    details.detail === null ? null : { key: 'detail', label: t('details.detail'), value: details.detail },
    details.revocations_synced_at === null
      ? null
      : { key: 'revocations_synced', label: t('details.revocations_synced'), value: formatEventDate(details.revocations_synced_at, time) },
    details.lane === null ? null : { key: 'lane', label: t('details.lane'), value: details.lane },
    details.attention === null
      ? null
      : {
          key: 'attention',
          label: t('details.attention'),
          value: t(details.attention.required ? 'details.attention_required' : 'details.attention_notes'),
        },
    details.override === null ? null : { key: 'override', label: t('details.override'), value: overrideWords(details.override, clock) },
    // docs/kiosk.md "ID checks": who answered the ID prompt, and how.
    details.id_check === undefined
      ? null
      : {
          key: 'id_check',
          label: t('details.id_check'),
          value: `${t(`details.id_check.${details.id_check.answer}`)}, ${overrideWords(details.id_check, clock)}`,
        },
  ];
  return lines.filter((line): line is DetailLine => line !== null);
}

function overrideWords(override: NonNullable<VerdictDetails['override']>, clock: (iso: string) => string): string {
  const at = clock(override.at);
  if (override.staff_id === null || override.name === null || override.role === 'anyone') return t('details.override_no_pin', { time: at });
  return t('details.override_by', { time: at, name: override.name, role: t(`staff.role.${override.role}`), id: override.staff_id });
}
