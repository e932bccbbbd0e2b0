/** The setup QR code: `tsetup1.<base64url(setup_json)>` (docs/protocol.md "Setup payload"). */
import { encodeBase64Url, utf8Encode } from './base64url.js';
import { FieldError, optionalString, requireDateTime, requireInteger, requireString, type JsonObject } from './fields.js';
import { QrCodeError } from './qr-code-error.js';
import { decodeSegmentJson, readFields } from './signed-code.js';
import type { SetupPayload } from './types.js';

export const SETUP_PREFIX = 'tsetup1.';
/** A setup code of any version (`tsetup1.`, a later `tsetup2.`): one this kiosk cannot read is refused as an unsupported setup code, not as a ticket. */
export const ANY_SETUP_CODE = /^tsetup\d+\./;

export function encodeSetupCode(payload: SetupPayload): string {
  return SETUP_PREFIX + encodeBase64Url(utf8Encode(JSON.stringify(payload)));
}

export function decodeSetupCode(code: string): SetupPayload {
  if (!code.startsWith(SETUP_PREFIX)) throw new QrCodeError('wrong_prefix', `a setup code starts with "${SETUP_PREFIX}"`);
  const rest = code.slice(SETUP_PREFIX.length);
  if (rest.includes('.')) throw new QrCodeError('wrong_segment_count', 'a setup code has exactly one segment');
  return readFields(decodeSegmentJson(rest, 'setup'), readSetupPayload);
}

function readSetupPayload(obj: JsonObject): SetupPayload {
  const payload: SetupPayload = {
    v: requireInteger(obj, 'v'),
    iss: requireString(obj, 'iss'),
    enroll_url: requireString(obj, 'enroll_url'),
    token: requireString(obj, 'token'),
    eid: requireString(obj, 'eid'),
    expires_at: requireDateTime(obj, 'expires_at'),
  };
  const eventName = optionalString(obj, 'event_name');
  const gateId = optionalString(obj, 'gate_id');
  if (eventName !== undefined) payload.event_name = eventName;
  if (gateId !== undefined) payload.gate_id = gateId;
  const fingerprint = optionalString(obj, 'tls_cert_sha256');
  if (fingerprint !== undefined) {
    if (!isCertificateFingerprint(fingerprint)) throw new FieldError('tls_cert_sha256', 'wrong_type');
    payload.tls_cert_sha256 = fingerprint;
  }
  // Project extension: the kiosk must set a staff PIN before it scans tickets. `false` is the same as absent.
  const pinRequired = obj['pin_required'];
  if (pinRequired !== undefined && typeof pinRequired !== 'boolean') throw new FieldError('pin_required', 'wrong_type');
  if (pinRequired === true) payload.pin_required = true;
  // Project extension (docs/protocol.md "Door operations"): the gate's direction; absent is entry.
  const direction = optionalString(obj, 'direction');
  if (direction !== undefined) {
    if (direction !== 'entry' && direction !== 'exit') throw new FieldError('direction', 'wrong_type');
    payload.direction = direction;
  }
  return payload;
}

/** SHA-256 certificate fingerprint as OpenSSL and Node print it: 32 uppercase hex pairs joined by ':'. */
export function isCertificateFingerprint(value: string): boolean {
  return /^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/.test(value);
}
