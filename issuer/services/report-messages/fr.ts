/**
 * The after-event report in French (the key set is ./en.ts). Terms as on the dashboard
 * (dashboard/messages/fr.ts): serveur, porte, entrée validée, contrôle annulé, billet annulé, borne, signe de
 * vie, hors ligne. French spacing: a space before « : », « ; » and « % ».
 */
import type { ReportMessages } from './en.js';

export const fr: ReportMessages = {
  'report.title': 'Bilan de l’événement : {event}',
  'meta.event': 'événement {eid}',
  'meta.issuer': 'serveur {name}',
  'meta.generated': 'Généré le {time}. Heures dans le fuseau {zone}.',
  'number.percent': '{value} %',
  label_value: '{label} : {value}',
  'list.separator': ' ; ',
  'gate.none': '(sans porte)',

  'totals.title': 'Totaux',
  'totals.issued': 'Émis',
  'totals.checked_in': 'Entrées validées',
  'totals.annulled': 'Contrôles annulés',
  'totals.revoked': 'Billets annulés',
  'totals.exits': 'Sorties',
  'totals.inside': 'À l’intérieur à la fin',
  'totals.note': {
    one:
      'Entrées validées : billets dont le contrôle est maintenu ({percent} des billets émis). Au total, {count} entrée a été enregistrée aux portes (réentrées comprises) ; ' +
      'contrôles annulés : contrôles défaits par le personnel ; billets annulés : billets annulés par l’organisateur ; à l’intérieur à la fin : entrés et pas ressortis au moment de ce bilan.',
    other:
      'Entrées validées : billets dont le contrôle est maintenu ({percent} des billets émis). Au total, {count} entrées ont été enregistrées aux portes (réentrées comprises) ; ' +
      'contrôles annulés : contrôles défaits par le personnel ; billets annulés : billets annulés par l’organisateur ; à l’intérieur à la fin : entrés et pas ressortis au moment de ce bilan.',
  },

  'arrivals.title': 'Arrivées par tranche de {minutes} minutes et par porte',
  'arrivals.no_peak': 'Aucune entrée, donc pas de minute la plus chargée.',
  'arrivals.peak': { one: 'Minute la plus chargée : {time}, {count} entrée', other: 'Minute la plus chargée : {time}, {count} entrées' },
  'arrivals.peak_gates': ' ({gates}).',
  'arrivals.empty': 'Aucune entrée ni sortie n’a été enregistrée.',
  'arrivals.chart.title': 'Entrées par tranche de {minutes} minutes, empilées par porte',
  'arrivals.chart.title_with_exits': 'Entrées par tranche de {minutes} minutes, empilées par porte, et sorties (ligne)',
  'arrivals.chart.description': {
    one: '{count} barre à partir de {time} ; le tableau ci-dessous donne tous les chiffres.',
    other: '{count} barres à partir de {time} ; le tableau ci-dessous donne tous les chiffres.',
  },
  'arrivals.chart.bar': { one: '{gate}, {time} : {count} entrée', other: '{gate}, {time} : {count} entrées' },
  'arrivals.legend.entries': '{gate} (entrées)',
  'arrivals.legend.exits': 'Sorties, toutes portes',
  'arrivals.details': 'Tous les chiffres',
  'arrivals.table.caption': 'Entrées (et sorties) par tranche de {minutes} minutes, selon l’heure du scan à la porte',
  'arrivals.table.from': 'Début',
  'arrivals.table.gate_in': '{gate} entrées',
  'arrivals.table.all_in': 'Total entrées',
  'arrivals.table.all_out': 'Total sorties',
  'arrivals.table.total': 'Total',

  'offline.title': 'Entrées hors ligne',
  'offline.share': '{percent} des entrées ont été validées hors ligne ({offline} sur {entries})',
  'offline.exits': { one: ', et {count} sortie a été scannée hors ligne.', other: ', et {count} sorties ont été scannées hors ligne.' },
  'offline.no_exits': '.',
  'offline.delay': {
    one: 'Délai avant d’arriver au serveur (reçu − scanné) : médiane {median}, 95e centile {p95}, maximum {max}, sur {count} scan hors ligne.',
    other:
      'Délai avant d’arriver au serveur (reçu − scanné) : médiane {median}, 95e centile {p95}, maximum {max}, sur {count} scans hors ligne.',
  },
  'offline.chart.empty': 'Aucun scan n’a été validé hors ligne.',
  'offline.chart.title': 'Scans hors ligne selon leur délai d’arrivée au serveur',
  'offline.chart.description': {
    one: '{count} scan hors ligne ; médiane {median}, 95e centile {p95}.',
    other: '{count} scans hors ligne ; médiane {median}, 95e centile {p95}.',
  },

  'doubles.title': 'Doubles entrées découvertes à la synchronisation',
  'doubles.summary': '{offline}, {merged}.',
  'doubles.offline': { one: '{count} double entrée possible hors ligne', other: '{count} doubles entrées possibles hors ligne' },
  'doubles.merged': {
    one: '{count} découverte à la fusion de deux copies du serveur',
    other: '{count} découvertes à la fusion de deux copies du serveur',
  },
  'doubles.note':
    'Double entrée possible hors ligne : un scan répondu « déjà utilisé » arrivé au serveur plus de {seconds} s après avoir été scanné. ' +
    'Une borne hors ligne a laissé entrer le titulaire alors que quelqu’un était déjà entré avec le même billet (possible : une borne qui a retenu le scan, ou une horloge en retard, donne le même résultat).',
  'doubles.table.caption_first': 'Les {listed} premières sur {total}',
  'doubles.table.caption_all': 'Une par une',
  'doubles.table.scanned': 'Scanné',
  'doubles.table.ticket': 'Billet',
  'doubles.table.holder': 'Titulaire',
  'doubles.table.gate': 'Porte',
  'doubles.table.scanner': 'Scanner',
  'doubles.table.synced_after': 'Synchronisé après',
  'doubles.table.first_admitted': 'Première entrée',
  'doubles.table.first_gate': 'À la porte',
  'doubles.table.merge': 'fusion',

  'attempts.title': 'Tentatives refusées : billets falsifiés, annulés ou d’un autre événement',
  'attempts.chart.title': 'Problèmes aux portes',
  'attempts.chart.doubles': 'Doubles entrées (synchronisation)',
  'attempts.chart.forged': 'Signatures falsifiées',
  'attempts.chart.revoked': 'Billets annulés',
  'attempts.chart.wrong_event': 'Mauvais événement',
  'attempts.table.caption': 'Tentatives de scan refusées',
  'attempts.table.kind': 'Type',
  'attempts.table.attempts': 'Tentatives',
  'attempts.table.tickets': 'Billets',
  'attempts.table.per_gate': 'Par porte',
  'attempts.forged': 'Signature falsifiée',
  'attempts.revoked': 'Billet annulé',
  'attempts.wrong_event': 'Mauvais événement',

  'scanners.title': 'Disponibilité des scanners',
  'scanners.note':
    'Un scanner se manifeste à chaque scan qu’il envoie (quelle que soit la réponse) et à son dernier signe de vie. Une interruption, c’est plus de {minutes} minutes sans requête de scan : ' +
    'une borne en panne ou hors ligne, ou simplement une porte calme. La disponibilité est le temps entre le premier et le dernier contact, moins les interruptions. ' +
    '« Synchronisés en retard » : scans arrivés au serveur plus de {seconds} s après avoir été faits (scannés hors ligne).',
  'scanners.chart.empty': 'Aucun scanner n’a envoyé de scan.',
  'scanners.chart.title': 'Scanners : en contact (vert) et interruptions sans contact (rouge)',
  'scanners.chart.description': {
    one: '{count} scanner ; le tableau ci-dessous donne les chiffres.',
    other: '{count} scanners ; le tableau ci-dessous donne les chiffres.',
  },
  'scanners.chart.gap': 'Sans contact {from}–{to} ({minutes} min)',
  'scanners.legend.contact': 'En contact',
  'scanners.legend.gap': 'Interruption : sans contact',
  'scanners.table.caption': 'Par scanner',
  'scanners.table.scanner': 'Scanner',
  'scanners.table.gate': 'Porte',
  'scanners.table.first_seen': 'Premier contact',
  'scanners.table.last_seen': 'Dernier contact',
  'scanners.table.scans': 'Scans',
  'scanners.table.synced_late': 'Synchronisés en retard',
  'scanners.table.gaps': 'Interruptions',
  'scanners.table.uptime': 'Disponibilité',
  'scanners.revoked': ' (révoqué)',
  'scanners.no_gaps': 'aucune',

  footer: 'Généré par ticket-issuer report. Ce fichier est autonome : il ne charge rien et fonctionne hors ligne.',
};
