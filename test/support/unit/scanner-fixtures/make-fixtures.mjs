// Writes the scanner report fixtures (JSON, one hex string per report) that
// test/unit/scanner/*.test.ts replay. Run once: node test/support/unit/scanner-fixtures/make-fixtures.mjs
//
// The byte layouts are written out here independently of the decoders under
// test, from the same sources the decoders cite:
// - HID-POS scanned-data report (HID Point of Sale Usage Tables 1.02, usage
//   page 0x8C; the 64-byte layout HID-POS scanners document): report ID 0x02,
//   byte count, AIM symbology id (3 bytes), 56 data bytes, 2 vendor bytes,
//   byte 63 bit 0 = Decode Data Continued.
// - Keyboard boot report (HID 1.11 Appendix B.1): modifiers, reserved, 6 keys;
//   US layout usage ids from HID Usage Tables section 10.
// The codes are deterministic (fixed Ed25519 seed), so re-running gives the same files.
import { createPrivateKey, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const b64url = (bytes) => Buffer.from(bytes).toString('base64url');
const hex = (bytes) => Buffer.from(bytes).toString('hex');

// --- the codes ------------------------------------------------------------
// A fixed test seed wrapped as PKCS#8 so node:crypto can sign with it.
const seed = Buffer.alloc(32, 7);
const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });

const ticketPayload = {
  v: 1,
  iss: 'https://tickets.example-venue.org',
  kid: '3f2a9c1e',
  tid: '01JAZ8K6Q3M9X2V7T5R4N1P0WB',
  eid: '01JAZ8F2C4D6E8G0H2J4K6M8NQ',
  ev: { name: 'Spring Gala 2026', date: '2026-04-18T19:30:00Z', venue: 'Grand Hall' },
  tt: 'VIP',
  hn: 'Ada L.',
  iat: 1767225600,
  exp: 1776600000,
};
const ticketSegment = b64url(JSON.stringify(ticketPayload));
const ticketCode = `tkt1.${ticketSegment}.${b64url(sign(null, Buffer.from(ticketSegment), privateKey))}`;

/** A ticket code of exactly 490 characters (a long holder name and event), as the issue's worst case. */
function signedTicket(payload) {
  const segment = b64url(JSON.stringify(payload));
  return `tkt1.${segment}.${b64url(sign(null, Buffer.from(segment), privateKey))}`;
}
let longTicketCode = '';
for (let extra = 0; longTicketCode.length !== 490; extra++) {
  if (extra > 400) throw new Error('no 490-character ticket');
  longTicketCode = signedTicket({ ...ticketPayload, hn: `Maximiliane A. ${'e'.repeat(extra)}`, tt: 'Weekend pass' });
  if (longTicketCode.length > 490) throw new Error(`the shortest long ticket is ${longTicketCode.length} characters`);
}

const setupPayload = {
  v: 1,
  iss: 'https://tickets.example-venue.org',
  enroll_url: 'https://tickets.example-venue.org/api/v1/scanners/enroll',
  token: 'q7Zt0m4H1c9VwX2kLr8YbN3eDf5GsJ6u',
  eid: '01JAZ8F2C4D6E8G0H2J4K6M8NQ',
  event_name: 'Spring Gala 2026',
  gate_id: 'north',
  expires_at: '2026-04-19T07:30:00Z',
};
const setupCode = `tsetup1.${b64url(JSON.stringify(setupPayload))}`;

// --- HID-POS reports --------------------------------------------------------
const POS_DATA_CAPACITY = 56;
/** One 64-byte scanned-data report. vendorByte imitates Honeywell's code id at byte 61. */
function posReport(aim, data, continued, vendorByte = 0) {
  const report = new Uint8Array(64); // zero padding everywhere not written
  report[0] = 0x02;
  report[1] = data.length;
  report.set(Buffer.from(aim, 'latin1').subarray(0, 3), 2);
  report.set(data, 5);
  report[61] = vendorByte;
  report[63] = continued ? 0x01 : 0x00;
  return report;
}
/** A whole scan split the way a scanner splits it: 56 bytes per report, continued on all but the last. */
function posScan(aim, text, vendorByte = 0) {
  const bytes = Buffer.from(text, 'utf8');
  const reports = [];
  for (let offset = 0; offset < bytes.length; offset += POS_DATA_CAPACITY) {
    const chunk = bytes.subarray(offset, offset + POS_DATA_CAPACITY);
    reports.push(posReport(aim, chunk, offset + POS_DATA_CAPACITY < bytes.length, vendorByte));
  }
  return reports;
}

const QR = ']Q1';
const QR_HONEYWELL_ID = 0x73; // 's'
const ticketReports = posScan(QR, ticketCode, QR_HONEYWELL_ID);
const setupReports = posScan(QR, `${setupCode}\r\n`, QR_HONEYWELL_ID); // scanner configured with a CR LF suffix
const ean13Reports = posScan(']E0', '4006381333931', 0x64);
const code128Reports = posScan(']C0', 'GATE-NORTH-07', 0x6a);
const triggerReport = new Uint8Array(64);
triggerReport[0] = 0x04; // another report ID on the same interface (e.g. a trigger/status report)
triggerReport[1] = 0x01;
// A QR whose multi-byte UTF-8 character straddles two reports (bytes 55..56).
const straddling = `${'x'.repeat(55)}é-ok`;
const straddlingReports = posScan(QR, straddling, QR_HONEYWELL_ID);
const badCountReport = posReport(QR, Buffer.alloc(0), true);
badCountReport[1] = 0x40; // 64: more than the 56-byte data field
const notUtf8Reports = [posReport(QR, Buffer.from([0x74, 0x6b, 0xff, 0xfe, 0x31]), false)];

// Other vendors' layouts (hid-pos-layouts.ts cites each):
/** Newland: byte count at 1, data from byte 2 (56), reserved 58-61, Newland symbology id at 62, continued at 63. */
function newlandScan(text, symbologyByte, { reportLength = 64 } = {}) {
  const bytes = Buffer.from(text, 'utf8');
  const reports = [];
  for (let offset = 0; offset < bytes.length || offset === 0; offset += POS_DATA_CAPACITY) {
    const chunk = bytes.subarray(offset, offset + POS_DATA_CAPACITY);
    const report = new Uint8Array(reportLength);
    report[0] = 0x02;
    report[1] = chunk.length;
    report.set(chunk, 2);
    report[62] = symbologyByte;
    if (reportLength === 64) report[63] = offset + POS_DATA_CAPACITY < bytes.length ? 0x01 : 0x00;
    reports.push(report);
    if (chunk.length === 0) break;
  }
  return reports;
}
/** A vendor byte at 2 before the AIM id in 3-5, data from byte 6 (up to 57 bytes), continued at 63. */
function vendorByteScan(vendorByte, aim, text) {
  const capacity = 57;
  const bytes = Buffer.from(text, 'utf8');
  const reports = [];
  for (let offset = 0; offset < bytes.length; offset += capacity) {
    const chunk = bytes.subarray(offset, offset + capacity);
    const report = new Uint8Array(64);
    report[0] = 0x02;
    report[1] = chunk.length;
    report[2] = vendorByte;
    report.set(Buffer.from(aim, 'latin1'), 3);
    report.set(chunk, 6);
    report[63] = offset + capacity < bytes.length ? 0x01 : 0x00;
    reports.push(report);
  }
  return reports;
}
/**
 * A layout none of the heuristics knows, declared only by its report descriptor:
 * report 1, count at 1, 60 data bytes from 2, AIM id at 62-64, continued at byte 65 bit 0 (66 bytes).
 */
function genericScan(aim, text) {
  const capacity = 60;
  const bytes = Buffer.from(text, 'utf8');
  const reports = [];
  for (let offset = 0; offset < bytes.length; offset += capacity) {
    const chunk = bytes.subarray(offset, offset + capacity);
    const report = new Uint8Array(66);
    report[0] = 0x01;
    report[1] = chunk.length;
    report.set(chunk, 2);
    report.set(Buffer.from(aim, 'latin1'), 62);
    report[65] = offset + capacity < bytes.length ? 0x01 : 0x00;
    reports.push(report);
  }
  return reports;
}

// Report descriptors (HID 1.11 6.2.2 short items), written from the layouts above.
const item = (prefix, ...data) => [prefix, ...data];
const usagePage = (page) => (page > 0xff ? item(0x06, page & 0xff, page >> 8) : item(0x05, page));
const usage = (id) => item(0x09, id);
const reportId = (id) => item(0x85, id);
const reportSize = (bits) => item(0x75, bits);
const reportCount = (n) => item(0x95, n);
const input = (flags) => item(0x81, flags);
const collection = (kind) => item(0xa1, kind);
const endCollection = () => [0xc0];
const DATA_VAR = 0x02;
const DATA_BUF = 0x02; // buffered bytes are declared Data,Var (bit 8 lives in a 2-byte item; 1 byte is enough here)
const CONST = 0x01;
const byteCountField = [...usagePage(0x01), ...usage(0x3b), ...reportSize(8), ...reportCount(1), ...input(DATA_VAR)];
const aimField = [
  ...usagePage(0x8c),
  ...usage(0xfb),
  ...usage(0xfc),
  ...usage(0xfd),
  ...reportSize(8),
  ...reportCount(3),
  ...input(DATA_VAR),
];
const dataField = (count) => [...usagePage(0x8c), ...usage(0xfe), ...reportSize(8), ...reportCount(count), ...input(DATA_BUF)];
const vendorBytes = (count) => [...usagePage(0xff00), ...usage(0x01), ...reportSize(8), ...reportCount(count), ...input(DATA_VAR)];
const continuedBit = [
  ...usagePage(0x8c),
  ...usage(0xff),
  ...reportSize(1),
  ...reportCount(1),
  ...input(DATA_VAR),
  ...reportSize(7),
  ...reportCount(1),
  ...input(CONST),
];
const scannerCollection = (...fields) => [
  ...usagePage(0x8c),
  ...usage(0x02),
  ...collection(0x01),
  ...usage(0x12),
  ...collection(0x02),
  ...fields,
  ...endCollection(),
  ...endCollection(),
];
const outputReport = [...reportId(0x04), ...usagePage(0xff00), ...usage(0x02), ...reportSize(8), ...reportCount(63), 0x91, 0x02];
const descriptors = {
  standard: scannerCollection(...reportId(0x02), ...byteCountField, ...aimField, ...dataField(56), ...vendorBytes(2), ...continuedBit),
  newland: [
    ...scannerCollection(...reportId(0x02), ...byteCountField, ...dataField(56), ...vendorBytes(5), ...continuedBit),
    ...outputReport,
  ],
  generic: scannerCollection(...reportId(0x01), ...byteCountField, ...dataField(60), ...aimField, ...continuedBit),
  keyboardOnly: [
    0x05, 0x01, 0x09, 0x06, 0xa1, 0x01, 0x05, 0x07, 0x19, 0xe0, 0x29, 0xe7, 0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x08, 0x81, 0x02,
    0x95, 0x01, 0x75, 0x08, 0x81, 0x01, 0x95, 0x06, 0x75, 0x08, 0x15, 0x00, 0x25, 0x65, 0x05, 0x07, 0x19, 0x00, 0x29, 0x65, 0x81, 0x00,
    0xc0,
  ],
};

const NEWLAND_QR_ID = 0x51; // 'Q'
const ZEBRA_VENDOR_BYTE = 0x03;
const longStandard = posScan(QR, longTicketCode, QR_HONEYWELL_ID);
const snapiReport = new Uint8Array(32);
snapiReport[0] = 0x22;
snapiReport.set([0x0a, 0x00, 0x01], 1);
// Newland data read with the standard layout's offsets: its count covers 3 bytes past the data (zeros).
const newlandAsStandard = newlandScan('GATE-7', NEWLAND_QR_ID);
const framedReports = posScan(QR, `\x02${ticketCode}\x03\r\n`, QR_HONEYWELL_ID);

const posFixtures = {
  description: 'HID-POS (usage page 0x8C) scanned-data input reports as node-hid delivers them: report ID first, 64 bytes each.',
  codes: { ticket: ticketCode, setup: setupCode, straddling, longTicket: longTicketCode },
  descriptors: Object.fromEntries(Object.entries(descriptors).map(([name, bytes]) => [name, hex(Uint8Array.from(bytes))])),
  cases: {
    ticket: { reports: ticketReports.map(hex) },
    setupWithCrLfSuffix: { reports: setupReports.map(hex) },
    ean13: { reports: ean13Reports.map(hex) },
    triggerReportBetweenContinuations: {
      reports: [ticketReports[0], ticketReports[1], triggerReport, ...ticketReports.slice(2)].map(hex),
    },
    utf8StraddlingReports: { reports: straddlingReports.map(hex) },
    shortReportThenScan: { reports: [Uint8Array.from([0x02, 0x05, 0x5d, 0x51, 0x31, 0x61, 0x62]), ...ean13Reports].map(hex) },
    lostLastReportThenOtherSymbology: { reports: [ticketReports[0], ticketReports[1], ...code128Reports].map(hex) },
    lostLastReportSameSymbology: { firstScanPrefix: [ticketReports[0], ticketReports[1]].map(hex), nextScan: setupReports.map(hex) },
    badByteCountMidScan: {
      reports: [ticketReports[0], badCountReport, ...ticketReports.slice(2), ...ean13Reports].map(hex),
    },
    notUtf8: { reports: notUtf8Reports.map(hex) },
    emptyReport: { reports: [hex(posReport(QR, Buffer.alloc(0), false))] },
    longTicketStandard: { reports: longStandard.map(hex) },
    longTicketNewland: { reports: newlandScan(longTicketCode, NEWLAND_QR_ID).map(hex) },
    longTicketNewland63: { reports: newlandScan(longTicketCode, NEWLAND_QR_ID, { reportLength: 63 }).map(hex) },
    newland63ExactlyOneFullReport: { reports: newlandScan('x'.repeat(56), NEWLAND_QR_ID, { reportLength: 63 }).map(hex) },
    newlandAimPrefixInData: { reports: newlandScan(`]Q1${ticketCode}`, NEWLAND_QR_ID).map(hex) },
    longTicketVendorByte: { reports: vendorByteScan(ZEBRA_VENDOR_BYTE, QR, longTicketCode).map(hex) },
    vendorByteAimOff: { reports: vendorByteScan(ZEBRA_VENDOR_BYTE, '\0\0\0', 'GATE-NORTH-07').map(hex) },
    longTicketGeneric: { reports: genericScan(QR, longTicketCode).map(hex) },
    newlandReadAsStandard: { reports: newlandAsStandard.map(hex) },
    framedStxEtxCrLf: { reports: framedReports.map(hex) },
    snapiReports: { reports: [snapiReport, snapiReport].map(hex) },
  },
};

// --- keyboard boot reports ---------------------------------------------------
const LEFT_SHIFT = 0x02;
const RIGHT_SHIFT = 0x20;
const ENTER = 0x28;
const TAB = 0x2b;
const ERROR_ROLL_OVER = 0x01;
const letters = 'abcdefghijklmnopqrstuvwxyz';
const digits = '1234567890';
const shiftedDigits = '!@#$%^&*()';
const punctuation = {
  '-': [0x2d, false],
  _: [0x2d, true],
  '=': [0x2e, false],
  '+': [0x2e, true],
  '.': [0x37, false],
  '/': [0x38, false],
  ':': [0x33, true],
  ';': [0x33, false],
  ' ': [0x2c, false],
};
/** [usage id, needs shift] for a character on a US layout. */
function usKey(ch) {
  if (letters.includes(ch)) return [0x04 + letters.indexOf(ch), false];
  if (letters.toUpperCase().includes(ch)) return [0x04 + letters.toUpperCase().indexOf(ch), true];
  if (digits.includes(ch)) return [0x1e + digits.indexOf(ch), false];
  if (shiftedDigits.includes(ch)) return [0x1e + shiftedDigits.indexOf(ch), true];
  if (ch in punctuation) return punctuation[ch];
  throw new Error(`no US key for ${JSON.stringify(ch)}`);
}
const bootReport = (modifiers, ...keys) => {
  const report = new Uint8Array(8);
  report[0] = modifiers;
  report.set(keys.slice(0, 6), 2);
  return report;
};
const RELEASE = bootReport(0);

/** Press-and-release per character, alternating left and right shift; the way most scanners type. */
function typePressRelease(text, terminator) {
  const reports = [];
  let useRightShift = false;
  for (const ch of text) {
    const [usage, shift] = usKey(ch);
    const modifiers = shift ? (useRightShift ? RIGHT_SHIFT : LEFT_SHIFT) : 0;
    if (shift) useRightShift = !useRightShift;
    reports.push(bootReport(modifiers, usage), RELEASE);
  }
  reports.push(bootReport(0, terminator), RELEASE);
  return reports;
}

/**
 * Fast scanners roll over: the next key goes down before the previous comes
 * up, and a held key may be reported twice. Same character twice in a row
 * needs a release in between (otherwise it is one key press). Every fourth
 * key is repeated as an identical report (key still held).
 */
function typeWithRollover(text, terminator) {
  const reports = [];
  let previous = null; // [usage, shift]
  [...text].forEach((ch, index) => {
    const [usage, shift] = usKey(ch);
    const modifiers = shift ? LEFT_SHIFT : 0;
    if (previous && previous[0] !== usage && previous[1] === shift) {
      reports.push(bootReport(modifiers, previous[0], usage)); // both held
      reports.push(bootReport(modifiers, usage)); // previous released
    } else {
      if (previous) reports.push(RELEASE);
      reports.push(bootReport(modifiers, usage));
    }
    if (index % 4 === 3) reports.push(bootReport(modifiers, usage)); // held across two reports
    previous = [usage, shift];
  });
  reports.push(RELEASE, bootReport(0, terminator), RELEASE);
  return reports;
}

const keyboardTicket = typePressRelease(ticketCode, ENTER);
const keyboardSetup = typeWithRollover(setupCode, TAB);
const phantomMidScan = typePressRelease('tkt1.Ab', ENTER);
phantomMidScan.splice(
  4,
  0,
  bootReport(0, ERROR_ROLL_OVER, ERROR_ROLL_OVER, ERROR_ROLL_OVER, ERROR_ROLL_OVER, ERROR_ROLL_OVER, ERROR_ROLL_OVER),
);
const keypadDigits = [0x59, 0x5a, 0x5b, 0x62].flatMap((usage) => [bootReport(0, usage), RELEASE]).concat([bootReport(0, 0x58), RELEASE]);
const truncatedMidScan = [...typePressRelease('tkt1.AAA', ENTER)];
truncatedMidScan.splice(6, 0, Uint8Array.from([0x00, 0x00, 0x04]));
const functionKeyMidScan = [...typePressRelease('abc', ENTER)];
functionKeyMidScan.splice(2, 0, bootReport(0, 0x3a), RELEASE); // F1
// Ctrl+M as a scan prefix poisons that scan through its Enter; the next scan is clean.
const ctrlChord = [bootReport(0x01, 0x10), RELEASE, ...typePressRelease('ok', ENTER), ...typePressRelease('fine', ENTER)];

const CTRL_SHIFT = 0x03; // Left Ctrl + Left Shift
const LEFT_CTRL = 0x01;
const KEY_J = 0x0d;
const KEY_M = 0x10;
const KEY_I = 0x0c;
const KEY_B = 0x05;
const KEY_C = 0x06;
const F1 = 0x3a;
/** Characters as press-and-release, without a terminator. */
const typed = (text) => typePressRelease(text, 0).slice(0, -2);
const chord = (modifiers, usage) => [bootReport(modifiers, usage), RELEASE];
// node-hid issue #323: a scanner sends digits, Enter (0x28), then Ctrl+Shift+J (modifiers 0x03, usage 0x0D): CR LF.
const issue323 = [
  ...typed('4006381333931'),
  ...chord(0, ENTER),
  ...chord(CTRL_SHIFT, KEY_J),
  ...typed('5901234123457'),
  ...chord(0, ENTER),
  ...chord(CTRL_SHIFT, KEY_J),
];

const keyboardFixtures = {
  description: 'HID keyboard boot reports (8 bytes: modifiers, reserved, 6 key usage ids) from a scanner typing on a US layout.',
  codes: { ticket: ticketCode, setup: setupCode, longTicket: longTicketCode },
  cases: {
    ticketPressReleaseEnter: { reports: keyboardTicket.map(hex) },
    setupRolloverTab: { reports: keyboardSetup.map(hex) },
    phantomStateMidScan: { reports: phantomMidScan.map(hex) },
    keypadDigitsKeypadEnter: { reports: keypadDigits.map(hex) },
    truncatedReportMidScanThenScan: { reports: [...truncatedMidScan, ...typePressRelease('tkt1.BBB', ENTER)].map(hex) },
    functionKeyMidScanThenScan: { reports: [...functionKeyMidScan, ...typePressRelease('next', ENTER)].map(hex) },
    ctrlChordThenScan: { reports: ctrlChord.map(hex) },
    issue323CrThenCtrlShiftJ: { reports: issue323.map(hex) },
    terminatedByLfCtrlJ: { reports: [...typed('lf-scan'), ...chord(LEFT_CTRL, KEY_J)].map(hex) },
    terminatedByCrCtrlM: { reports: [...typed('cr-scan'), ...chord(LEFT_CTRL, KEY_M)].map(hex) },
    terminatedByTabCtrlI: { reports: [...typed('tab-scan'), ...chord(LEFT_CTRL, KEY_I)].map(hex) },
    terminatedByTab: { reports: [...typed('tab-key'), ...chord(0, TAB)].map(hex) },
    terminatedByCrLfKeys: {
      reports: [
        ...typed('crlf-scan'),
        ...chord(0, ENTER),
        ...chord(LEFT_CTRL, KEY_J),
        ...typed('next'),
        ...chord(0, ENTER),
        ...chord(LEFT_CTRL, KEY_J),
      ].map(hex),
    },
    noTerminator: { reports: typed('pause-scan').map(hex) },
    stxEtxFraming: { reports: [...chord(LEFT_CTRL, KEY_B), ...typed('framed'), ...chord(LEFT_CTRL, KEY_C), ...chord(0, ENTER)].map(hex) },
    functionKeyPrefixTwice: {
      reports: [...chord(0, F1), ...typed('first'), ...chord(0, ENTER), ...chord(0, F1), ...typed('second'), ...chord(0, ENTER)].map(hex),
    },
    controlKeyMidScanThenScan: {
      reports: [...typed('ab'), ...chord(LEFT_CTRL, KEY_B), ...typed('cd'), ...chord(0, ENTER), ...typed('clean'), ...chord(0, ENTER)].map(
        hex,
      ),
    },
    longTicketCrLf: { reports: [...typed(longTicketCode), ...chord(0, ENTER), ...chord(CTRL_SHIFT, KEY_J)].map(hex) },
  },
};

writeFileSync(join(here, 'hid-pos-reports.json'), `${JSON.stringify(posFixtures, null, 2)}\n`);
writeFileSync(join(here, 'keyboard-reports.json'), `${JSON.stringify(keyboardFixtures, null, 2)}\n`);
console.log(
  `ticket code: ${ticketCode.length} chars in ${ticketReports.length} HID-POS reports; long ticket: ${longTicketCode.length} chars in ${longStandard.length}`,
);
console.log(`setup code: ${setupCode.length} chars; keyboard ticket: ${keyboardTicket.length} reports`);
