/**
 * Every word of the after-event report (`ticket-issuer report`, docs/issuer.md "After-event report"), in
 * English. This file is the key set: a translation is one more file typed `ReportMessages` (below), so a
 * missing, extra or differently shaped key fails `tsc`. Placeholders are written `{name}` and kept as they are;
 * `{count}` in a plural is the number, formatted for the language. A plural is `{ one, other }`, chosen by
 * Intl.PluralRules (French "one" covers 0 and 1). Texts starting with a comma or space are pieces of a sentence.
 *
 * Terms as on the dashboard (dashboard/messages/en.ts): check-in, gate, scanner, offline, annulled, revoked.
 * Durations are not here: s, min and h are written the same in all four languages (as on the dashboard), so
 * report-html.ts writes them itself.
 */

/** A text that depends on a count: `one` for Intl.PluralRules' "one", `other` for every other category. */
export interface Plural {
  one: string;
  other: string;
}

export const en = {
  'report.title': 'After-event report: {event}',
  'meta.event': 'event {eid}',
  'meta.issuer': 'issuer {name}',
  'meta.generated': 'Generated {time}. Times in {zone}.',
  'number.percent': '{value} %',
  label_value: '{label}: {value}',
  'list.separator': '; ',
  'gate.none': '(no gate)',

  'totals.title': 'Totals',
  'totals.issued': 'Issued',
  'totals.checked_in': 'Checked in',
  'totals.annulled': 'Annulled',
  'totals.revoked': 'Revoked',
  'totals.exits': 'Exits',
  'totals.inside': 'Inside at the end',
  'totals.note': {
    one:
      'Checked in: tickets whose check-in stands ({percent} of those issued). {count} entry was recorded at the doors in all (re-entries included); ' +
      'annulled: check-ins undone by staff; revoked: tickets revoked by the organiser; inside at the end: checked in and not scanned out when this report was made.',
    other:
      'Checked in: tickets whose check-in stands ({percent} of those issued). {count} entries were recorded at the doors in all (re-entries included); ' +
      'annulled: check-ins undone by staff; revoked: tickets revoked by the organiser; inside at the end: checked in and not scanned out when this report was made.',
  } satisfies Plural,

  'arrivals.title': 'Arrivals per {minutes} minutes per gate',
  'arrivals.no_peak': 'No entries, so no peak minute.',
  'arrivals.peak': { one: 'Peak minute: {time}, {count} entry', other: 'Peak minute: {time}, {count} entries' } satisfies Plural,
  'arrivals.peak_gates': ' ({gates}).',
  'arrivals.empty': 'No entries or exits were recorded.',
  'arrivals.chart.title': 'Entries per {minutes} minutes, stacked by gate',
  'arrivals.chart.title_with_exits': 'Entries per {minutes} minutes, stacked by gate, and exits (line)',
  'arrivals.chart.description': {
    one: '{count} bar from {time}; the table below has every number.',
    other: '{count} bars from {time}; the table below has every number.',
  } satisfies Plural,
  'arrivals.chart.bar': { one: '{gate}, {time}: {count} entry', other: '{gate}, {time}: {count} entries' } satisfies Plural,
  'arrivals.legend.entries': '{gate} (entries)',
  'arrivals.legend.exits': 'Exits, all gates',
  'arrivals.details': 'Every number',
  'arrivals.table.caption': 'Entries (and exits) per {minutes} minutes, from the time scanned at the door',
  'arrivals.table.from': 'From',
  'arrivals.table.gate_in': '{gate} in',
  'arrivals.table.all_in': 'All in',
  'arrivals.table.all_out': 'All out',
  'arrivals.table.total': 'Total',

  'offline.title': 'Admitted offline',
  'offline.share': '{percent} of entries were admitted offline ({offline} of {entries})',
  'offline.exits': { one: ', and {count} exit was scanned offline.', other: ', and {count} exits were scanned offline.' } satisfies Plural,
  'offline.no_exits': '.',
  'offline.delay': {
    one: 'How late they reached the issuer (received − scanned): median {median}, 95th percentile {p95}, longest {max}, over {count} offline scan.',
    other:
      'How late they reached the issuer (received − scanned): median {median}, 95th percentile {p95}, longest {max}, over {count} offline scans.',
  } satisfies Plural,
  'offline.chart.empty': 'No scan was admitted offline.',
  'offline.chart.title': 'Offline scans by how late they reached the issuer',
  'offline.chart.description': {
    one: '{count} offline scan; median {median}, 95th percentile {p95}.',
    other: '{count} offline scans; median {median}, 95th percentile {p95}.',
  } satisfies Plural,

  'doubles.title': 'Double admissions found at sync',
  'doubles.summary': '{offline}, {merged}.',
  'doubles.offline': {
    one: '{count} possible offline double admission',
    other: '{count} possible offline double admissions',
  } satisfies Plural,
  'doubles.merged': {
    one: '{count} found when two copies of the issuer were merged',
    other: '{count} found when two copies of the issuer were merged',
  } satisfies Plural,
  'doubles.note':
    'A possible offline double admission: a scan answered "already used" that reached the issuer more than {seconds} s after it was scanned: ' +
    'a kiosk that was offline admitted the holder while someone had already got in on the same ticket (possible: a kiosk that held the scan, or a clock behind, looks the same).',
  'doubles.table.caption_first': 'The first {listed} of {total}',
  'doubles.table.caption_all': 'Each one',
  'doubles.table.scanned': 'Scanned',
  'doubles.table.ticket': 'Ticket',
  'doubles.table.holder': 'Holder',
  'doubles.table.gate': 'Gate',
  'doubles.table.scanner': 'Scanner',
  'doubles.table.synced_after': 'Synced after',
  'doubles.table.first_admitted': 'First admitted',
  'doubles.table.first_gate': 'At gate',
  'doubles.table.merge': 'merge',

  'attempts.title': 'Forged, revoked and wrong-event attempts',
  'attempts.chart.title': 'Problems at the doors',
  'attempts.chart.doubles': 'Double admissions at sync',
  'attempts.chart.forged': 'Forged signatures',
  'attempts.chart.revoked': 'Revoked tickets',
  'attempts.chart.wrong_event': 'Wrong event',
  'attempts.table.caption': 'Refused scan attempts',
  'attempts.table.kind': 'Kind',
  'attempts.table.attempts': 'Attempts',
  'attempts.table.tickets': 'Tickets',
  'attempts.table.per_gate': 'Per gate',
  'attempts.forged': 'Forged signature',
  'attempts.revoked': 'Revoked ticket',
  'attempts.wrong_event': 'Wrong event',

  'scanners.title': 'Scanner uptime',
  'scanners.note':
    'A scanner is heard from at each scan it sends (whatever the answer) and at its last heartbeat. A gap is more than {minutes} minutes without a scan request: ' +
    'a kiosk down or offline, or simply a quiet door. Uptime is the time between first and last seen less the gaps. ' +
    '"Synced late": scans that reached the issuer more than {seconds} s after they were made (scanned offline).',
  'scanners.chart.empty': 'No scanner sent a scan.',
  'scanners.chart.title': 'Scanners: in contact (green) and gaps without contact (red)',
  'scanners.chart.description': {
    one: '{count} scanner; the table below has the figures.',
    other: '{count} scanners; the table below has the figures.',
  } satisfies Plural,
  'scanners.chart.gap': 'No contact {from}–{to} ({minutes} min)',
  'scanners.legend.contact': 'In contact',
  'scanners.legend.gap': 'Gap: no contact',
  'scanners.table.caption': 'Per scanner',
  'scanners.table.scanner': 'Scanner',
  'scanners.table.gate': 'Gate',
  'scanners.table.first_seen': 'First seen',
  'scanners.table.last_seen': 'Last seen',
  'scanners.table.scans': 'Scans',
  'scanners.table.synced_late': 'Synced late',
  'scanners.table.gaps': 'Gaps',
  'scanners.table.uptime': 'Uptime',
  'scanners.revoked': ' (revoked)',
  'scanners.no_gaps': 'none',

  footer: 'Made by ticket-issuer report. This file is self-contained: it loads nothing and works offline.',
} satisfies Record<string, string | Plural>;

/**
 * A translation: exactly the English keys, a plural where English has one. Here, beside the key set, so a
 * translation imports its type from this file and not from ./index.ts, which imports every translation.
 */
export type ReportMessages = { readonly [K in keyof typeof en]: (typeof en)[K] extends string ? string : Plural };
export type TextKey = { [K in keyof ReportMessages]: ReportMessages[K] extends string ? K : never }[keyof ReportMessages];
export type PluralKey = Exclude<keyof ReportMessages, TextKey>;
