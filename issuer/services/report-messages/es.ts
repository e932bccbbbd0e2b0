/**
 * The after-event report in Spanish (the key set is ./en.ts). Terms as on the dashboard
 * (dashboard/messages/es.ts): servidor, puerta, entrada, acceso anulado, entrada anulada, escáner, quiosco,
 * señal, sin conexión.
 */
import type { ReportMessages } from './en.js';

export const es: ReportMessages = {
  'report.title': 'Informe final del evento: {event}',
  'meta.event': 'evento {eid}',
  'meta.issuer': 'servidor {name}',
  'meta.generated': 'Generado el {time}. Horas en la zona {zone}.',
  'number.percent': '{value} %',
  label_value: '{label}: {value}',
  'list.separator': '; ',
  'gate.none': '(sin puerta)',

  'totals.title': 'Totales',
  'totals.issued': 'Emitidas',
  'totals.checked_in': 'Han entrado',
  'totals.annulled': 'Accesos anulados',
  'totals.revoked': 'Entradas anuladas',
  'totals.exits': 'Salidas',
  'totals.inside': 'Dentro al final',
  'totals.note': {
    one:
      'Han entrado: entradas cuyo acceso sigue en pie ({percent} de las emitidas). En total se registró {count} acceso en las puertas (reingresos incluidos); ' +
      'accesos anulados: accesos deshechos por el personal; entradas anuladas: entradas anuladas por el organizador; dentro al final: entraron y no salieron antes de hacer este informe.',
    other:
      'Han entrado: entradas cuyo acceso sigue en pie ({percent} de las emitidas). En total se registraron {count} accesos en las puertas (reingresos incluidos); ' +
      'accesos anulados: accesos deshechos por el personal; entradas anuladas: entradas anuladas por el organizador; dentro al final: entraron y no salieron antes de hacer este informe.',
  },

  'arrivals.title': 'Llegadas cada {minutes} minutos por puerta',
  'arrivals.no_peak': 'No hubo accesos, así que no hay minuto de más afluencia.',
  'arrivals.peak': { one: 'Minuto de más afluencia: {time}, {count} acceso', other: 'Minuto de más afluencia: {time}, {count} accesos' },
  'arrivals.peak_gates': ' ({gates}).',
  'arrivals.empty': 'No se registró ningún acceso ni ninguna salida.',
  'arrivals.chart.title': 'Accesos cada {minutes} minutos, apilados por puerta',
  'arrivals.chart.title_with_exits': 'Accesos cada {minutes} minutos, apilados por puerta, y salidas (línea)',
  'arrivals.chart.description': {
    one: '{count} barra desde las {time}; la tabla de abajo tiene todas las cifras.',
    other: '{count} barras desde las {time}; la tabla de abajo tiene todas las cifras.',
  },
  'arrivals.chart.bar': { one: '{gate}, {time}: {count} acceso', other: '{gate}, {time}: {count} accesos' },
  'arrivals.legend.entries': '{gate} (accesos)',
  'arrivals.legend.exits': 'Salidas, todas las puertas',
  'arrivals.details': 'Todas las cifras',
  'arrivals.table.caption': 'Accesos (y salidas) cada {minutes} minutos, según la hora del escaneo en la puerta',
  'arrivals.table.from': 'Desde',
  'arrivals.table.gate_in': '{gate} accesos',
  'arrivals.table.all_in': 'Total accesos',
  'arrivals.table.all_out': 'Total salidas',
  'arrivals.table.total': 'Total',

  'offline.title': 'Admisiones sin conexión',
  'offline.share': 'El {percent} de los accesos se admitieron sin conexión ({offline} de {entries})',
  'offline.exits': { one: ', y {count} salida se escaneó sin conexión.', other: ', y {count} salidas se escanearon sin conexión.' },
  'offline.no_exits': '.',
  'offline.delay': {
    one: 'Cuánto tardaron en llegar al servidor (recibido − escaneado): mediana {median}, percentil 95 {p95}, máximo {max}, sobre {count} escaneo sin conexión.',
    other:
      'Cuánto tardaron en llegar al servidor (recibido − escaneado): mediana {median}, percentil 95 {p95}, máximo {max}, sobre {count} escaneos sin conexión.',
  },
  'offline.chart.empty': 'Ningún escaneo se admitió sin conexión.',
  'offline.chart.title': 'Escaneos sin conexión según cuánto tardaron en llegar al servidor',
  'offline.chart.description': {
    one: '{count} escaneo sin conexión; mediana {median}, percentil 95 {p95}.',
    other: '{count} escaneos sin conexión; mediana {median}, percentil 95 {p95}.',
  },

  'doubles.title': 'Accesos dobles detectados al sincronizar',
  'doubles.summary': '{offline}, {merged}.',
  'doubles.offline': { one: '{count} posible acceso doble sin conexión', other: '{count} posibles accesos dobles sin conexión' },
  'doubles.merged': {
    one: '{count} detectado al fusionar dos copias del servidor',
    other: '{count} detectados al fusionar dos copias del servidor',
  },
  'doubles.note':
    'Posible acceso doble sin conexión: un escaneo con la respuesta «ya utilizada» que llegó al servidor más de {seconds} s después de escanearse. ' +
    'Un quiosco sin conexión dejó pasar al titular cuando alguien ya había entrado con la misma entrada (posible: un quiosco que retuvo el escaneo, o un reloj atrasado, se ve igual).',
  'doubles.table.caption_first': 'Los primeros {listed} de {total}',
  'doubles.table.caption_all': 'Uno por uno',
  'doubles.table.scanned': 'Escaneado',
  'doubles.table.ticket': 'Entrada',
  'doubles.table.holder': 'Titular',
  'doubles.table.gate': 'Puerta',
  'doubles.table.scanner': 'Escáner',
  'doubles.table.synced_after': 'Sincronizado tras',
  'doubles.table.first_admitted': 'Primer acceso',
  'doubles.table.first_gate': 'En la puerta',
  'doubles.table.merge': 'fusión',

  'attempts.title': 'Intentos rechazados: entradas falsas, anuladas o de otro evento',
  'attempts.chart.title': 'Problemas en las puertas',
  'attempts.chart.doubles': 'Accesos dobles (sincronización)',
  'attempts.chart.forged': 'Firmas falsas',
  'attempts.chart.revoked': 'Entradas anuladas',
  'attempts.chart.wrong_event': 'Otro evento',
  'attempts.table.caption': 'Intentos de escaneo rechazados',
  'attempts.table.kind': 'Tipo',
  'attempts.table.attempts': 'Intentos',
  'attempts.table.tickets': 'Entradas',
  'attempts.table.per_gate': 'Por puerta',
  'attempts.forged': 'Firma falsa',
  'attempts.revoked': 'Entrada anulada',
  'attempts.wrong_event': 'Otro evento',

  'scanners.title': 'Disponibilidad de los escáneres',
  'scanners.note':
    'Un escáner da señales con cada escaneo que envía (sea cual sea la respuesta) y con su última señal de vida. Una interrupción son más de {minutes} minutos sin ninguna petición de escaneo: ' +
    'un quiosco caído o sin conexión, o simplemente una puerta tranquila. La disponibilidad es el tiempo entre el primer y el último contacto, menos las interrupciones. ' +
    '«Sincronizados tarde»: escaneos que llegaron al servidor más de {seconds} s después de hacerse (escaneados sin conexión).',
  'scanners.chart.empty': 'Ningún escáner envió un escaneo.',
  'scanners.chart.title': 'Escáneres: en contacto (verde) e interrupciones sin contacto (rojo)',
  'scanners.chart.description': {
    one: '{count} escáner; la tabla de abajo tiene las cifras.',
    other: '{count} escáneres; la tabla de abajo tiene las cifras.',
  },
  'scanners.chart.gap': 'Sin contacto {from}–{to} ({minutes} min)',
  'scanners.legend.contact': 'En contacto',
  'scanners.legend.gap': 'Interrupción: sin contacto',
  'scanners.table.caption': 'Por escáner',
  'scanners.table.scanner': 'Escáner',
  'scanners.table.gate': 'Puerta',
  'scanners.table.first_seen': 'Primer contacto',
  'scanners.table.last_seen': 'Último contacto',
  'scanners.table.scans': 'Escaneos',
  'scanners.table.synced_late': 'Sincronizados tarde',
  'scanners.table.gaps': 'Interrupciones',
  'scanners.table.uptime': 'Disponibilidad',
  'scanners.revoked': ' (revocado)',
  'scanners.no_gaps': 'ninguna',

  footer: 'Generado por ticket-issuer report. Este archivo es autónomo: no carga nada y funciona sin conexión.',
};
