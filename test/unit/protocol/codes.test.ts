import { describe, expect, it } from 'vitest';
import { encodeBase64Url, utf8Encode } from '../../../protocol/base64url.js';
import { verifyEd25519 } from '../../../protocol/ed25519.js';
import { QrCodeError, type QrCodeErrorCode } from '../../../protocol/qr-code-error.js';
import { decodeSetupCode, encodeSetupCode } from '../../../protocol/setup-code.js';
import { decodeTicketCode, encodeTicketCode } from '../../../protocol/ticket-code.js';
import type { SetupPayload, TicketPayload } from '../../../protocol/types.js';
import { generateSigningKey, signEd25519Node } from '../../../issuer/signing.js';

const key = generateSigningKey();
const sign = (message: Uint8Array): Uint8Array => signEd25519Node(message, key.privateKey);

const payload: TicketPayload = {
  v: 1,
  iss: 'https://tickets.example.org',
  kid: key.kid,
  tid: '01JD0000000000000000000001',
  eid: '01JD00000000000000000000E1',
  ev: { name: 'Summer Gala', date: '2026-07-01T19:00:00Z', venue: 'Main Hall' },
  tt: 'VIP',
  hn: 'Ada L.',
  iat: 1_780_000_000,
  exp: 1_780_100_000,
};

const setup: SetupPayload = {
  v: 1,
  iss: 'https://tickets.example.org',
  enroll_url: 'https://tickets.example.org/api/v1/scanners/enroll',
  token: 'dG9rZW4tdG9rZW4tdG9rZW4tdG9rZW4',
  eid: payload.eid,
  event_name: 'Summer Gala',
  gate_id: 'B',
  expires_at: '2026-07-02T07:00:00Z',
};

const segment = (value: unknown): string => encodeBase64Url(utf8Encode(JSON.stringify(value)));
const signatureSegment = encodeBase64Url(new Uint8Array(64));

function codeOf(error: () => unknown): { code: QrCodeErrorCode; field: string | undefined } {
  try {
    error();
  } catch (caught) {
    if (caught instanceof QrCodeError) return { code: caught.code, field: caught.field };
    throw caught;
  }
  throw new Error('expected a QrCodeError');
}

describe('tkt1 ticket codes', () => {
  it('round-trips, and the signature covers the exact payload segment', () => {
    const code = encodeTicketCode(payload, sign);
    expect(code.startsWith('tkt1.')).toBe(true);
    const decoded = decodeTicketCode(code);
    expect(decoded.payload).toEqual(payload);
    expect(new TextDecoder().decode(decoded.signedBytes)).toBe(code.split('.')[1]);
    expect(verifyEd25519(decoded.signature, decoded.signedBytes, key.publicKey)).toBe(true);
  });

  it('ignores unknown extra fields', () => {
    const code = `tkt1.${segment({ ...payload, extra: { nested: true }, zz: 1 })}.${signatureSegment}`;
    expect(decodeTicketCode(code).payload).toEqual(payload);
  });

  it.each<[string, string, QrCodeErrorCode, string?]>([
    ['wrong prefix', `tkt2.${segment(payload)}.${signatureSegment}`, 'wrong_prefix'],
    ['a setup code', encodeSetupCode(setup), 'wrong_prefix'],
    ['empty string', '', 'wrong_prefix'],
    ['one segment', `tkt1.${segment(payload)}`, 'wrong_segment_count'],
    ['three segments', `tkt1.${segment(payload)}.${signatureSegment}.x`, 'wrong_segment_count'],
    ['bad base64url payload', `tkt1.ab+c.${signatureSegment}`, 'bad_base64url'],
    ['bad base64url signature', `tkt1.${segment(payload)}.sig=`, 'bad_base64url'],
    ['payload not JSON', `tkt1.${encodeBase64Url(utf8Encode('{nope'))}.${signatureSegment}`, 'bad_json'],
    ['payload not UTF-8', `tkt1.${encodeBase64Url(new Uint8Array([0xff, 0xfe]))}.${signatureSegment}`, 'bad_json'],
    ['payload an array', `tkt1.${segment([1, 2])}.${signatureSegment}`, 'not_an_object'],
    ['payload null', `tkt1.${segment(null)}.${signatureSegment}`, 'not_an_object'],
    ['signature 63 bytes', `tkt1.${segment(payload)}.${encodeBase64Url(new Uint8Array(63))}`, 'bad_signature_length'],
    ['signature 65 bytes', `tkt1.${segment(payload)}.${encodeBase64Url(new Uint8Array(65))}`, 'bad_signature_length'],
    ['missing tid', `tkt1.${segment({ ...payload, tid: undefined })}.${signatureSegment}`, 'missing_field', 'tid'],
    ['empty tid', `tkt1.${segment({ ...payload, tid: '' })}.${signatureSegment}`, 'missing_field', 'tid'],
    ['null exp', `tkt1.${segment({ ...payload, exp: null })}.${signatureSegment}`, 'missing_field', 'exp'],
    ['v as string', `tkt1.${segment({ ...payload, v: '1' })}.${signatureSegment}`, 'wrong_field_type', 'v'],
    ['iat fractional', `tkt1.${segment({ ...payload, iat: 1.5 })}.${signatureSegment}`, 'wrong_field_type', 'iat'],
    ['ev a string', `tkt1.${segment({ ...payload, ev: 'gala' })}.${signatureSegment}`, 'wrong_field_type', 'ev'],
    [
      'ev.venue missing',
      `tkt1.${segment({ ...payload, ev: { name: 'x', date: '2026-07-01T19:00:00Z' } })}.${signatureSegment}`,
      'missing_field',
      'ev.venue',
    ],
    [
      'ev.date not a date-time',
      `tkt1.${segment({ ...payload, ev: { ...payload.ev, date: 'tomorrow' } })}.${signatureSegment}`,
      'wrong_field_type',
      'ev.date',
    ],
    ['hn a number', `tkt1.${segment({ ...payload, hn: 7 })}.${signatureSegment}`, 'wrong_field_type', 'hn'],
  ])('refuses %s with a precise error', (_label, code, expected, field) => {
    const error = codeOf(() => decodeTicketCode(code));
    expect(error.code).toBe(expected);
    if (field !== undefined) expect(error.field).toBe(field);
  });
});

describe('tsetup1 setup codes', () => {
  it('round-trips, keeping optional fields only when present', () => {
    expect(decodeSetupCode(encodeSetupCode(setup))).toEqual(setup);
    const { gate_id: _gate, event_name: _name, ...minimal } = setup;
    expect(decodeSetupCode(encodeSetupCode(minimal))).toEqual(minimal);
  });

  it('ignores unknown extra fields', () => {
    expect(decodeSetupCode(`tsetup1.${segment({ ...setup, future: 'x' })}`)).toEqual(setup);
  });

  it.each<[string, string, QrCodeErrorCode, string?]>([
    ['a ticket code', encodeTicketCode(payload, sign), 'wrong_prefix'],
    ['two segments', `tsetup1.${segment(setup)}.abc`, 'wrong_segment_count'],
    ['bad base64url', 'tsetup1.%%%', 'bad_base64url'],
    ['not JSON', `tsetup1.${encodeBase64Url(utf8Encode('[1,'))}`, 'bad_json'],
    ['a JSON string', `tsetup1.${segment('hello')}`, 'not_an_object'],
    ['missing token', `tsetup1.${segment({ ...setup, token: undefined })}`, 'missing_field', 'token'],
    ['expires_at not a date', `tsetup1.${segment({ ...setup, expires_at: 'soon' })}`, 'wrong_field_type', 'expires_at'],
    ['gate_id a number', `tsetup1.${segment({ ...setup, gate_id: 3 })}`, 'wrong_field_type', 'gate_id'],
  ])('refuses %s with a precise error', (_label, code, expected, field) => {
    const error = codeOf(() => decodeSetupCode(code));
    expect(error.code).toBe(expected);
    if (field !== undefined) expect(error.field).toBe(field);
  });
});

describe('tsetup1 self-signed certificate pin (project extension)', () => {
  const fingerprint = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(':');

  it('carries tls_cert_sha256 when present', () => {
    expect(decodeSetupCode(encodeSetupCode({ ...setup, tls_cert_sha256: fingerprint })).tls_cert_sha256).toBe(fingerprint);
  });

  it.each([
    ['lowercase', fingerprint.toLowerCase()],
    ['too short', fingerprint.slice(3)],
    ['no colons', fingerprint.replaceAll(':', '')],
  ])('refuses a malformed fingerprint (%s)', (_label, bad) => {
    const error = codeOf(() => decodeSetupCode(`tsetup1.${segment({ ...setup, tls_cert_sha256: bad })}`));
    expect(error).toEqual({ code: 'wrong_field_type', field: 'tls_cert_sha256' });
  });
});
