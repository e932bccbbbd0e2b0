// Writes the scanner report fixtures (JSON, one hex string per report) that
// test/unit/scanner/*.test.ts replay. Run once: node test/unit/scanner-fixtures/make-fixtures.mjs
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

const posFixtures = {
  description: 'HID-POS (usage page 0x8C) scanned-data input reports as node-hid delivers them: report ID first, 64 bytes each.',
  codes: { ticket: ticketCode, setup: setupCode, straddling },
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
const punctuation = { '-': [0x2d, false], _: [0x2d, true], '=': [0x2e, false], '+': [0x2e, true], '.': [0x37, false], '/': [0x38, false], ':': [0x33, true], ';': [0x33, false], ' ': [0x2c, false] };
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
phantomMidScan.splice(4, 0, bootReport(0, ERROR_ROLL_OVER, ERROR_ROLL_OVER, ERROR_ROLL_OVER, ERROR_ROLL_OVER, ERROR_ROLL_OVER, ERROR_ROLL_OVER));
const keypadDigits = [0x59, 0x5a, 0x5b, 0x62].flatMap((usage) => [bootReport(0, usage), RELEASE]).concat([bootReport(0, 0x58), RELEASE]);
const truncatedMidScan = [...typePressRelease('tkt1.AAA', ENTER)];
truncatedMidScan.splice(6, 0, Uint8Array.from([0x00, 0x00, 0x04]));
const functionKeyMidScan = [...typePressRelease('abc', ENTER)];
functionKeyMidScan.splice(2, 0, bootReport(0, 0x3a), RELEASE); // F1
// Ctrl+M as a scan prefix poisons that scan through its Enter; the next scan is clean.
const ctrlChord = [bootReport(0x01, 0x10), RELEASE, ...typePressRelease('ok', ENTER), ...typePressRelease('fine', ENTER)];

const keyboardFixtures = {
  description: 'HID keyboard boot reports (8 bytes: modifiers, reserved, 6 key usage ids) from a scanner typing on a US layout.',
  codes: { ticket: ticketCode, setup: setupCode },
  cases: {
    ticketPressReleaseEnter: { reports: keyboardTicket.map(hex) },
    setupRolloverTab: { reports: keyboardSetup.map(hex) },
    phantomStateMidScan: { reports: phantomMidScan.map(hex) },
    keypadDigitsKeypadEnter: { reports: keypadDigits.map(hex) },
    truncatedReportMidScanThenScan: { reports: [...truncatedMidScan, ...typePressRelease('tkt1.BBB', ENTER)].map(hex) },
    functionKeyMidScanThenScan: { reports: [...functionKeyMidScan, ...typePressRelease('next', ENTER)].map(hex) },
    ctrlChordThenScan: { reports: ctrlChord.map(hex) },
  },
};

writeFileSync(join(here, 'hid-pos-reports.json'), `${JSON.stringify(posFixtures, null, 2)}\n`);
writeFileSync(join(here, 'keyboard-reports.json'), `${JSON.stringify(keyboardFixtures, null, 2)}\n`);
console.log(`ticket code: ${ticketCode.length} chars in ${ticketReports.length} HID-POS reports`);
console.log(`setup code: ${setupCode.length} chars; keyboard ticket: ${keyboardTicket.length} reports`);
