/**
 * The after-event report in German (the key set is ./en.ts). Terms as on the dashboard
 * (dashboard/messages/de.ts): Ticketserver, Eingang, Einlass/eingelassen, Check-in aufgehoben, gesperrt,
 * Eintritte/Austritte, Lebenszeichen, offline.
 */
import type { ReportMessages } from './en.js';

export const de: ReportMessages = {
  'report.title': 'Abschlussbericht: {event}',
  'meta.event': 'Veranstaltung {eid}',
  'meta.issuer': 'Ticketserver {name}',
  'meta.generated': 'Erstellt am {time}. Zeitangaben in {zone}.',
  'number.percent': '{value} %',
  label_value: '{label}: {value}',
  'list.separator': '; ',
  'gate.none': '(kein Eingang)',

  'totals.title': 'Gesamtzahlen',
  'totals.issued': 'Ausgegeben',
  'totals.checked_in': 'Eingelassen',
  'totals.annulled': 'Check-in aufgehoben',
  'totals.revoked': 'Gesperrt',
  'totals.exits': 'Austritte',
  'totals.inside': 'Am Ende drinnen',
  'totals.note': {
    one:
      'Eingelassen: Tickets, deren Check-in gilt ({percent} der ausgegebenen). An den Eingängen wurde insgesamt {count} Eintritt erfasst (Wiedereintritte eingeschlossen); ' +
      'Check-in aufgehoben: vom Personal rückgängig gemachte Check-ins; gesperrt: vom Veranstalter gesperrte Tickets; am Ende drinnen: eingelassen und beim Erstellen dieses Berichts nicht ausgescannt.',
    other:
      'Eingelassen: Tickets, deren Check-in gilt ({percent} der ausgegebenen). An den Eingängen wurden insgesamt {count} Eintritte erfasst (Wiedereintritte eingeschlossen); ' +
      'Check-in aufgehoben: vom Personal rückgängig gemachte Check-ins; gesperrt: vom Veranstalter gesperrte Tickets; am Ende drinnen: eingelassen und beim Erstellen dieses Berichts nicht ausgescannt.',
  },

  'arrivals.title': 'Ankünfte pro {minutes} Minuten und Eingang',
  'arrivals.no_peak': 'Keine Eintritte, daher keine stärkste Minute.',
  'arrivals.peak': { one: 'Stärkste Minute: {time}, {count} Eintritt', other: 'Stärkste Minute: {time}, {count} Eintritte' },
  'arrivals.peak_gates': ' ({gates}).',
  'arrivals.empty': 'Es wurden keine Eintritte oder Austritte erfasst.',
  'arrivals.chart.title': 'Eintritte pro {minutes} Minuten, nach Eingang gestapelt',
  'arrivals.chart.title_with_exits': 'Eintritte pro {minutes} Minuten, nach Eingang gestapelt, und Austritte (Linie)',
  'arrivals.chart.description': {
    one: '{count} Balken ab {time}; die Tabelle darunter enthält alle Zahlen.',
    other: '{count} Balken ab {time}; die Tabelle darunter enthält alle Zahlen.',
  },
  'arrivals.chart.bar': { one: '{gate}, {time}: {count} Eintritt', other: '{gate}, {time}: {count} Eintritte' },
  'arrivals.legend.entries': '{gate} (Eintritte)',
  'arrivals.legend.exits': 'Austritte, alle Eingänge',
  'arrivals.details': 'Alle Zahlen',
  'arrivals.table.caption': 'Eintritte (und Austritte) pro {minutes} Minuten, nach der Scanzeit am Eingang',
  'arrivals.table.from': 'Ab',
  'arrivals.table.gate_in': '{gate} rein',
  'arrivals.table.all_in': 'Gesamt rein',
  'arrivals.table.all_out': 'Gesamt raus',
  'arrivals.table.total': 'Summe',

  'offline.title': 'Offline eingelassen',
  'offline.share': '{percent} der Eintritte wurden offline eingelassen ({offline} von {entries})',
  'offline.exits': { one: ', und {count} Austritt wurde offline gescannt.', other: ', und {count} Austritte wurden offline gescannt.' },
  'offline.no_exits': '.',
  'offline.delay': {
    one: 'Wie spät sie beim Ticketserver ankamen (empfangen − gescannt): Median {median}, 95. Perzentil {p95}, längstens {max}, bei {count} Offline-Scan.',
    other:
      'Wie spät sie beim Ticketserver ankamen (empfangen − gescannt): Median {median}, 95. Perzentil {p95}, längstens {max}, bei {count} Offline-Scans.',
  },
  'offline.chart.empty': 'Kein Scan wurde offline eingelassen.',
  'offline.chart.title': 'Offline-Scans nach ihrer Verspätung beim Ticketserver',
  'offline.chart.description': {
    one: '{count} Offline-Scan; Median {median}, 95. Perzentil {p95}.',
    other: '{count} Offline-Scans; Median {median}, 95. Perzentil {p95}.',
  },

  'doubles.title': 'Bei der Übertragung entdeckte doppelte Einlässe',
  'doubles.summary': '{offline}, {merged}.',
  'doubles.offline': { one: '{count} möglicher doppelter Einlass offline', other: '{count} mögliche doppelte Einlässe offline' },
  'doubles.merged': {
    one: '{count} beim Zusammenführen zweier Kopien des Ticketservers entdeckt',
    other: '{count} beim Zusammenführen zweier Kopien des Ticketservers entdeckt',
  },
  'doubles.note':
    'Ein möglicher doppelter Einlass offline: ein Scan mit der Antwort „bereits entwertet“, der den Ticketserver mehr als {seconds} s nach dem Scannen erreicht hat. ' +
    'Ein Kiosk, der offline war, hat die Person eingelassen, obwohl mit demselben Ticket schon jemand hineingekommen war (möglich: Ein Kiosk, der den Scan zurückgehalten hat, oder eine nachgehende Uhr sieht genauso aus).',
  'doubles.table.caption_first': 'Die ersten {listed} von {total}',
  'doubles.table.caption_all': 'Alle einzeln',
  'doubles.table.scanned': 'Gescannt',
  'doubles.table.ticket': 'Ticket',
  'doubles.table.holder': 'Inhaber',
  'doubles.table.gate': 'Eingang',
  'doubles.table.scanner': 'Scanner',
  'doubles.table.synced_after': 'Übertragen nach',
  'doubles.table.first_admitted': 'Zuerst eingelassen',
  'doubles.table.first_gate': 'An Eingang',
  'doubles.table.merge': 'Zusammenführung',

  'attempts.title': 'Abgewiesene Versuche: gefälscht, gesperrt, falsche Veranstaltung',
  'attempts.chart.title': 'Probleme an den Eingängen',
  'attempts.chart.doubles': 'Doppelte Einlässe (Übertragung)',
  'attempts.chart.forged': 'Gefälschte Signaturen',
  'attempts.chart.revoked': 'Gesperrte Tickets',
  'attempts.chart.wrong_event': 'Falsche Veranstaltung',
  'attempts.table.caption': 'Abgewiesene Scanversuche',
  'attempts.table.kind': 'Art',
  'attempts.table.attempts': 'Versuche',
  'attempts.table.tickets': 'Tickets',
  'attempts.table.per_gate': 'Pro Eingang',
  'attempts.forged': 'Gefälschte Signatur',
  'attempts.revoked': 'Gesperrtes Ticket',
  'attempts.wrong_event': 'Falsche Veranstaltung',

  'scanners.title': 'Verfügbarkeit der Scanner',
  'scanners.note':
    'Ein Scanner meldet sich mit jedem Scan, den er sendet (gleich mit welcher Antwort), und mit seinem letzten Lebenszeichen. Eine Lücke sind mehr als {minutes} Minuten ohne Scananfrage: ' +
    'ein ausgefallener oder offline arbeitender Kiosk oder einfach ein ruhiger Eingang. Die Verfügbarkeit ist die Zeit zwischen erstem und letztem Kontakt abzüglich der Lücken. ' +
    '„Verspätet übertragen“: Scans, die den Ticketserver mehr als {seconds} s nach dem Scannen erreicht haben (offline gescannt).',
  'scanners.chart.empty': 'Kein Scanner hat einen Scan gesendet.',
  'scanners.chart.title': 'Scanner: in Kontakt (grün) und Lücken ohne Kontakt (rot)',
  'scanners.chart.description': {
    one: '{count} Scanner; die Tabelle darunter enthält die Zahlen.',
    other: '{count} Scanner; die Tabelle darunter enthält die Zahlen.',
  },
  'scanners.chart.gap': 'Kein Kontakt {from}–{to} ({minutes} min)',
  'scanners.legend.contact': 'In Kontakt',
  'scanners.legend.gap': 'Lücke: kein Kontakt',
  'scanners.table.caption': 'Pro Scanner',
  'scanners.table.scanner': 'Scanner',
  'scanners.table.gate': 'Eingang',
  'scanners.table.first_seen': 'Erster Kontakt',
  'scanners.table.last_seen': 'Letzter Kontakt',
  'scanners.table.scans': 'Scans',
  'scanners.table.synced_late': 'Verspätet übertragen',
  'scanners.table.gaps': 'Lücken',
  'scanners.table.uptime': 'Verfügbarkeit',
  'scanners.revoked': ' (gesperrt)',
  'scanners.no_gaps': 'keine',

  footer: 'Erstellt mit ticket-issuer report. Diese Datei ist in sich vollständig: Sie lädt nichts nach und funktioniert offline.',
};
