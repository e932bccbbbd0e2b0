/**
 * The ticket QR code: `tkt1.<base64url(payload_json)>.<base64url(signature)>`
 * (docs/protocol.md "Codes people scan"). The signature covers the exact bytes of the
 * encoded payload segment, so decoding keeps that segment as signed.
 */
import { FieldError, optionalString, requireDateTime, requireInteger, requireObject, requireString, type JsonObject } from './fields.js';
import { decodeSignedCode, encodeSignedCode, type DecodedSignedCode } from './signed-code.js';
import type { TicketPayload } from './types.js';

export const TICKET_PREFIX = 'tkt1.';
/**
 * How a ticket code of any version starts (`tkt1.` today, a later `tkt2.`):
 * text that starts so is meant as a code, never as a typed ticket ID.
 */
export const TICKET_CODE_START = 'tkt';

/** The ticket, the bytes the Ed25519 signature covers (the ASCII of the payload segment), and the signature. */
export type DecodedTicket = DecodedSignedCode<TicketPayload>;

/** Build the code from a payload and a signer over the encoded payload segment. */
export function encodeTicketCode(payload: TicketPayload, sign: (message: Uint8Array) => Uint8Array): string {
  return encodeSignedCode(TICKET_PREFIX, payload, sign);
}

export function decodeTicketCode(code: string): DecodedTicket {
  return decodeSignedCode(TICKET_PREFIX, 'ticket code', code, readTicketPayload);
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
