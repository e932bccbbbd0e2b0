/**
 * The ticket QR code: `tkt1.<base64url(payload_json)>.<base64url(signature)>`
 * (docs/protocol.md "Codes people scan"). The signature covers the exact bytes of the
 * encoded payload segment, so decoding keeps that segment as signed.
 */
import { Base64UrlError, decodeBase64Url, encodeBase64Url, utf8Decode, utf8Encode } from './base64url.js';
import {
  FieldError,
  isJsonObject,
  optionalString,
  requireDateTime,
  requireInteger,
  requireObject,
  requireString,
  type JsonObject,
} from './fields.js';
import { QrCodeError } from './qr-code-error.js';
import type { TicketPayload } from './types.js';

export const TICKET_PREFIX = 'tkt1.';
/**
 * How a ticket code of any version starts (`tkt1.` today, a later `tkt2.`):
 * text that starts so is meant as a code, never as a typed ticket ID.
 */
export const TICKET_CODE_START = 'tkt';
export const SIGNATURE_LENGTH = 64;

export interface DecodedTicket {
  payload: TicketPayload;
  /** The bytes the Ed25519 signature covers: the ASCII of the payload segment. */
  signedBytes: Uint8Array;
  signature: Uint8Array;
}

/** Build the code from a payload and a signer over the encoded payload segment. */
export function encodeTicketCode(payload: TicketPayload, sign: (message: Uint8Array) => Uint8Array): string {
  const segment = encodeBase64Url(utf8Encode(JSON.stringify(payload)));
  const signature = sign(utf8Encode(segment));
  if (signature.length !== SIGNATURE_LENGTH) throw new Error('signer returned a signature of the wrong length');
  return `${TICKET_PREFIX}${segment}.${encodeBase64Url(signature)}`;
}

export function decodeTicketCode(code: string): DecodedTicket {
  if (!code.startsWith(TICKET_PREFIX)) throw new QrCodeError('wrong_prefix', `a ticket code starts with "${TICKET_PREFIX}"`);
  const segments = code.slice(TICKET_PREFIX.length).split('.');
  if (segments.length !== 2) throw new QrCodeError('wrong_segment_count', 'a ticket code has a payload and a signature segment');
  const [payloadSegment, signatureSegment] = segments as [string, string];
  const json = decodeSegmentJson(payloadSegment, 'payload');
  const signature = decodeSegment(signatureSegment, 'signature');
  if (signature.length !== SIGNATURE_LENGTH) {
    throw new QrCodeError('bad_signature_length', `the signature is ${signature.length} bytes, not ${SIGNATURE_LENGTH}`);
  }
  return { payload: readFields(json, readTicketPayload), signedBytes: utf8Encode(payloadSegment), signature };
}

function readTicketPayload(obj: JsonObject): TicketPayload {
  const ev = requireObject(obj, 'ev');
  const payload: TicketPayload = {
    v: requireInteger(obj, 'v'),
    iss: requireString(obj, 'iss'),
    kid: requireString(obj, 'kid'),
    tid: requireString(obj, 'tid'),
    eid: requireString(obj, 'eid'),
    ev: {
      name: prefixed('ev', () => requireString(ev, 'name')),
      date: prefixed('ev', () => requireDateTime(ev, 'date')),
      venue: prefixed('ev', () => requireString(ev, 'venue')),
    },
    iat: requireInteger(obj, 'iat'),
    exp: requireInteger(obj, 'exp'),
  };
  const tt = optionalString(obj, 'tt');
  const hn = optionalString(obj, 'hn');
  if (tt !== undefined) payload.tt = tt;
  if (hn !== undefined) payload.hn = hn;
  return payload;
}

function prefixed<T>(parent: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof FieldError) throw new FieldError(`${parent}.${error.field}`, error.problem);
    throw error;
  }
}

// Shared with setup-code.ts: segment decoding and field reading with typed errors.
export function decodeSegment(segment: string, what: string): Uint8Array {
  try {
    return decodeBase64Url(segment);
  } catch (error) {
    if (error instanceof Base64UrlError) throw new QrCodeError('bad_base64url', `the ${what} segment is not base64url: ${error.message}`);
    throw error;
  }
}

export function decodeSegmentJson(segment: string, what: string): JsonObject {
  const bytes = decodeSegment(segment, what);
  let value: unknown;
  try {
    value = JSON.parse(utf8Decode(bytes));
  } catch {
    throw new QrCodeError('bad_json', `the ${what} segment is not UTF-8 JSON`);
  }
  if (!isJsonObject(value)) throw new QrCodeError('not_an_object', `the ${what} is not a JSON object`);
  return value;
}

export function readFields<T>(obj: JsonObject, read: (obj: JsonObject) => T): T {
  try {
    return read(obj);
  } catch (error) {
    if (error instanceof FieldError) {
      throw new QrCodeError(error.problem === 'missing' ? 'missing_field' : 'wrong_field_type', error.message, error.field);
    }
    throw error;
  }
}
